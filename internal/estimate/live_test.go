package estimate

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/schedule"
)

func liveInput(sizes ...int64) Input {
	hw := Hardware{Cores: 2, DiskMBps: 200, DiskIOPS: 4000, DiskLatencyMs: 1}
	// The dumps beside the target's creation: these tests are about what
	// the evidence teaches the forecast, on the graph they were written
	// for.
	return Input{Plan: testPlan(sizes...), Hardware: hw, Strategy: Strategy{DumpJobs: 4, LoadJobs: 2, LoadsPerArea: 1, DumpsBesideCreate: true}}
}

// erpLike is many small tables and a few large ones.
func erpLike() []int64 {
	sizes := []int64{400e6, 150e6, 60e6}
	for i := range 120 {
		sizes = append(sizes, int64(20e3+i*5e3))
	}
	return sizes
}

func newLive(t *testing.T, in Input) (*Live, *Estimate) {
	t.Helper()
	est, err := Run(context.Background(), in)
	require.NoError(t, err)
	l, err := NewLive(in, est)
	require.NoError(t, err)
	return l, est
}

// cutAt is the estimate's own timeline seen at t: the jobs that ended are
// done (and took stretch times what the estimate said, as evidence), the
// ones under way are running with the share of their time gone as their
// progress.
func cutAt(est *Estimate, t time.Duration, stretch float64) Left {
	return cutRun(est.Result(), t, stretch)
}

// cutRun is cutAt of any simulated run.
func cutRun(res *schedule.Result, t time.Duration, stretch float64) Left {
	left := Left{Now: res.Start.Add(t), Done: map[string]bool{}, Running: map[string]Running{}}
	dumped := map[string]bool{}
	for _, sp := range res.Spans {
		if sp.Job.Kind == schedule.KindDump && sp.End.Sub(res.Start) <= t {
			dumped[sp.Job.Table] = true
		}
	}
	for _, sp := range res.Spans {
		start, end := sp.Start.Sub(res.Start), sp.End.Sub(res.Start)
		id := sp.Job.ID
		// A section is queued when its bracket ends: by the end of its
		// dump at the latest.
		if sp.Job.Kind == schedule.KindLoad && sp.Job.Section > 0 && (start < t || dumped[sp.Job.Table]) {
			left.Sections = append(left.Sections, Section{Table: sp.Job.Table, Section: sp.Job.Section, Records: sp.Job.Records, Bytes: sp.Job.Bytes})
		}
		switch {
		case end <= t:
			left.Done[id] = true
			left.Finished = append(left.Finished, Finished{Job: id, Start: left.Now.Add(-time.Duration(stretch * float64(t-start))),
				Elapsed: time.Duration(stretch * float64(end-start))})
		case start < t:
			r := Running{Elapsed: time.Duration(stretch * float64(t-start))}
			if fineProgress(sp.Job.Kind) {
				r.Fraction = float64(t-start) / float64(end-start)
			}
			left.Running[id] = r
		}
	}
	return left
}

func TestForecastOfNothingDoneIsTheEstimate(t *testing.T) {
	l, est := newLive(t, liveInput(erpLike()...))
	f, err := l.Forecast(context.Background(), Left{}, 0, 1)
	require.NoError(t, err)
	assert.Equal(t, est.Window.D(), f.Remaining)
	assert.Equal(t, f.Remaining, f.P50)
	assert.Equal(t, Identity, Factors{Startup: f.Factors[groupAll].Startup, Work: f.Factors[groupAll].Work})
}

// With a run going exactly as estimated, the forecast at any point of the
// estimate's timeline is what that timeline has left: the left work is the
// same graph, the same queue and the same costs.
func TestForecastAlongTheEstimatesOwnTimeline(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   Input
	}{
		{"erp-like", liveInput(erpLike()...)},
		{"threaded dump", func() Input {
			in := liveInput(400e6, 100e6, 30e6, 1e6)
			in.Strategy.ThreadedDumpMin, in.Strategy.DumpThreads = 64e6, 2
			return in
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, est := newLive(t, tc.in)
			window := est.Window.D()
			for _, share := range []float64{0.25, 0.5, 0.75} {
				at := time.Duration(share * float64(window))
				f, err := l.Forecast(context.Background(), cutAt(est, at, 1), 0, 1)
				require.NoError(t, err)
				assert.InDelta(t, (window - at).Seconds(), f.Remaining.Seconds(), 0.1*(window-at).Seconds()+0.5, "at %.0f%%", 100*share)
				f0 := f.Factors[groupAll]
				assert.InDelta(t, 1, f0.Startup, 0.05, "the run went as the model said")
				assert.InDelta(t, 1, f0.Work, 0.05)
			}
		})
	}
}

