package estimate

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/golden"
	"github.com/oedl/oedl/internal/schedule"
)

// assertGolden compares got with testdata/golden/<name>, or rewrites it under -update.
func assertGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Assert(t, filepath.Join("testdata", "golden", filepath.FromSlash(name)), got)
}

func goldenInput() Input {
	hw := Hardware{Cores: 4, MemoryBytes: 8 << 30, DiskMBps: 200, DiskIOPS: 3000, DiskLatencyMs: 1}
	return Input{Plan: testPlan(300e6, 120e6, 40e6, 10e6, 1e6, 1e5), Hardware: hw, Strategy: DefaultStrategy(hw), Samples: 10, Seed: 1}
}

func TestGoldenText(t *testing.T) {
	est, err := Run(context.Background(), goldenInput())
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, est.WriteText(&buf, 0))
	assertGolden(t, "estimate.txt", buf.Bytes())
}

func TestGoldenDryRun(t *testing.T) {
	commands := func(j *schedule.Job) [][]string {
		switch j.Kind {
		case schedule.KindDump:
			return [][]string{{"proutil", "source", "-C", "dump", j.Table, "dump/" + j.Table}}
		case schedule.KindLoad:
			return [][]string{{"proutil", "target", "-C", "load", "dump/" + j.Table + "/x.bd"}}
		}
		return nil
	}
	var buf bytes.Buffer
	require.NoError(t, DryRun(&buf, DryRunInput{Input: goldenInput(), Commands: commands}))
	assertGolden(t, "dryrun.txt", buf.Bytes())
	assert.Error(t, DryRun(&buf, DryRunInput{Input: goldenInput()}), "needs a command builder")
}

// A plan whose small tables share an area, loaded in batches: the load
// phase counts one job per batch, and each batched table its share.
func TestGoldenTextBatches(t *testing.T) {
	in := goldenInput()
	in.Plan = testPlan(300e6, 120e6, 40e6, 1e5, 2e5, 3e5, 4e4, 5e3)
	for i := range in.Plan.Tables {
		if in.Plan.Tables[i].Bytes < 1e6 {
			in.Plan.Tables[i].DataArea = "small"
		}
	}
	in.Strategy.BatchLoads = true
	est, err := Run(context.Background(), in)
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, est.WriteText(&buf, 0))
	assertGolden(t, "estimate-batches.txt", buf.Bytes())
	var batched int
	for _, tt := range est.Tables {
		if tt.Batch != "" {
			batched++
		}
	}
	assert.Equal(t, 5, batched, "every small table in the batch")
}
