package tui

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/event"
)

func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

func ev(s float64, k event.Kind, job, kind, table string) event.Event {
	return event.Event{V: 1, Time: at(s), Kind: k, Job: job, JobKind: kind, Table: table}
}

func apply(s *State, es ...event.Event) *State {
	for _, e := range es {
		s.Apply(e)
	}
	return s
}

func TestStateCountsAndProgress(t *testing.T) {
	q := func(s float64, job, kind, table string, bytes int64) event.Event {
		e := ev(s, event.JobQueued, job, kind, table)
		e.TotalBytes, e.TotalRecords = bytes, bytes/100
		return e
	}
	prog := func(s float64, job string, bytes int64) event.Event {
		e := ev(s, event.JobProgress, job, "dump", "PUB.a")
		e.Bytes, e.Records = bytes, bytes/100
		return e
	}
	s := apply(NewState(),
		event.Event{Time: at(0), Kind: event.RunStarted, TotalBytes: 3000},
		q(0, "dump:PUB.a", "dump", "PUB.a", 1000),
		q(0, "dump:PUB.b", "dump", "PUB.b", 2000),
		q(0, "load:PUB.a", "load", "PUB.a", 1000),
		q(0, "load:PUB.b", "load", "PUB.b", 2000),
		q(0, "idxbuild", "idxbuild", "", 3000),
		ev(1, event.JobStarted, "dump:PUB.a", "dump", "PUB.a"),
		ev(1, event.JobStarted, "dump:PUB.b", "dump", "PUB.b"),
		prog(3, "dump:PUB.a", 400),
		prog(5, "dump:PUB.a", 800),
		ev(6, event.JobFinished, "dump:PUB.a", "dump", "PUB.a"),
		ev(6, event.JobStarted, "load:PUB.a", "load", "PUB.a"),
	)
	assert.Equal(t, Counts{Done: 1, Running: 2, Queued: 2}, s.Counts())
	assert.Equal(t, 6*time.Second, s.Elapsed())
	p := s.Progress()
	require.Len(t, p, 3)
	assert.Equal(t, Progress{Kind: "dump", Tables: 2, TablesDone: 1, Jobs: 2, JobsDone: 1, Bytes: 3000, BytesDone: 1000}, p[0])
	assert.Equal(t, Progress{Kind: "load", Tables: 2, TablesDone: 0, Jobs: 2, Bytes: 3000, BytesDone: 0}, p[1])
	assert.Equal(t, Progress{Kind: "idxbuild", Jobs: 1, Bytes: 3000}, p[2])
	assert.InDelta(t, 1000.0/9000, s.Overall(), 1e-9)

	a, ok := s.Job("dump:PUB.a")
	require.True(t, ok)
	assert.Equal(t, StatusDone, a.Status)
	assert.Equal(t, int64(1000), a.Bytes, "a finished job counts its planned size")
	assert.Equal(t, 5*time.Second, a.Elapsed)

	run := s.Running()
	require.Len(t, run, 2)
	assert.Equal(t, "dump:PUB.b", run[0].ID, "longest running first")
	assert.Equal(t, "dump+load", s.CurrentPhase(), "derived from the running jobs when no phase event came")

	apply(s, event.Event{Time: at(7), Kind: event.Phase, Phase: "dump/load"})
	assert.Equal(t, "dump/load", s.CurrentPhase())
}

func TestStateProgressRateAndReorder(t *testing.T) {
	s := apply(NewState(), ev(0, event.JobStarted, "dump:PUB.a", "dump", "PUB.a"))
	for i, b := range []int64{100, 200, 300, 250} { // the last one is late and stale
		e := ev(float64(i+1), event.JobProgress, "dump:PUB.a", "dump", "PUB.a")
		e.Bytes = b
		s.Apply(e)
	}
	j, _ := s.Job("dump:PUB.a")
	assert.Equal(t, int64(300), j.Bytes)
	assert.InDelta(t, 100, j.Rate, 1e-9)
}