// The same cut of a run whose jobs all took twice what the estimate said:
// the forecast of what is left grows towards twice.
func TestForecastFollowsTheEvidence(t *testing.T) {
	l, est := newLive(t, liveInput(erpLike()...))
	at := est.Window.D() / 2
	asPlanned, err := l.Forecast(context.Background(), cutAt(est, at, 1), 0, 1)
	require.NoError(t, err)
	slower, err := l.Forecast(context.Background(), cutAt(est, at, 2), 0, 1)
	require.NoError(t, err)
	assert.Greater(t, slower.Factors[groupAll].Work, 1.6)
	assert.Greater(t, slower.Factors[groupAll].Startup, 1.5)
	ratio := slower.Remaining.Seconds() / asPlanned.Remaining.Seconds()
	assert.Greater(t, ratio, 1.4)
	assert.Less(t, ratio, 2.2)
}

// The jobs under way start first, with the part they have left.
func TestForecastStartsTheRunningJobsFirst(t *testing.T) {
	in := liveInput(400e6, 100e6, 30e6, 1e6)
	in.Strategy.DumpJobs = 1
	l, _ := newLive(t, in)
	left := Left{Done: setupDone(), Running: map[string]Running{"dump:PUB.t2": {Elapsed: time.Second, Fraction: 0.5}}}
	sim := simulateLeft(t, l, left)
	assert.Equal(t, "dump:PUB.t2", sim.starts[0].ID, "the running dump goes first, before the larger tables, though one dump slot")
	for _, sp := range sim.result.Spans {
		assert.False(t, left.Done[sp.Job.ID], "%s is done: not again", sp.Job.ID)
	}
}

// A threaded dump under way has the sections that landed in the graph
// already; it lands the others.
func TestForecastOfAThreadedDumpUnderWay(t *testing.T) {
	in := liveInput(400e6, 100e6, 30e6, 1e6)
	in.Strategy.ThreadedDumpMin, in.Strategy.DumpThreads = 64e6, 2
	l, _ := newLive(t, in)
	left := Left{Done: setupDone(), Running: map[string]Running{"dump:PUB.t0": {Elapsed: 10 * time.Second, Fraction: 0.6}},
		Sections: []Section{{Table: "PUB.t0", Section: 1, Records: 2.5e6, Bytes: 250e6}}}
	sim := simulateLeft(t, l, left)
	sections := map[string]int{}
	for _, sp := range sim.result.Spans {
		if sp.Job.Table == "PUB.t0" && sp.Job.Kind == schedule.KindLoad {
			sections[sp.Job.ID]++
			if sp.Job.Section == 1 {
				assert.Equal(t, int64(250e6), sp.Job.Bytes, "the section as it landed")
			}
		}
	}
	assert.Equal(t, map[string]int{"load:PUB.t0": 1, "load:PUB.t0:2": 1}, sections, "section 1 landed before, section 2 lands now")
}

func setupDone() map[string]bool {
	done := map[string]bool{}
	for _, id := range []string{"preflight", "serve:source", "create-target", "serve:target", "analyze-source", "dump-df", "dump-sequences", "load-sequences"} {
		done[id] = true
	}
	return done
}

func simulateLeft(t *testing.T, l *Live, left Left) *simulation {
	t.Helper()
	lg, err := l.leftGraph(left)
	require.NoError(t, err)
	lw := &liveWork{l: l, lg: lg, fit: fitFactors(false, nil)}
	sim, err := l.in.simulateFrom(context.Background(), l.m, lw.adjust, lg)
	require.NoError(t, err)
	require.NotEmpty(t, sim.starts)
	return sim
}

func TestForecastOfAnOverdueIdxbuild(t *testing.T) {
	l, est := newLive(t, liveInput(300e6, 50e6))
	left, idx := inIdxbuild(est, 0.5)
	require.Positive(t, idx)
	f, err := l.Forecast(context.Background(), left, 0, 1)
	require.NoError(t, err)
	assert.Empty(t, f.Overdue)
	assert.InDelta(t, idx.Seconds(), f.IdxbuildExpected.Seconds(), 0.01*idx.Seconds())
	halfway := f.Remaining

	left, _ = inIdxbuild(est, 3)
	f, err = l.Forecast(context.Background(), left, 0, 1)
	require.NoError(t, err)
	assert.Equal(t, "idxbuild", f.Overdue)
	assert.Less(t, f.Remaining, halfway, "a tenth of the time it ran, not its prediction again")
}

