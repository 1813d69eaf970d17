package eta

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/estimate"
	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/plan"
)

var t0 = time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC)

func at(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }

func jobEvent(sec float64, kind event.Kind, id, jobKind, table string) event.Event {
	return event.Event{V: 1, Time: at(sec), Kind: kind, Job: id, JobKind: jobKind, Table: table}
}

func TestTrackerFoldsTheRun(t *testing.T) {
	tr := New(Config{Out: event.SinkFunc(func(event.Event) {})})
	queued := func(sec float64, id, kind, table string, bytes int64) event.Event {
		e := jobEvent(sec, event.JobQueued, id, kind, table)
		e.TotalBytes, e.TotalRecords = bytes, bytes/100
		return e
	}
	progress := jobEvent(30, event.JobProgress, "dump:PUB.big", "dump", "PUB.big")
	progress.Bytes = 250
	done := jobEvent(12, event.JobFinished, "dump:PUB.a", "dump", "PUB.a")
	done.Elapsed = 2 * time.Second
	for _, e := range []event.Event{
		{V: 1, Time: at(0), Kind: event.RunStarted},
		jobEvent(0, event.JobSkipped, "preflight", "preflight", ""),
		queued(0, "dump:PUB.a", "dump", "PUB.a", 100), queued(0, "dump:PUB.big", "dump", "PUB.big", 1000),
		queued(0, "load:PUB.a", "load", "PUB.a", 100),
		jobEvent(10, event.JobStarted, "dump:PUB.a", "dump", "PUB.a"), done,
		jobEvent(10, event.JobStarted, "dump:PUB.big", "dump", "PUB.big"), progress,
		queued(20, "load:PUB.big", "load", "PUB.big", 400), queued(25, "load:PUB.big:2", "load", "PUB.big", 350),
		// A load that went through, then was undone by a repair.
		jobEvent(12, event.JobStarted, "load:PUB.a", "load", "PUB.a"), jobEvent(13, event.JobFinished, "load:PUB.a", "load", "PUB.a"),
		jobEvent(14, event.JobRetry, "load:PUB.a", "load", "PUB.a"),
		// The tuner raised the dumps twice (oedl run --tune): the last holds.
		{V: 1, Time: at(15), Kind: event.TuneKind, Tune: &event.Tune{Slot: "dump", From: 2, To: 3, Reason: "waiting"}},
		{V: 1, Time: at(18), Kind: event.TuneKind, Tune: &event.Tune{Slot: "dump", From: 3, To: 4, Reason: "waiting"}},
	} {
		tr.Emit(e)
	}
	left := tr.Left(at(40))
	assert.Equal(t, map[string]int{"dump": 4}, left.Slots, "the forecasts queue the work left through the tuned limits")
	assert.Equal(t, map[string]bool{"preflight": true, "dump:PUB.a": true}, left.Done)
	assert.Equal(t, map[string]estimate.Running{"dump:PUB.big": {Elapsed: 30 * time.Second, Fraction: 0.25, ProgressAt: 20 * time.Second}},
		left.Running, "its 25 %% reported 20 s after it started, 30 s before now")
	assert.Equal(t, []estimate.Finished{{Job: "dump:PUB.a", Start: at(10), Elapsed: 2 * time.Second}}, left.Finished)
	assert.ElementsMatch(t, []estimate.Section{
		{Table: "PUB.a", Section: 1, Records: 1, Bytes: 100},
		{Table: "PUB.big", Section: 1, Records: 4, Bytes: 400},
		{Table: "PUB.big", Section: 2, Records: 3, Bytes: 350},
	}, left.Sections)
}

func TestSectionOf(t *testing.T) {
	for id, want := range map[string]int{"load:PUB.t": 1, "load:PUB.t:2": 2, "load:PUB.t:12": 12, "load:PUB.odd:name": 1} {
		assert.Equal(t, want, sectionOf(id), id)
	}
}

func testLive(t *testing.T) *estimate.Live {
	l, _ := liveOf(t, 50e6, 5e6, 1e6)
	return l
}

// liveOf is the live estimate of a run of tables of these sizes, and the
// estimate it started from.
func liveOf(t *testing.T, sizes ...int64) (*estimate.Live, *estimate.Estimate) {
	t.Helper()
	p := &plan.Plan{Version: plan.PlanVersion}
	for i, size := range sizes {
		p.Tables = append(p.Tables, plan.Placement{Table: fmt.Sprintf("PUB.t%d", i), Records: size / 100, Bytes: size, DataArea: "a"})
	}
	hw := estimate.Hardware{Cores: 2, DiskMBps: 100, DiskIOPS: 2000}
	in := estimate.Input{Plan: p, Hardware: hw, Strategy: estimate.Strategy{DumpJobs: 2, LoadJobs: 2, LoadsPerArea: 1}}
	est, err := estimate.Run(context.Background(), in)
	require.NoError(t, err)
	l, err := estimate.NewLive(in, est)
	require.NoError(t, err)
	return l, est
}