func TestStateFailureRetryAndSkip(t *testing.T) {
	fail := ev(5, event.JobFailed, "load:PUB.a", "load", "PUB.a")
	fail.Err, fail.Attempt = "exit status 1", 1
	failWithLog := fail
	failWithLog.Log = "/work/logs/load_PUB.a.1.log"
	retry := ev(6, event.JobRetry, "load:PUB.a", "load", "PUB.a")
	retry.Attempt = 2
	s := apply(NewState(),
		ev(0, event.JobSkipped, "dump:PUB.a", "dump", "PUB.a"),
		ev(1, event.JobStarted, "load:PUB.a", "load", "PUB.a"),
		fail, failWithLog, // the dispatcher and the runner both report it
	)
	assert.Equal(t, Counts{Failed: 1, FailedTables: 1, Skipped: 1}, s.Counts())
	require.Len(t, s.Failures(), 1)
	assert.Equal(t, Failure{Time: at(5), Job: "load:PUB.a", Kind: "load", Table: "PUB.a", Attempt: 1, Err: "exit status 1", Log: "/work/logs/load_PUB.a.1.log"}, s.Failures()[0])
	assert.Equal(t, 1, s.Progress()[0].TablesDone, "a skipped dump counts as done")

	apply(s, retry)
	assert.Equal(t, Counts{Queued: 1, Skipped: 1}, s.Counts())
	apply(s, ev(7, event.JobStarted, "load:PUB.a", "load", "PUB.a"), ev(9, event.JobFinished, "load:PUB.a", "load", "PUB.a"))
	assert.Equal(t, Counts{Done: 1, Skipped: 1, Recovered: 1}, s.Counts(), "a table that recovered is not failed")
	require.Len(t, s.Failures(), 1, "the failure stays in the picture after a successful retry")
	assert.True(t, s.Failures()[0].Recovered, "marked recovered")

	for i := range 8 {
		e := ev(10+float64(i), event.JobFailed, "load:PUB.x", "load", "PUB.x")
		e.Attempt = i + 1
		s.Apply(ev(10+float64(i), event.JobStarted, "load:PUB.x", "load", "PUB.x"))
		s.Apply(e)
	}
	assert.Len(t, s.Failures(), keepFailures)
	assert.Equal(t, 8, s.Failures()[keepFailures-1].Attempt, "the newest failures are kept")
}

// A failure another attempt follows is not the job's end: the job waits
// for its retry, counted queued, not failed; three failed attempts of one
// load are one failed table.
func TestStateRetryingFailureIsNotAFailedJob(t *testing.T) {
	s := NewState()
	for i := range 3 {
		a := float64(i * 10)
		start := ev(a, event.JobStarted, "load:PUB.pt_mstr", "load", "PUB.pt_mstr")
		start.Attempt = i + 1
		fail := ev(a+1, event.JobFailed, "load:PUB.pt_mstr", "load", "PUB.pt_mstr")
		fail.Attempt, fail.Err, fail.Reason, fail.Retrying = i+1, "proutil load was killed by signal 9 (SIGKILL)", event.ReasonSignal, i < 2
		apply(s, start, fail)
		if i < 2 {
			assert.Equal(t, Counts{Queued: 1}, s.Counts(), "attempt %d: waits for its retry", i+1)
			retry := ev(a+2, event.JobRetry, "load:PUB.pt_mstr", "load", "PUB.pt_mstr")
			retry.Attempt = i + 2
			apply(s, retry)
		}
	}
	assert.Equal(t, Counts{Failed: 1, FailedTables: 1}, s.Counts(), "one table failed, after three tries")
	require.Len(t, s.Failures(), 3)
	assert.True(t, s.Failures()[0].Retrying)
	assert.False(t, s.Failures()[2].Retrying)
	assert.Equal(t, event.ReasonSignal, s.Failures()[2].Reason)

	apply(s, ev(40, event.JobStarted, "load:PUB.b", "load", "PUB.b"), ev(41, event.JobCancelled, "load:PUB.b", "load", "PUB.b"))
	assert.Equal(t, 1, s.Counts().Cancelled, "a cancel is a cancel")
	assert.Equal(t, 1, s.Counts().Failed, "not a failure")
	assert.Len(t, s.Failures(), 3)
}

