package run

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/hostfs"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/schedule"
)

func TestRecordCounter(t *testing.T) {
	tests := []struct {
		name   string
		chunks []string
		want   int64
	}{
		{"nothing printed yet", []string{"Binary Dump started\n"}, 0},
		{"threads as they finish (17816)", []string{"Thread 140132717238592 dumped\n  500 records for bracket 1. (17816)\n",
			"Thread 140132718250304 dumped\n617 records for bracket 2. (17816)\n"}, 1117},
		{"a line cut between chunks", []string{"Thread 1 dumped\n5", "00 records for bra", "cket 1. (17816)\n"}, 500},
		{"an unfinished line does not count", []string{"500 records for bracket 1. (17816)"}, 0},
		{"the total wins over the threads", []string{"500 records for bracket 1. (17816)\n", "Dumped 1117 records. (13932)\n"}, 1117},
		{"unnumbered prose is not a count", []string{"1117 records dumped.\n3953 records loaded.\n"}, 0},
		{"load count (15167)", []string{"Loaded 3953 records. (15167)\nBinary Load complete. (6256)\n"}, 3953},
		{"load count in Portuguese", []string{"Carregados 203 registros. (15167)\n"}, 203},
		{"threads in any language", []string{"Thread 1 dumped\n500 registros para o intervalo 1. (17816)\n"}, 500},
		{"a load count in digit groups, read whole", []string{"Carregados 1 234 567 registros. (15167)\n"}, 1234567},
		{"a thread count in digit groups, read whole", []string{"Thread 1 despejou\n1 234 registros descarregados para o intervalo 1. (17816)\n"}, 1234},
		{"eight plain digits (real Portuguese)", []string{"Carregados 26153086 registros. (15167)\n"}, 26153086},
		{"other numbers are not records", []string{"Index rebuild complete. 0 error(s) encountered.\n", "** Cannot find or open file x, errno = 2. (43)\n"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &recordCounter{}
			for _, ch := range tt.chunks {
				n, err := c.Write([]byte(ch))
				require.NoError(t, err)
				require.Equal(t, len(ch), n)
			}
			assert.Equal(t, tt.want, c.Records())
		})
	}
}

// progressEvents collects a job's progress events for a test to wait on.
type progressEvents chan event.Event

func (p progressEvents) Emit(e event.Event) {
	if e.Kind == event.JobProgress {
		p <- e
	}
}

// waitFor reads events until one satisfies ok. The deadline only guards
// against a hung test; it asserts nothing about speed.
func (p progressEvents) waitFor(t *testing.T, what string, ok func(event.Event) bool) event.Event {
	t.Helper()
	e, found := p.next(ok)
	if !found {
		t.Fatalf("no progress event with %s", what)
	}
	return e
}

// next is waitFor for goroutines other than the test's (no FailNow).
func (p progressEvents) next(ok func(event.Event) bool) (event.Event, bool) {
	deadline := time.After(30 * time.Second)
	for {
		select {
		case e := <-p:
			if ok(e) {
				return e, true
			}
		case <-deadline:
			return event.Event{}, false
		}
	}
}

// stepRunner runs a test's function in place of the utility.
type stepRunner func(ctx context.Context, c execx.Cmd) (execx.Result, error)

func (f stepRunner) Run(ctx context.Context, c execx.Cmd) (execx.Result, error) { return f(ctx, c) }

func progressExecutor(t *testing.T, r execx.Runner) (*Executor, progressEvents, *os.File) {
	t.Helper()
	cfg := fakeSetup(t, placement("PUB.customer", "Cust", 1000))
	cfg.Runner = r
	cfg.fill()
	require.NoError(t, os.MkdirAll(filepath.Join(cfg.Work, "logs"), 0o755))
	events := make(progressEvents, 1024)
	jw, _, err := journal.Open(filepath.Join(cfg.Work, journal.FileName))
	require.NoError(t, err)
	t.Cleanup(func() { jw.Close() })
	e := &Executor{cfg: &cfg, jw: jw, sink: events, outcomes: make(chan schedule.Outcome, 64), loadJobs: map[journal.LoadKey][]string{}, starts: map[string]int{}}
	log, err := os.Create(cfg.logPath("job"))
	require.NoError(t, err)
	t.Cleanup(func() { log.Close() })
	return e, events, log
}

