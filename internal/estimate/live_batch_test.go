package estimate

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/schedule"
)

// batchInput is erpLike with its small tables in one area, loaded in
// batches.
func batchInput() Input {
	in := liveInput(erpLike()...)
	for i := range in.Plan.Tables {
		if in.Plan.Tables[i].Bytes < 1e6 {
			in.Plan.Tables[i].DataArea = "small"
		}
	}
	in.Strategy.BatchLoads = true
	return in
}

// perTable is a Left as a run reports it: a load batch's events are the
// loads of its tables (load:T), each job_finished with the batch's time.
func perTable(left Left, est *Estimate) Left {
	batch := map[string]*schedule.Job{}
	for _, sp := range est.Result().Spans {
		if sp.Job.Kind == schedule.KindLoadBatch {
			batch[sp.Job.ID] = sp.Job
		}
	}
	out := Left{Now: left.Now, Done: map[string]bool{}, Running: map[string]Running{}, Sections: left.Sections}
	members := func(id string) []string {
		j := batch[id]
		if j == nil {
			return []string{id}
		}
		var ids []string
		for _, m := range j.Members {
			ids = append(ids, schedule.LoadID(m.Table, 0))
		}
		return ids
	}
	for id, d := range left.Done {
		for _, m := range members(id) {
			out.Done[m] = d
		}
	}
	for id, r := range left.Running {
		for _, m := range members(id) {
			out.Running[m] = r
		}
	}
	for _, f := range left.Finished {
		for _, m := range members(f.Job) {
			out.Finished = append(out.Finished, Finished{Job: m, Start: f.Start, Elapsed: f.Elapsed})
		}
	}
	return out
}

// The live ETA of a batched run, fed per-table events, is the ETA of the
// batches themselves: a batch is done, running and evidence once.
func TestForecastOfLoadBatchesFromPerTableEvents(t *testing.T) {
	in := batchInput()
	l, est := newLive(t, in)
	var batches int
	for _, sp := range est.Result().Spans {
		if sp.Job.Kind == schedule.KindLoadBatch {
			batches++
		}
	}
	require.Positive(t, batches, "the plan must have load batches")
	for _, frac := range []float64{0.25, 0.5, 0.75, 0.95} {
		for _, stretch := range []float64{1, 2} {
			cut := time.Duration(frac * float64(est.Window.D()))
			byBatch := cutAt(est, cut, stretch)
			want, err := l.Forecast(context.Background(), byBatch, 0, 1)
			require.NoError(t, err)
			got, err := l.Forecast(context.Background(), perTable(byBatch, est), 0, 1)
			require.NoError(t, err)
			assert.Equal(t, want.Remaining, got.Remaining, "at %.0f%%, stretch %.0f", 100*frac, stretch)
			assert.InDelta(t, want.Factors[groupLoad].Evidence, got.Factors[groupLoad].Evidence, 1e-9,
				"a batch is one observation, not one per table")
		}
	}
}

func TestFoldBatches(t *testing.T) {
	built, err := schedule.Build(testPlan(1e3), schedule.BuildOptions{})
	require.NoError(t, err)
	b := &schedule.Job{ID: "load-batch:A:1", Kind: schedule.KindLoadBatch, Area: "A", Slot: schedule.SlotLoad,
		Members: []schedule.Member{{Table: "PUB.a"}, {Table: "PUB.b"}}}
	g, err := schedule.NewGraph(append(built.Jobs(), b))
	require.NoError(t, err)
	built.Graph = g
	t0 := time.Unix(1000, 0)
	tests := []struct {
		name        string
		done        map[string]bool
		running     map[string]Running
		finished    []Finished
		wantDone    bool
		wantRunning *Running
		wantFinish  []Finished
	}{
		{name: "nothing yet"},
		{name: "running while its tables are", running: map[string]Running{"load:PUB.a": {Elapsed: 2 * time.Second}, "load:PUB.b": {Elapsed: 3 * time.Second}},
			wantRunning: &Running{Elapsed: 3 * time.Second}},
		{name: "done when every table is, one observation", done: map[string]bool{"load:PUB.a": true, "load:PUB.b": true},
			finished:   []Finished{{Job: "load:PUB.a", Start: t0, Elapsed: time.Second}, {Job: "load:PUB.b", Start: t0, Elapsed: time.Second}, {Job: "dump:PUB.c", Start: t0, Elapsed: 5 * time.Second}},
			wantDone:   true,
			wantFinish: []Finished{{Job: "load-batch:A:1", Start: t0, Elapsed: time.Second}, {Job: "dump:PUB.c", Start: t0, Elapsed: 5 * time.Second}}},
		{name: "not done with a table left (a resume skipped the other)", done: map[string]bool{"load:PUB.a": true}},
		{name: "two calls (loaded again after a repair): two observations", done: map[string]bool{"load:PUB.a": true, "load:PUB.b": true},
			finished: []Finished{{Job: "load:PUB.a", Start: t0, Elapsed: time.Second}, {Job: "load:PUB.b", Start: t0, Elapsed: time.Second},
				{Job: "load:PUB.a", Start: t0.Add(time.Minute), Elapsed: 2 * time.Second}, {Job: "load:PUB.b", Start: t0.Add(time.Minute), Elapsed: 2 * time.Second}},
			wantDone: true,
			wantFinish: []Finished{{Job: "load-batch:A:1", Start: t0, Elapsed: time.Second},
				{Job: "load-batch:A:1", Start: t0.Add(time.Minute), Elapsed: 2 * time.Second}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lg := &leftGraph{done: tt.done, running: tt.running, finished: tt.finished}
			lg.foldBatches(built)
			assert.Equal(t, tt.wantDone, lg.done[b.ID])
			r, ok := lg.running[b.ID]
			assert.Equal(t, tt.wantRunning != nil, ok)
			if tt.wantRunning != nil {
				assert.Equal(t, *tt.wantRunning, r)
			}
			assert.Equal(t, tt.wantFinish, lg.finished)
		})
	}
}