// A running dump whose figures do not move for StallAfter is flagged
// stalled while it runs, and no longer once they move.
func TestStateFlagsAStalledJob(t *testing.T) {
	s := NewState()
	start := ev(0, event.JobStarted, "dump:PUB.tr_hist", "dump", "PUB.tr_hist")
	start.TotalBytes = 10 << 20
	p := ev(1, event.JobProgress, "dump:PUB.tr_hist", "dump", "PUB.tr_hist")
	p.Bytes = 1 << 20
	apply(s, start, p)
	for sec := 2.0; sec <= 20; sec++ {
		same := ev(sec, event.JobProgress, "dump:PUB.tr_hist", "dump", "PUB.tr_hist")
		same.Bytes = 1 << 20
		s.Apply(same)
	}
	assert.Zero(t, s.Counts().Stalled, "19 s without progress is not a stall yet")
	s.Advance(at(21))
	assert.Equal(t, 1, s.Counts().Stalled)
	assert.Equal(t, 20*time.Second, s.Running()[0].Stalled)
	moved := ev(22, event.JobProgress, "dump:PUB.tr_hist", "dump", "PUB.tr_hist")
	moved.Bytes = 2 << 20
	s.Apply(moved)
	assert.Zero(t, s.Counts().Stalled, "it moved again")

	idx := ev(22, event.JobStarted, "idxbuild", "idxbuild", "")
	s.Apply(idx)
	s.Advance(at(100))
	for _, j := range s.Running() {
		if j.Kind == "idxbuild" {
			assert.Zero(t, j.Stalled, "idxbuild prints nothing while it works: silence says nothing")
		}
	}
}

// Why work waits: loads held back by their area's cap, by the load slots,
// by their dump; dumps by the dump slots; each with the flag that changes it.
func TestStateSaysWhyWorkWaits(t *testing.T) {
	started := ev(0, event.RunStarted, "", "", "")
	started.Settings = map[string]int64{"dump_jobs": 1, "load_jobs": 2, "loads_per_area": 1}
	s := apply(NewState(), started,
		ev(0, event.JobStarted, "dump:PUB.big", "dump", "PUB.big"),
		ev(0, event.JobQueued, "dump:PUB.c", "dump", "PUB.c"),
		ev(0, event.JobQueued, "dump:PUB.d", "dump", "PUB.d"))
	for _, table := range []string{"PUB.a1", "PUB.a2", "PUB.a3"} {
		apply(s, ev(0, event.JobSkipped, "dump:"+table, "dump", table))
		q := ev(0, event.JobQueued, "load:"+table, "load", table)
		q.Area = "Small64_Data"
		s.Apply(q)
	}
	running := ev(1, event.JobStarted, "load:PUB.a1", "load", "PUB.a1")
	running.Area = "Small64_Data"
	wait := ev(1, event.JobQueued, "load:PUB.big", "load", "PUB.big")
	wait.Area = "big_Data"
	apply(s, running, wait)
	got := s.Waiting()
	require.Len(t, got, 3)
	assert.Equal(t, "2 waiting for a dump slot (1 at a time; --dump-jobs)", got[0].String())
	assert.Equal(t, "2 waiting for area Small64_Data (1 load per area; --loads-per-area)", got[1].String())
	assert.Equal(t, "1 waiting for their table's dump", got[2].String())
}