// TestDumpJobReportsBytesAndRecords: while a dump runs, its progress
// events carry the .bd file's size as it grows and the records the
// threads report as they finish; each step of the fake utility waits for
// the event that proves the previous one was seen.
func TestDumpJobReportsBytesAndRecords(t *testing.T) {
	var events progressEvents
	run := func(_ context.Context, c execx.Cmd) (execx.Result, error) {
		bd := filepath.Join(c.Args[len(c.Args)-1], "customer.bd")
		var out bytes.Buffer
		say := func(s string) { out.WriteString(s); c.Output.Write([]byte(s)) }
		require.NoError(t, os.WriteFile(bd, make([]byte, 600), 0o644))
		events.waitFor(t, "600 bytes", func(e event.Event) bool { return e.Bytes == 600 })
		say("Thread 1 dumped\n400 records for bracket 1. (17816)\n")
		events.waitFor(t, "400 records", func(e event.Event) bool { return e.Records == 400 })
		require.NoError(t, os.WriteFile(bd, make([]byte, 1500), 0o644))
		events.waitFor(t, "1500 bytes", func(e event.Event) bool { return e.Bytes == 1500 })
		say("Dumped 1000 records. (13932)\nBinary Dump complete. (6254)\n")
		return execx.Result{Output: out.String()}, nil
	}
	e, ev, log := progressExecutor(t, stepRunner(run))
	events = ev
	j := &schedule.Job{ID: "dump:PUB.customer", Kind: schedule.KindDump, Table: "PUB.customer", Records: 1000, Bytes: 1400}
	_, rec, err := e.dumpJob(context.Background(), j, log)
	require.NoError(t, err)
	assert.Equal(t, int64(1000), rec.Records)
	// After the job, nothing more: the poller has stopped.
	for len(events) > 0 {
		e := <-events
		assert.LessOrEqual(t, e.Bytes, int64(1500))
		assert.Equal(t, int64(1400), e.TotalBytes)
	}
}

// TestLoadJobReportsBytesRead: a load's progress is the offset of the
// loading process in its .bd file. A child process (this test binary)
// reads half the file and waits on a FIFO that the test opens only once
// an event has shown that half.
func TestLoadJobReportsBytesRead(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the read offset comes from /proc")
	}
	if bd := os.Getenv("OEDL_LOAD_CHILD"); bd != "" {
		loadChild(bd, os.Getenv("OEDL_LOAD_FIFO"))
		return
	}
	fifo := filepath.Join(t.TempDir(), "go")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	run := func(ctx context.Context, c execx.Cmd) (execx.Result, error) {
		bd := c.Args[len(c.Args)-1]
		c.Path = os.Args[0]
		c.Args = []string{"-test.run=^TestLoadJobReportsBytesRead$"}
		c.Env = append(c.Env, "OEDL_LOAD_CHILD="+bd, "OEDL_LOAD_FIFO="+fifo)
		return execx.Local{}.Run(ctx, c)
	}
	e, events, log := progressExecutor(t, stepRunner(run))
	dir := e.cfg.dumpDir("PUB.customer")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "customer.bd"), make([]byte, 8192), 0o644))
	j := &schedule.Job{ID: "load:PUB.customer", Kind: schedule.KindLoad, Table: "PUB.customer", Area: "Cust", Records: 1000, Bytes: 8000}

	released := make(chan struct{})
	go func() {
		defer close(released)
		got, ok := events.next(func(e event.Event) bool { return e.Bytes > 0 })
		assert.True(t, ok, "no progress event with half the file read")
		assert.Equal(t, int64(4096), got.Bytes, "the child has read exactly half")
		assert.Zero(t, got.Records, "binary load prints its count at the end")
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if assert.NoError(t, err) {
			f.Close()
		}
	}()
	rec, err := e.loadJob(context.Background(), j, log)
	<-released
	require.NoError(t, err)
	assert.Equal(t, int64(1000), rec.Records)
	last := events.waitFor(t, "the end", func(e event.Event) bool { return e.Bytes == 8192 })
	assert.Equal(t, int64(1000), last.Records)
}

// loadChild stands in for proutil load: read half of bd, wait for the
// FIFO to open, read the rest, report.
func loadChild(bd, fifo string) {
	f, err := os.Open(bd)
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	half := make([]byte, 4096)
	if _, err := f.Read(half); err != nil {
		os.Exit(1)
	}
	g, err := os.Open(fifo) // blocks until the test opens it for writing
	if err != nil {
		os.Exit(1)
	}
	g.Close()
	rest := make([]byte, 1<<16)
	for {
		if _, err := f.Read(rest); err != nil {
			break
		}
	}
	fmt.Print(strings.Join([]string{"Loaded 1000 records. (15167)", "Binary Load complete. (6256)", ""}, "\n"))
	os.Exit(0)
}

// TestOffsetProbeWithoutReader: no process holds the file: no offset.
func TestOffsetProbeWithoutReader(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.bd")
	require.NoError(t, os.WriteFile(path, []byte("data"), 0o644))
	_, ok := newOffsetProbe(path).Offset()
	assert.False(t, ok)
}

func TestDumpedBytesCountsSectionsBeingWritten(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]int
		want  int64
	}{
		{"single file", map[string]int{"customer.bd": 100}, 100},
		{"sections done and in progress", map[string]int{"customer.bd": 100, "customer.bd2": 50, "customer.b3.bd": 25}, 175},
		{"not this table's or not a dump", map[string]int{"customer.bd": 100, "customer.dumplist": 9, "customer-x.bd": 7, "customer.bdx": 3, "customer.b.bd": 2}, 100},
		{"nothing yet", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for f, n := range tt.files {
				require.NoError(t, os.WriteFile(filepath.Join(dir, f), make([]byte, n), 0o644))
			}
			list, err := (&hostfs.Local{}).List(context.Background(), dir)
			require.NoError(t, err)
			assert.Equal(t, tt.want, dumpedBytesOf(list, "PUB.customer"))
		})
	}
}
