package run

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/schedule"
)

// TestInterruptedSummaryCountsTablesOfABatch: run_finished's message
// counts what was stopped and not started as the screen and the plain
// lines count it, a batch of loads as its tables: the event said "680
// jobs not started" beside the screen's "1,362" of the same
// interruption (nu-trial10).
func TestInterruptedSummaryCountsTablesOfABatch(t *testing.T) {
	g, err := schedule.NewGraph([]*schedule.Job{
		{ID: "dump:PUB.a", Kind: schedule.KindDump, Table: "PUB.a"},
		{ID: "load-batch:Small_Data:1", Kind: schedule.KindLoadBatch, Area: "Small_Data",
			Members: []schedule.Member{{Table: "PUB.b"}, {Table: "PUB.c"}, {Table: "PUB.d"}}},
		{ID: "load-batch:Small_Data:2", Kind: schedule.KindLoadBatch, Area: "Small_Data",
			Members: []schedule.Member{{Table: "PUB.e"}, {Table: "PUB.f"}}},
		{ID: "idxbuild", Kind: schedule.KindIdxbuild},
	})
	require.NoError(t, err)
	res := &schedule.Result{
		Failed:    map[string]error{"load-batch:Small_Data:2": context.Canceled},
		Cancelled: []string{"dump:PUB.a", "load-batch:Small_Data:1", "idxbuild"},
	}
	assert.Equal(t, "interrupted: 2 running jobs stopped, 5 jobs not started; the journal is consistent and --resume continues",
		interruptedSummary(res, g))
}
