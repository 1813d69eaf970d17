package tui

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/event"
)

// updating reports -update, which teatest's golden package defines for
// this test binary (defining it twice panics).
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if updating() {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file; run go test -update")
	if string(want) == string(got) {
		return
	}
	// Name the first line that differs rather than dumping two pages.
	wl, gl := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := range max(len(wl), len(gl)) {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			t.Errorf("%s differs from line %d (go test -update rewrites it):\nwant: %q\n got: %q", path, i+1, w, g)
			return
		}
	}
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
	golden(t, "plain.golden", buf.Bytes())
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
	assert.ErrorIs(t, j.Err(), os.ErrClosed)
	assert.Equal(t, 1, calls, "a broken pipe is not written to again")
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
	golden(t, "status.golden", buf.Bytes())
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