func TestStateSectionLoadsReopenATable(t *testing.T) {
	s := apply(NewState(),
		ev(0, event.JobStarted, "load:PUB.big", "load", "PUB.big"),
		ev(1, event.JobFinished, "load:PUB.big", "load", "PUB.big"))
	assert.Equal(t, 1, s.Progress()[1].TablesDone)
	apply(s, ev(2, event.JobQueued, "load:PUB.big:2", "load", "PUB.big"))
	assert.Equal(t, 0, s.Progress()[1].TablesDone, "a new section makes the table undone again")
	apply(s, ev(3, event.JobStarted, "load:PUB.big:2", "load", "PUB.big"), ev(4, event.JobFinished, "load:PUB.big:2", "load", "PUB.big"))
	assert.Equal(t, 1, s.Progress()[1].TablesDone)
	assert.Equal(t, 1, s.Progress()[1].Tables)
}

func TestStateRunFinished(t *testing.T) {
	s := apply(NewState(), event.Event{Time: at(0), Kind: event.RunStarted}, event.Event{Time: at(90), Kind: event.RunFinished, Err: "1 job failed"})
	assert.True(t, s.Finished)
	assert.Equal(t, "failed", s.CurrentPhase())
	assert.False(t, s.ETA().Known)
}

// A run that resumes in place starts again without finishing: the clock
// runs on from the first start; after a finished run a new one restarts it.
func TestStateRunResumedInPlaceKeepsItsStart(t *testing.T) {
	s := apply(NewState(), event.Event{Time: at(0), Kind: event.RunStarted}, event.Event{Time: at(40), Kind: event.RunStarted, Message: "resumed"})
	assert.Equal(t, at(0), s.Started)
	s = apply(s, event.Event{Time: at(90), Kind: event.RunFinished}, event.Event{Time: at(100), Kind: event.RunStarted})
	assert.Equal(t, at(100), s.Started)
	assert.False(t, s.Finished)
}

// etaAt is the run's live estimate made at sec: left to go, with a range.
func etaAt(sec float64, left, p50, p90 time.Duration) event.Event {
	return event.Event{Time: at(sec), Kind: event.ETAKind, ETA: &event.ETA{Remaining: left, P50: p50, P90: p90, Finish: at(sec).Add(left)}}
}

// The ETA is the run's own estimate of what is left (the latest eta
// event), counted down between two; the estimate before the run stays.
func TestETAIsTheRunsEstimateCountedDown(t *testing.T) {
	s := apply(NewState(), event.Event{Time: at(0), Kind: event.RunStarted,
		Estimate: &event.Estimate{Window: 10 * time.Minute, P50: 10 * time.Minute, P90: 12 * time.Minute}})
	eta := s.ETA()
	assert.False(t, eta.Known)
	assert.Equal(t, "no estimate yet", eta.Reason)
	assert.Equal(t, 10*time.Minute, eta.Before)

	apply(s, etaAt(10, 100*time.Second, 95*time.Second, 130*time.Second))
	s.Advance(at(25))
	eta = s.ETA()
	require.True(t, eta.Known)
	assert.Equal(t, 85*time.Second, eta.Remaining)
	assert.Equal(t, 80*time.Second, eta.P50)
	assert.Equal(t, 115*time.Second, eta.P90)
	assert.Equal(t, at(110), eta.Finish)
	assert.Equal(t, at(10), eta.At)
	assert.Equal(t, 10*time.Minute, eta.Before)
	assert.Equal(t, TrendUnknown, eta.Trend)

	// The next estimate replaces it, with its trend.
	e := etaAt(40, 75*time.Second, 75*time.Second, 90*time.Second)
	e.ETA.Trend = "rising"
	apply(s, e)
	assert.Equal(t, 75*time.Second, s.ETA().Remaining)
	assert.Equal(t, TrendRising, s.ETA().Trend)
	apply(s, etaAt(110, 10*time.Second, 10*time.Second, 20*time.Second))
	s.Advance(at(125))
	assert.Zero(t, s.ETA().Remaining, "counted down to nothing, not below")

	apply(s, event.Event{Time: at(130), Kind: event.RunFinished, Status: event.StatusVerified})
	assert.False(t, s.ETA().Known, "a finished run has nothing left")
}