// A forecast goes to the run's sinks and to the file status reads, the
// same event; Run makes the first when the queue starts a job, and stops
// with its context.
func TestForecastGoesToTheSinksAndTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "eta.json")
	got := make(chan event.Event, 8)
	tr := New(Config{Live: testLive(t), Out: event.SinkFunc(func(e event.Event) { got <- e }), Path: path,
		Samples: 4, MinInterval: time.Hour, Now: func() time.Time { return at(3) }})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tr.Run(ctx)
	}()
	select {
	case e := <-got:
		t.Fatalf("a forecast before any job started: %+v", e)
	default:
	}
	tr.Emit(jobEvent(1, event.JobSkipped, "preflight", "preflight", ""))
	tr.Emit(jobEvent(2, event.JobStarted, "serve:source", "serve", ""))
	e := <-got
	cancel()
	<-done
	assert.Equal(t, event.ETAKind, e.Kind)
	require.NotNil(t, e.ETA)
	assert.Positive(t, e.ETA.Remaining)
	assert.Equal(t, at(3).Add(e.ETA.Remaining), e.ETA.Finish)
	assert.LessOrEqual(t, e.ETA.P50, e.ETA.P90)
	assert.Equal(t, 4, e.ETA.Samples)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var file event.Event
	require.NoError(t, json.Unmarshal(data, &file))
	assert.Equal(t, e.ETA.Finish, file.ETA.Finish, "status reads what the screen got")
	assert.Equal(t, e.ETA.P90, file.ETA.P90)
}

// The trend compares a forecast's finish with the one made about 30 s
// before: the same for the screen and status, since it travels in the
// event.
func TestTrend(t *testing.T) {
	tr := New(Config{Out: event.SinkFunc(func(event.Event) {})})
	finish := func(sec float64) time.Time { return at(sec) }
	for _, c := range []struct {
		at, finish float64
		want       string
	}{
		{0, 600, ""}, {10, 600, ""}, {29, 605, ""},
		{30, 605, "steady"},  // 5 s later than at 0: within 10 s
		{40, 640, "rising"},  // 40 s later than at 10
		{70, 560, "falling"}, // 80 s sooner than at 40
		{100, 562, "steady"}, // against 70's 560
	} {
		assert.Equal(t, c.want, tr.trend(at(c.at), finish(c.finish)), "at %v", c.at)
	}
}

// The first job of a kind to end is evidence the last forecast did not
// have: the tracker wakes Run for it, once per kind.
func TestFirstOfAKindWakesTheForecasts(t *testing.T) {
	tr := New(Config{Out: event.SinkFunc(func(event.Event) {})})
	finished := func(sec float64, id, kind string) event.Event {
		e := jobEvent(sec, event.JobFinished, id, kind, "")
		e.Elapsed = time.Second
		return e
	}
	woken := func() bool {
		select {
		case <-tr.wake:
			return true
		default:
			return false
		}
	}
	for _, step := range []struct {
		e    event.Event
		wake bool
	}{
		{jobEvent(1, event.JobStarted, "dump:PUB.a", "dump", "PUB.a"), false},
		{finished(2, "dump:PUB.a", "dump"), true},
		{finished(3, "dump:PUB.b", "dump"), false},
		{finished(4, "load:PUB.a", "load"), true},
		{finished(5, "load:PUB.b", "load"), false},
		{finished(6, "idxbuild", "idxbuild"), true},
	} {
		tr.Emit(step.e)
		assert.Equal(t, step.wake, woken(), "%s %s", step.e.Kind, step.e.Job)
	}
}

// Run forecasts again when woken, though the budget's wait is long.
func TestRunForecastsAgainOnNewEvidence(t *testing.T) {
	got := make(chan event.Event, 8)
	tr := New(Config{Live: testLive(t), Out: event.SinkFunc(func(e event.Event) { got <- e }),
		MinInterval: time.Millisecond, Budget: 1e-12})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		tr.Run(ctx)
	}()
	next := func(what string) {
		select {
		case <-got:
		case <-time.After(time.Minute): // a guard, not a measure: without the wake-up it waits for ever
			t.Fatalf("no forecast %s", what)
		}
	}
	tr.Emit(jobEvent(1, event.JobStarted, "dump:PUB.t0", "dump", "PUB.t0"))
	next("when the first job started")
	e := jobEvent(2, event.JobFinished, "dump:PUB.t0", "dump", "PUB.t0")
	e.Elapsed = time.Second
	tr.Emit(e)
	next("when the first dump ended")
	cancel()
	<-done
}
