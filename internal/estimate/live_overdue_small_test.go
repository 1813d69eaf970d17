package estimate

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/schedule"
)

// TestForecastIgnoresASmallOverrun: a tiny table's dump that has not
// reported yet and runs past its prediction by a fraction of a second,
// while most of the window is still ahead, does not make the whole ETA
// "unknown": on an 873-table run the screen said "ETA unknown:
// dump:PUB.rdr_wkfl is running longer than predicted" a quarter of the
// time, each tiny dump a few tenths late (nu-trial10). An overrun that
// is a real share of what is left still does (the idxbuild of
// TestForecastOfAnOverdueIdxbuild).
func TestForecastIgnoresASmallOverrun(t *testing.T) {
	l, est := newLive(t, liveInput(erpLike()...))
	res := est.Result()
	var small string
	var took, cut time.Duration
	for _, sp := range res.Spans {
		if sp.Job.Kind == schedule.KindDump && sp.Job.Bytes < 1e6 {
			small, took = sp.Job.ID, sp.End.Sub(sp.Start)
			cut = sp.Start.Sub(res.Start) + took/2
			break
		}
	}
	require.NotEmpty(t, small, "a small dump")
	left := cutAt(est, cut, 1)
	require.Contains(t, left.Running, small)
	left.Running[small] = Running{Elapsed: 3 * took} // no progress reported yet

	f, err := l.Forecast(context.Background(), left, 0, 1)
	require.NoError(t, err)
	require.Greater(t, f.Remaining, 20*took, "most of the window is ahead")
	assert.Empty(t, f.Overdue, "%s ran %s over its %s with %s left", small, 2*took, took, f.Remaining)
}