// A resume's estimates are its own: the killed invocation's last ETA does
// not count down into the next one.
func TestETAOfAnInvocation(t *testing.T) {
	s := apply(NewState(), event.Event{Time: at(0), Kind: event.RunStarted}, etaAt(10, time.Hour, time.Hour, time.Hour))
	require.True(t, s.ETA().Known)
	apply(s, event.Event{Time: at(20), Kind: event.RunStarted, Attempt: 2})
	assert.False(t, s.ETA().Known)
}

func TestETAOfAnOverdueIdxbuild(t *testing.T) {
	s := apply(NewState(), event.Event{Time: at(0), Kind: event.RunStarted, TotalBytes: 100_000},
		ev(0, event.JobQueued, "idxbuild", "idxbuild", ""), ev(100, event.JobStarted, "idxbuild", "idxbuild", ""))
	e := etaAt(120, 30*time.Second, 30*time.Second, 40*time.Second)
	e.ETA.IdxbuildExpected = 50 * time.Second
	apply(s, e)
	var buf bytes.Buffer
	require.NoError(t, RenderStatus(&buf, s, 100))
	assert.Contains(t, buf.String(), "running 20s, expected about 50s", "the idxbuild bar says how long it has run")
	assert.Contains(t, buf.String(), "ETA 30s (P90 40s)")

	e = etaAt(200, 10*time.Second, 10*time.Second, 10*time.Second)
	e.ETA.Overdue, e.ETA.IdxbuildExpected = "idxbuild", 50*time.Second
	apply(s, e)
	assert.True(t, s.ETA().Overdue)
	buf.Reset()
	require.NoError(t, RenderStatus(&buf, s, 100))
	assert.Contains(t, buf.String(), "ETA unknown: the index rebuild is running longer than predicted")
}

// TestETAOfAnOverdueJobNamesIt: jobs other than the index rebuild report
// nothing until they end too (tabanalys, a batch of loads); overdue during
// the dumps, the screen names the one that is, not the index rebuild,
// which has not started.
func TestETAOfAnOverdueJobNamesIt(t *testing.T) {
	tests := []struct {
		job, want string
	}{
		{"idxbuild", "ETA unknown: the index rebuild is running longer than predicted"},
		{"analyze-source", "ETA unknown: analyze-source is running longer than predicted"},
		{"load-batch:Small32_Data:1", "ETA unknown: load-batch:Small32_Data:1 is running longer than predicted"},
	}
	for _, tt := range tests {
		t.Run(tt.job, func(t *testing.T) {
			s := apply(NewState(), event.Event{Time: at(0), Kind: event.RunStarted, TotalBytes: 100_000})
			e := etaAt(100, 10*time.Second, 10*time.Second, 10*time.Second)
			e.ETA.Overdue = tt.job
			apply(s, e)
			var buf bytes.Buffer
			require.NoError(t, RenderStatus(&buf, s, 200))
			assert.Contains(t, buf.String(), tt.want)
		})
	}
}

func TestSnapshotJSON(t *testing.T) {
	s := apply(NewState(), synthRun(t, 20, "load:PUB.t0003")...)
	b, err := json.Marshal(s)
	require.NoError(t, err)
	var snap Snapshot
	require.NoError(t, json.Unmarshal(b, &snap))
	assert.Equal(t, event.SchemaVersion, snap.V)
	assert.True(t, snap.Finished)
	assert.Contains(t, snap.Err, "load:PUB.t0003")
	assert.Equal(t, 1, snap.Counts.Failed)
	require.Len(t, snap.Failures, 1)
	assert.Equal(t, "load:PUB.t0003", snap.Failures[0].Job)
	assert.Equal(t, 20, snap.Progress[0].TablesDone)
	assert.Equal(t, 19, snap.Progress[1].TablesDone)
	assert.Empty(t, snap.Running)
}