// inIdxbuild is a run in its index rebuild, which has run ran times the
// idx the estimate predicted for it; the steps after it not started.
func inIdxbuild(est *Estimate, ran float64) (left Left, idx time.Duration) {
	left = Left{Done: map[string]bool{}, Running: map[string]Running{}}
	for _, sp := range est.Result().Spans {
		switch sp.Job.Kind {
		case schedule.KindIdxbuild:
			idx = sp.End.Sub(sp.Start)
			left.Running[sp.Job.ID] = Running{Elapsed: time.Duration(ran * float64(idx))}
		case schedule.KindAnalyzeTarget, schedule.KindVerify, schedule.KindPost:
		default:
			left.Done[sp.Job.ID] = true
		}
	}
	return left, idx
}

func TestForecastSaysWhatHoldsTheFinish(t *testing.T) {
	// One big table mid-dump: its dump and load are the finish.
	l, est := newLive(t, liveInput(2e9, 1e6, 1e6, 1e6))
	f, err := l.Forecast(context.Background(), cutAt(est, est.Window.D()/4, 1), 0, 1)
	require.NoError(t, err)
	assert.Equal(t, "PUB.t0", f.BoundBy)
	assert.False(t, f.QueueBound)

	// Hundreds of tiny tables through one load slot: the queue.
	tiny := make([]int64, 300)
	for i := range tiny {
		tiny[i] = 10e3
	}
	in := liveInput(tiny...)
	in.Strategy.LoadJobs = 1
	l, est = newLive(t, in)
	f, err = l.Forecast(context.Background(), cutAt(est, est.Window.D()/4, 1), 0, 1)
	require.NoError(t, err)
	assert.True(t, f.QueueBound)
}

func TestForecastRangeIsReproducible(t *testing.T) {
	l, est := newLive(t, liveInput(erpLike()...))
	left := cutAt(est, est.Window.D()/3, 1.3)
	a, err := l.Forecast(context.Background(), left, 20, 7)
	require.NoError(t, err)
	b, err := l.Forecast(context.Background(), left, 20, 7)
	require.NoError(t, err)
	assert.Equal(t, a, b)
	assert.LessOrEqual(t, a.P50, a.P90)
	assert.Equal(t, 20, a.Samples)
}

// A tuned run (oedl run --tune) raised its dump slots: the work left
// queues through the raised limit, as the run now does, not through the
// run's start. Many small dumps, one slot at the start: more slots overlap
// their start-ups, so the forecast shortens; without the tune it stays.
func TestForecastFollowsTheTunedSlots(t *testing.T) {
	in := liveInput(erpLike()...)
	in.Strategy.DumpJobs, in.Strategy.LoadJobs = 1, 1
	l, _ := newLive(t, in)
	left := Left{Done: setupDone(), Running: map[string]Running{}}
	start, err := l.Forecast(context.Background(), left, 0, 1)
	require.NoError(t, err)
	left.Slots = map[string]int{string(schedule.SlotDump): 8, string(schedule.SlotLoad): 4}
	tuned, err := l.Forecast(context.Background(), left, 0, 1)
	require.NoError(t, err)
	assert.Less(t, float64(tuned.Remaining), 0.8*float64(start.Remaining), "start %s, tuned %s", start.Remaining, tuned.Remaining)
	left.Slots = nil
	again, err := l.Forecast(context.Background(), left, 0, 1)
	require.NoError(t, err)
	assert.Equal(t, start.Remaining, again.Remaining, "a forecast's slots are its own: the Live is unchanged")
}

// On several hosts a landed section comes with its copy to the target's
// machine, which its load waits for: done here, so not run again.
func TestForecastOfAThreadedDumpOnTwoHosts(t *testing.T) {
	in := liveInput(400e6, 100e6, 30e6, 1e6)
	in.Strategy.ThreadedDumpMin, in.Strategy.DumpThreads = 64e6, 2
	moves := func(h string) bool { return h != "tgt" }
	in.Hosts = &Hosts{Layout: &schedule.Hosts{Source: "src", Target: "tgt", Moves: moves}, Links: map[string]Link{"src": {MBps: 100}}}
	l, _ := newLive(t, in)
	done := setupDone()
	done[schedule.MoveID("PUB.t0", 1)] = true
	left := Left{Done: done, Running: map[string]Running{"dump:PUB.t0": {Elapsed: 10 * time.Second, Fraction: 0.6}},
		Sections: []Section{{Table: "PUB.t0", Section: 1, Records: 2.5e6, Bytes: 250e6}}}
	sim := simulateLeft(t, l, left)
	ran := map[string]bool{}
	for _, sp := range sim.result.Spans {
		ran[sp.Job.ID] = true
	}
	assert.True(t, ran["load:PUB.t0"], "the landed section is loaded")
	assert.False(t, ran[schedule.MoveID("PUB.t0", 1)], "its copy is done")
	assert.True(t, ran[schedule.MoveID("PUB.t0", 2)], "the section still to land is copied")
}
