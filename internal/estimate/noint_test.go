package estimate

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Loads with -i (oedl run's default): the estimate weighs them against
// crash-safe loads and prices the rebuild a failed load makes; crash-safe
// loads get no such line.
func TestPriceIntegrity(t *testing.T) {
	tests := []struct {
		name     string
		noInt    bool
		prepared bool
	}{
		{"crash-safe loads: nothing to price", false, false},
		{"-i", true, false},
		{"-i into a prepared target: its rebuild is in the window", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := goldenInput()
			in.Samples = 0
			in.Strategy.NoIntegrity, in.Strategy.Prepared = tt.noInt, tt.prepared
			est, err := Run(context.Background(), in)
			require.NoError(t, err)
			require.NoError(t, PriceIntegrity(context.Background(), in, est))
			if !tt.noInt {
				assert.Nil(t, est.Integrity)
				return
			}
			p := est.Integrity
			require.NotNil(t, p)
			assert.Positive(t, p.Faster, "-i writes fewer BI notes and syncs nothing: faster")
			assert.Equal(t, p.CrashSafeWindow-est.Window, p.Faster)
			assert.Positive(t, p.Recreate, "the target is created again")
			assert.Positive(t, p.Reload, "every table is loaded again")
			assert.Equal(t, p.Recreate+p.Reload, p.FailureCost)
			assert.Equal(t, len(in.Plan.Tables), p.Tables)
			if tt.prepared {
				assert.Equal(t, est.Preparation, p.Recreate, "created as oedl prepare creates it")
			}
			assert.Less(t, p.Reload, est.Window, "the loads alone, the dumps already made")
		})
	}
}

func TestGoldenTextNoIntegrity(t *testing.T) {
	in := goldenInput()
	in.Strategy.NoIntegrity = true
	est, err := Run(context.Background(), in)
	require.NoError(t, err)
	require.NoError(t, PriceIntegrity(context.Background(), in, est))
	var buf bytes.Buffer
	require.NoError(t, est.WriteText(&buf, 0))
	assertGolden(t, "estimate-noint.txt", buf.Bytes())
}
