package tui

import (
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
	assert.Equal(t, Progress{Kind: "dump", Tables: 2, TablesDone: 1, Bytes: 3000, BytesDone: 1000}, p[0])
	assert.Equal(t, Progress{Kind: "load", Tables: 2, TablesDone: 0, Bytes: 3000, BytesDone: 0}, p[1])
	assert.Equal(t, Progress{Kind: "idxbuild", Bytes: 3000}, p[2])
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
	assert.Equal(t, Counts{Failed: 1, Skipped: 1}, s.Counts())
	require.Len(t, s.Failures(), 1)
	assert.Equal(t, Failure{Time: at(5), Job: "load:PUB.a", Table: "PUB.a", Attempt: 1, Err: "exit status 1", Log: "/work/logs/load_PUB.a.1.log"}, s.Failures()[0])
	assert.Equal(t, 1, s.Progress()[0].TablesDone, "a skipped dump counts as done")

	apply(s, retry)
	assert.Equal(t, Counts{Queued: 1, Skipped: 1}, s.Counts())
	apply(s, ev(7, event.JobStarted, "load:PUB.a", "load", "PUB.a"), ev(9, event.JobFinished, "load:PUB.a", "load", "PUB.a"))
	assert.Equal(t, Counts{Done: 1, Skipped: 1}, s.Counts())
	assert.Len(t, s.Failures(), 1, "the failure stays in the picture after a successful retry")

	for i := range 8 {
		e := ev(10+float64(i), event.JobFailed, "load:PUB.x", "load", "PUB.x")
		e.Attempt = i + 1
		s.Apply(ev(10+float64(i), event.JobStarted, "load:PUB.x", "load", "PUB.x"))
		s.Apply(e)
	}
	assert.Len(t, s.Failures(), keepFailures)
	assert.Equal(t, 8, s.Failures()[keepFailures-1].Attempt, "the newest failures are kept")
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

func TestETANeedsEvidenceThenFollowsThroughput(t *testing.T) {
	const total = 100_000
	s := apply(NewState(), event.Event{Time: at(0), Kind: event.RunStarted, TotalBytes: total / 2})
	q := ev(0, event.JobQueued, "dump:PUB.a", "dump", "PUB.a")
	q.TotalBytes = total / 2
	apply(s, q, ev(0, event.JobStarted, "dump:PUB.a", "dump", "PUB.a"))
	progress := func(sec float64, b int64) {
		e := ev(sec, event.JobProgress, "dump:PUB.a", "dump", "PUB.a")
		e.Bytes = b
		s.Apply(e)
	}
	progress(5, 5000)
	assert.False(t, s.ETA().Known, "too early")
	assert.Equal(t, "gathering evidence", s.ETA().Reason)

	// 1000 B/s for 60 s: 60,000 of 100,000 bytes (the dump's 50,000 count
	// toward dump, the load total is the plan's 50,000) ... the job is
	// capped at its total, so feed it up to its size.
	for sec := 6; sec <= 40; sec++ {
		progress(float64(sec), int64(sec)*1000)
	}
	eta := s.ETA()
	require.True(t, eta.Known)
	assert.InDelta(t, 1000, eta.Rate, 1)
	// 60,000 left at 1,000 B/s; the job itself has 10,000 left at its rate.
	assert.Equal(t, 60*time.Second, eta.Remaining)
	assert.Equal(t, at(40).Add(60*time.Second), eta.Finish)
	assert.Equal(t, TrendSteady, eta.Trend)

	// Throughput halves: the finish moves later.
	for sec := 41; sec <= 80; sec++ {
		progress(float64(sec), 40000+int64(sec-40)*250)
	}
	eta = s.ETA()
	require.True(t, eta.Known)
	assert.Equal(t, TrendRising, eta.Trend)
	assert.Greater(t, eta.Remaining, 60*time.Second)
}

func TestETABoundByTheLongestJob(t *testing.T) {
	s := apply(NewState(), event.Event{Time: at(0), Kind: event.RunStarted})
	for _, id := range []string{"dump:PUB.big", "dump:PUB.small"} {
		q := ev(0, event.JobQueued, id, "dump", id[5:])
		q.TotalBytes = map[string]int64{"dump:PUB.big": 1_000_000, "dump:PUB.small": 1_000_000}[id]
		apply(s, q, ev(0, event.JobStarted, id, "dump", id[5:]))
	}
	for sec := 1; sec <= 30; sec++ {
		big := ev(float64(sec), event.JobProgress, "dump:PUB.big", "dump", "PUB.big")
		big.Bytes = int64(sec) * 1000 // slow: 1,000 B/s
		small := ev(float64(sec), event.JobProgress, "dump:PUB.small", "dump", "PUB.small")
		small.Bytes = min(int64(sec)*100_000, 1_000_000) // fast, soon done
		apply(s, big, small)
	}
	eta := s.ETA()
	require.True(t, eta.Known)
	assert.Equal(t, "dump:PUB.big", eta.BoundBy)
	assert.Equal(t, 970*time.Second, eta.Remaining, "970,000 bytes left at the big dump's own 1,000 B/s")
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
