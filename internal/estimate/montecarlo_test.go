package estimate

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The window `oedl estimate` states is its range's P50, as the live ETA
// is (rangeAround): text, --json, HTML, dry-run and run_started all show
// Window beside Range, which could read "23.7s (P50 24.6s, P90 29.9s)"
// when the range was the samples' own quantiles.
func TestWindowIsItsRangesP50(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Input)
	}{
		{"the defaults", func(*Input) {}},
		{"staged", func(in *Input) { in.Strategy.Staged = true }},
		{"batched small tables", func(in *Input) {
			in.Plan = testPlan(300e6, 120e6, 40e6, 1e5, 2e5, 3e5, 4e4, 5e3)
			in.Strategy.BatchLoads = true
		}},
		{"prepared, -i", func(in *Input) { in.Strategy.Prepared, in.Strategy.NoIntegrity = true, true }},
		{"one load at a time", func(in *Input) { in.Strategy.LoadJobs = 1 }},
		{"a slow disk, more samples", func(in *Input) {
			in.Hardware.DiskMBps, in.Hardware.DiskIOPS, in.Samples, in.Seed = 20, 300, 40, 7
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := goldenInput()
			tt.mutate(&in)
			est, err := Run(context.Background(), in)
			require.NoError(t, err)
			require.NotNil(t, est.Range)
			assert.Equal(t, est.Window, est.Range.P50, "the window is the range's P50")
			assert.GreaterOrEqual(t, est.Range.P90, est.Window)
			ev := est.Event()
			assert.Equal(t, ev.Window, ev.P50, "run_started carries the same")
		})
	}
}
