package tui

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/schedule"
)

// TestPlainSummaryTakesIdxbuildFromTheCostModel: with the run's cost model
// (oedl run --no-tui passes it, as to the live screen), the summary line's
// ETA during the silent index rebuild counts down from the model's
// duration.
func TestPlainSummaryTakesIdxbuildFromTheCostModel(t *testing.T) {
	events := synthRun(t, 12)
	idx := -1
	for i, e := range events {
		if e.Kind == event.JobStarted && e.JobKind == string(schedule.KindIdxbuild) {
			idx = i
			break
		}
	}
	require.NotEqual(t, -1, idx, "the synthetic run rebuilds indexes")
	at := events[idx].Time.Add(time.Minute)
	tests := []struct {
		name string
		cost func(*schedule.Job) time.Duration
		want string
	}{
		{"model says 10 minutes", func(j *schedule.Job) time.Duration {
			if j.Kind == schedule.KindIdxbuild {
				return 10 * time.Minute
			}
			return time.Second
		}, "ETA 9m00s"},
		{"model says 30 minutes", func(j *schedule.Job) time.Duration {
			if j.Kind == schedule.KindIdxbuild {
				return 30 * time.Minute
			}
			return time.Second
		}, "ETA 29m00s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			p := NewPlain(&out, 0)
			p.now = func() time.Time { return at }
			p.SetCost(tt.cost)
			for _, e := range events[:idx+1] {
				p.Emit(e)
			}
			out.Reset()
			p.Summary()
			require.NoError(t, p.Close())
			assert.Contains(t, out.String(), tt.want)
			assert.Contains(t, out.String(), "idxbuild")
		})
	}
}
