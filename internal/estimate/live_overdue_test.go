package estimate

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/schedule"
)

// Batches of small tables report nothing until they end. A run whose
// batches take several times the model's time has, before the first of
// them ends, only the running ones to say so: once past what the factors
// predict they count as evidence, and the batches queued behind them are
// forecast longer than the model's.
func TestForecastLearnsFromOverdueBatches(t *testing.T) {
	for _, slower := range []float64{4, 8} {
		in := batchInput()
		in.Strategy.LoadJobs = 2
		l, est := newLive(t, in)
		real, err := in.simulate(context.Background(), l.m, func(j *schedule.Job, w *jobWork) {
			if j.Kind == schedule.KindLoadBatch {
				w.startup *= slower
				scaleFlows(w.flows, slower)
			}
		})
		require.NoError(t, err)
		// Cut when the first batch has run three times the model's time
		// for it: running, overdue, none ended.
		var first schedule.Span
		var batches []*schedule.Job
		for _, sp := range real.result.Spans {
			if sp.Job.Kind != schedule.KindLoadBatch {
				continue
			}
			batches = append(batches, sp.Job)
			if first.Job == nil || sp.Start.Before(first.Start) {
				first = sp
			}
		}
		require.GreaterOrEqual(t, len(batches), 3, "batches queued behind the running ones")
		model := spanOf(t, est, first.Job.ID)
		cut := first.Start.Sub(real.result.Start) + 3*model
		require.Less(t, 3*model, first.End.Sub(first.Start))
		left := cutRun(real.result, cut, 1)
		f, err := l.Forecast(context.Background(), left, 0, 1)
		require.NoError(t, err)
		// Beyond the model's time by a fifth at least: the running
		// batches are a few seconds of evidence against the prior's 5,
		// and a lower bound (without them: the model's time). (A
		// quarter before a batch's model time held its tables' own
		// waited requests, addMemberWaits: 1.30x then, 1.22x now, for
		// the longest batch.)
		queued := 0
		for _, j := range f.Jobs {
			if j.Kind == string(schedule.KindLoadBatch) && !j.Running {
				queued++
				assert.Greater(t, (j.End - j.Start).Seconds(), 1.2*spanOf(t, est, j.Job).Seconds(),
					"%.0f times slower: %s is forecast beyond the model's time", slower, j.Job)
			}
		}
		require.Positive(t, queued, "%.0f times slower: batches still queued", slower)
	}
}