func TestSynthRunEndsComplete(t *testing.T) {
	s := apply(NewState(), synthRun(t, 50)...)
	assert.True(t, s.Finished)
	assert.Empty(t, s.Err)
	c := s.Counts()
	assert.Equal(t, 0, c.Running+c.Queued+c.Failed)
	for _, p := range s.Progress() {
		assert.Equal(t, p.Bytes, p.BytesDone, p.Kind)
		assert.Equal(t, p.Tables, p.TablesDone, p.Kind)
	}
	assert.InDelta(t, 1.0, s.Overall(), 1e-9)
}

func TestFreeSpace(t *testing.T) {
	disks := FreeSpace("work", t.TempDir(), "gone", "/no/such/dir")()
	require.Len(t, disks, 2)
	assert.Equal(t, "work", disks[0].Label)
	assert.Positive(t, disks[0].Free)
	assert.Equal(t, int64(-1), disks[1].Free, "unknown, not an error")
}

func TestStateDoneCountsPlannedSizeAndJobs(t *testing.T) {
	q := ev(0, event.JobQueued, "dump:PUB.a", "dump", "PUB.a")
	q.TotalBytes = 1000
	fin := ev(2, event.JobFinished, "dump:PUB.a", "dump", "PUB.a")
	fin.Bytes = 1180 // the .bd files are larger than the table data
	s := apply(NewState(), q, ev(1, event.JobStarted, "dump:PUB.a", "dump", "PUB.a"), fin,
		ev(3, event.JobStarted, "idxbuild", "idxbuild", ""), ev(4, event.JobFinished, "idxbuild", "idxbuild", ""))
	p := s.Progress()
	assert.Equal(t, int64(1000), p[0].BytesDone, "a bar ends at 100 %")
	assert.Equal(t, 1.0, p[0].Fraction())
	j, _ := s.Job("dump:PUB.a")
	assert.Equal(t, int64(1180), j.Bytes, "the job keeps what it really wrote")
	assert.Equal(t, Progress{Kind: "idxbuild", Jobs: 1, JobsDone: 1}, p[2])
	assert.Equal(t, 1.0, p[2].Fraction(), "with no size known, jobs tell the progress")
}

// A tick that reaches the state before run_started (the screen's first
// redraw raced the event queue) does not move the run's start: the
// event's time wins, and a second run_started (a resume in place) keeps
// the first.
func TestStateStartFromTheEventNotTheTick(t *testing.T) {
	s := NewState()
	s.Advance(at(30))
	s.Apply(event.Event{Time: at(0), Kind: event.RunStarted})
	assert.Equal(t, 30*time.Second, s.Elapsed())
	s.Apply(event.Event{Time: at(40), Kind: event.RunStarted})
	assert.Equal(t, 40*time.Second, s.Elapsed())
}

// TestSnapshotCountsKeysAlwaysThere: every count `oedl status --json`
// documents is in its JSON, 0 included, so that a script's jq reads a
// number, never null for one count and 0 for the next (nu-trial9:
// cancelled, recovered and stalled were left out when 0).
func TestSnapshotCountsKeysAlwaysThere(t *testing.T) {
	b, err := json.Marshal(NewState().Snapshot().Counts)
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, json.Unmarshal(b, &got))
	for _, k := range []string{"done", "running", "queued", "failed", "failed_tables", "skipped", "cancelled", "recovered", "stalled"} {
		assert.Contains(t, got, k)
	}
}

// TestOverallOfEmptyTables: a run whose tables hold no bytes (empty
// tables, a schema-only copy) counts its overall progress by what its
// bars count, tables and jobs: its finished screen said "overall 0%"
// above three bars at 100% (nu-trial10).
func TestOverallOfEmptyTables(t *testing.T) {
	events := synthRun(t, 5)
	for i := range events {
		events[i].Bytes, events[i].TotalBytes = 0, 0
	}
	s := apply(NewState(), events[:len(events)/2]...)
	assert.Greater(t, s.Overall(), 0.0, "half way")
	assert.Less(t, s.Overall(), 1.0, "half way")
	s = apply(s, events[len(events)/2:]...)
	require.True(t, s.Finished)
	assert.InDelta(t, 1.0, s.Overall(), 1e-9)
}
