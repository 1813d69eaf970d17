package tui

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/golden"
)

// assertGolden compares got with testdata/<name>, or rewrites it under -update.
func assertGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Assert(t, filepath.Join("testdata", filepath.FromSlash(name)), got)
}

func init() {
	// Stamps and "at 09:31" are local time: pin it for the goldens.
	time.Local = time.UTC
}

func TestPlainGolden(t *testing.T) {
	var buf bytes.Buffer
	p := NewPlain(&buf, 0)
	for _, e := range synthRun(t, 6, "load:PUB.t0002") {
		p.Emit(e)
	}
	require.NoError(t, p.Close())
	out := buf.String()
	assert.NotContains(t, out, "\r", "plain output never redraws")
	assert.NotContains(t, out, "\x1b", "plain output has no escape sequences")
	assertGolden(t, "plain.golden", buf.Bytes())
}

func TestPlainSummaryEvery(t *testing.T) {
	var mu sync.Mutex
	var buf bytes.Buffer
	w := writerFunc(func(b []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return buf.Write(b) })
	p := NewPlain(w, 5*time.Millisecond)
	p.now = func() time.Time { return at(42) }
	p.Emit(event.Event{Time: at(0), Kind: event.RunStarted, TotalBytes: 1 << 20})
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return strings.Contains(buf.String(), "elapsed 42s")
	}, 5*time.Second, time.Millisecond, "a summary line comes from the ticker")
	p.Emit(event.Event{Time: at(50), Kind: event.RunFinished})
	require.NoError(t, p.Close())
	mu.Lock()
	n := strings.Count(buf.String(), "\n")
	mu.Unlock()
	p.Summary() // after the end: prints nothing
	mu.Lock()
	assert.Equal(t, n, strings.Count(buf.String(), "\n"))
	mu.Unlock()
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

func TestJSONOneObjectPerEvent(t *testing.T) {
	var buf bytes.Buffer
	j := NewJSON(&buf)
	events := synthRun(t, 4)
	for _, e := range events {
		j.Emit(e)
	}
	j.Close()
	require.NoError(t, j.Err())
	sc := bufio.NewScanner(&buf)
	n := 0
	for sc.Scan() {
		var got event.Event
		require.NoError(t, json.Unmarshal(sc.Bytes(), &got), sc.Text())
		assert.Equal(t, event.SchemaVersion, got.V)
		assert.Equal(t, events[n].Kind, got.Kind)
		assert.True(t, events[n].Time.Equal(got.Time))
		n++
	}
	assert.Equal(t, len(events), n)
}

func TestJSONKeepsFirstError(t *testing.T) {
	calls := 0
	j := NewJSON(writerFunc(func([]byte) (int, error) { calls++; return 0, os.ErrClosed }))
	j.Emit(event.Event{Kind: event.Phase})
	j.Emit(event.Event{Kind: event.Phase})
	j.Close()
	assert.ErrorIs(t, j.Err(), os.ErrClosed)
	assert.Equal(t, 1, calls, "a broken pipe is not written to again")
}

// TestJSONEmitNeverWaitsForTheConsumer: a consumer that stops reading
// (`| less` on its first page, a stalled log shipper) must not stop the
// run: Emit wrote to the pipe, and once it was full every job waited in
// Emit (an oedl run --json piped into a reader that slept 20 s took 22 s
// instead of 1.5 s). The events are all written, in order, once the
// consumer reads again. The deadline only guards against a hang.
func TestJSONEmitNeverWaitsForTheConsumer(t *testing.T) {
	release := make(chan struct{})
	var buf bytes.Buffer
	j := NewJSON(writerFunc(func(b []byte) (int, error) { <-release; return buf.Write(b) }))
	emitted := make(chan struct{})
	go func() {
		for i := range 100 {
			j.Emit(event.Event{Kind: event.JobStarted, Job: fmt.Sprintf("dump:PUB.t%03d", i)})
		}
		close(emitted)
	}()
	select {
	case <-emitted:
	case <-time.After(30 * time.Second):
		close(release)
		t.Fatal("Emit waited for a consumer that does not read")
	}
	close(release)
	j.Close()
	require.NoError(t, j.Err())
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	require.Len(t, lines, 100)
	for i, l := range lines {
		var e event.Event
		require.NoError(t, json.Unmarshal([]byte(l), &e))
		assert.Equal(t, fmt.Sprintf("dump:PUB.t%03d", i), e.Job, "in the order emitted")
	}
}

// TestJSONAfterClose: events after Close are dropped, and Close twice is
// harmless (the run's printers are closed on every path).
func TestJSONAfterClose(t *testing.T) {
	var buf bytes.Buffer
	j := NewJSON(&buf)
	j.Emit(event.Event{Kind: event.Phase})
	j.Close()
	j.Emit(event.Event{Kind: event.Phase})
	j.Close()
	assert.Equal(t, 1, strings.Count(buf.String(), "\n"))
}

func TestRenderStatusGolden(t *testing.T) {
	events := synthRun(t, 40, "load:PUB.t0007")
	// Stop in the middle of the run, where there is something to see.
	s := NewState()
	for _, e := range events {
		if e.Time.After(at(45)) {
			break
		}
		s.Apply(e)
	}
	fail := event.Event{Time: s.Now, Kind: event.JobFailed, Job: "load:PUB.t0007", JobKind: "load", Table: "PUB.t0007",
		Attempt: 1, Err: "exit status 1", Log: "/work/logs/load_PUB.t0007.1.log"}
	s.Apply(fail)
	s.Apply(event.Event{Time: s.Now, Kind: event.Warning, Message: "dump directory has 2.1 GiB left"})
	var buf bytes.Buffer
	require.NoError(t, RenderStatus(&buf, s, 100))
	assertGolden(t, "status.golden", buf.Bytes())
}

func TestRenderStatusFinished(t *testing.T) {
	s := NewState()
	for _, e := range synthRun(t, 5) {
		s.Apply(e)
	}
	var buf bytes.Buffer
	require.NoError(t, RenderStatus(&buf, s, 80))
	first, _, _ := strings.Cut(buf.String(), "\n")
	assert.Equal(t, "run finished in 3m26s", first)
	assert.Contains(t, buf.String(), "idxbuild  [")
	assert.NotContains(t, buf.String(), "running:")
}
