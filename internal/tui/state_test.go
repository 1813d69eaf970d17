package tui

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/schedule"
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

	// One dump at 1,000 B/s for 40 s: 40,000 of the dump's 50,000 bytes;
	// the loads have not started and borrow the dump's rate.
	for sec := 6; sec <= 40; sec++ {
		progress(float64(sec), int64(sec)*1000)
	}
	eta := s.ETA()
	require.True(t, eta.Known)
	assert.InDelta(t, 1000, eta.Rate, 1)
	// The table's chain: 10,000 bytes of dump left, then its 50,000-byte
	// load at the same rate: 60 s, longer than either stage alone (50 s).
	assert.Equal(t, 60*time.Second, eta.Remaining)
	assert.Equal(t, "PUB.a", eta.BoundBy)
	assert.Equal(t, at(40).Add(60*time.Second), eta.Finish)
	assert.Equal(t, TrendUnknown, eta.Trend, "no prediction 30 s old yet")

	for sec := 41; sec <= 49; sec++ {
		progress(float64(sec), int64(sec)*1000)
	}
	progress(49.5, 49500)
	assert.Equal(t, TrendUnknown, s.ETA().Trend, "the first prediction was made at 20 s")
	progress(50, 49900)
	assert.Equal(t, TrendSteady, s.ETA().Trend, "the same finish as 30 s ago")

	// The dump crawls for its last bytes: the finish moves later.
	for sec := 51; sec <= 90; sec++ {
		progress(float64(sec), 49900+int64(sec-50)*2)
	}
	eta = s.ETA()
	require.True(t, eta.Known)
	assert.Equal(t, TrendRising, eta.Trend)
	assert.Greater(t, eta.Remaining, 60*time.Second)
}

func TestETABoundByTheLongestTable(t *testing.T) {
	s := apply(NewState(), event.Event{Time: at(0), Kind: event.RunStarted})
	for _, id := range []string{"dump:PUB.big", "dump:PUB.small"} {
		q := ev(0, event.JobQueued, id, "dump", id[5:])
		q.TotalBytes = 1_000_000
		apply(s, q, ev(0, event.JobStarted, id, "dump", id[5:]))
	}
	for sec := 1; sec <= 30; sec++ {
		big := ev(float64(sec), event.JobProgress, "dump:PUB.big", "dump", "PUB.big")
		big.Bytes = int64(sec) * 1000 // slow: 1,000 B/s
		apply(s, big)
		if sec <= 10 {
			small := ev(float64(sec), event.JobProgress, "dump:PUB.small", "dump", "PUB.small")
			small.Bytes = int64(sec) * 100_000 // fast: done in 10 s
			apply(s, small)
		}
		if sec == 10 {
			apply(s, ev(10, event.JobFinished, "dump:PUB.small", "dump", "PUB.small"))
		}
	}
	eta := s.ETA()
	require.True(t, eta.Known)
	assert.Equal(t, "PUB.big", eta.BoundBy)
	// 970,000 bytes of dump left at the big dump's own 1,000 B/s, then its
	// load at the 100,000 B/s one dump job showed (loads borrow it): 970 s +
	// 10 s.
	assert.Equal(t, 980*time.Second, eta.Remaining)
}

func TestETACountsDownASilentIdxbuild(t *testing.T) {
	s := apply(NewState(), event.Event{Time: at(0), Kind: event.RunStarted, TotalBytes: 100_000})
	for _, k := range []string{"dump", "load"} {
		q := ev(0, event.JobQueued, k+":PUB.a", k, "PUB.a")
		q.TotalBytes = 100_000
		apply(s, q)
	}
	iq := ev(0, event.JobQueued, "idxbuild", "idxbuild", "")
	iq.TotalBytes = 100_000
	apply(s, iq,
		ev(0, event.JobStarted, "dump:PUB.a", "dump", "PUB.a"), ev(50, event.JobFinished, "dump:PUB.a", "dump", "PUB.a"),
		ev(50, event.JobStarted, "load:PUB.a", "load", "PUB.a"), ev(100, event.JobFinished, "load:PUB.a", "load", "PUB.a"),
		ev(100, event.JobStarted, "idxbuild", "idxbuild", ""))
	// Loads went at 2,000 B/s per busy second: idxbuild of 100,000 bytes
	// is expected to take 50 s, and counts down while it says nothing.
	for _, c := range []struct {
		at      float64
		left    time.Duration
		overdue bool
	}{{110, 40 * time.Second, false}, {140, 10 * time.Second, false}, {200, 10 * time.Second, true}} {
		s.Advance(at(c.at))
		eta := s.ETA()
		require.True(t, eta.Known, "at %v", c.at)
		assert.Equal(t, c.left, eta.Remaining, "at %v", c.at)
		assert.Equal(t, c.overdue, eta.Overdue, "at %v", c.at)
		assert.Equal(t, 50*time.Second, eta.IdxbuildExpected)
	}
	var buf bytes.Buffer
	require.NoError(t, RenderStatus(&buf, s, 100))
	assert.Contains(t, buf.String(), "running 1m40s, expected about 50s", "the idxbuild bar says how long it has run")
	assert.Contains(t, buf.String(), "ETA unknown: the index rebuild is running longer than predicted")
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

func TestETATakesTheIdxbuildDurationFromTheCostModel(t *testing.T) {
	s := apply(NewState(), event.Event{Time: at(0), Kind: event.RunStarted, TotalBytes: 100_000})
	s.SetCost(func(j *schedule.Job) time.Duration {
		require.Equal(t, schedule.KindIdxbuild, j.Kind)
		require.Equal(t, int64(100_000), j.Bytes)
		return 5 * time.Minute
	})
	for _, k := range []string{"dump", "load"} {
		q := ev(0, event.JobQueued, k+":PUB.a", k, "PUB.a")
		q.TotalBytes = 100_000
		apply(s, q)
	}
	apply(s, ev(0, event.JobQueued, "idxbuild", "idxbuild", ""),
		ev(0, event.JobStarted, "dump:PUB.a", "dump", "PUB.a"), ev(50, event.JobFinished, "dump:PUB.a", "dump", "PUB.a"),
		ev(50, event.JobStarted, "load:PUB.a", "load", "PUB.a"), ev(100, event.JobFinished, "load:PUB.a", "load", "PUB.a"),
		ev(100, event.JobStarted, "idxbuild", "idxbuild", ""))
	s.Advance(at(160))
	eta := s.ETA()
	require.True(t, eta.Known)
	assert.Equal(t, 4*time.Minute, eta.Remaining, "the model's 5 minutes, one of them gone")
}
