package cli

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/estimate"
	"github.com/oedl/oedl/internal/run"
	"github.com/oedl/oedl/internal/schedule"
)

// TestScreenOptionsCarryTheCostModel: the live screen gets the run's cost
// model, so its ETA takes idxbuild's duration from the model.
func TestScreenOptionsCarryTheCostModel(t *testing.T) {
	idx := &schedule.Job{ID: string(schedule.KindIdxbuild), Kind: schedule.KindIdxbuild, Records: 5_000_000, Bytes: 2 << 30}
	m := estimate.DefaultModel()
	tests := []struct {
		name  string
		model *estimate.Model
	}{
		{"no model", nil},
		{"the default model", m},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := screenOptions(&IOStreams{}, run.Config{Source: "/db/src", Target: "/db/new/tgt", Work: t.TempDir()}, tt.model, func() {})
			assert.Equal(t, "/db/src", o.Source)
			if tt.model == nil {
				assert.Nil(t, o.Cost)
				return
			}
			require.NotNil(t, o.Cost)
			assert.Equal(t, tt.model.Cost(idx), o.Cost(idx))
			assert.Positive(t, o.Cost(idx))
		})
	}
}
