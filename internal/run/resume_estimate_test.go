package run

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/estimate"
	"github.com/oedl/oedl/internal/event"
)

// A resume opens with the estimate of the work the journal has not
// finished, not the whole migration again (which the live ETA corrected
// only at its first forecast): after the dumps and the target's creation
// finished it leaves them out.
func TestResumeOpensWithTheWorkLeft(t *testing.T) {
	cfg := fakeSetup(t, testTables...)
	oe := newFakeOE(cfg.Plan)
	cfg.Runner, cfg.DumpJobs, cfg.LoadJobs, cfg.Model = oe, 2, 2, estimate.DefaultModel()
	ctx, cancel := context.WithCancel(context.Background())
	var first, resumed *event.Estimate
	// Ctrl-C once every dump and the target's creation are done. With the
	// dumps alone the test raced: when the creation (on the estimate's
	// critical path) had not ended yet, the resume made it again and its
	// estimate was the first's to the millisecond.
	// The sink is called from the jobs' goroutines too (their progress).
	var mu sync.Mutex
	dumps, created := 0, false
	cfg.Events = event.SinkFunc(func(e event.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case e.Kind == event.RunStarted:
			first = e.Estimate
		case e.Kind == event.JobFinished && strings.HasPrefix(e.Job, "dump:"):
			dumps++
		case e.Kind == event.JobFinished && e.Job == "create-target":
			created = true
		}
		if dumps == len(testTables) && created {
			cancel()
		}
	})
	_, err := Run(ctx, cfg)
	require.Error(t, err)
	require.True(t, errors.Is(err, context.Canceled), err)
	require.NotNil(t, first)
	for _, table := range testTables {
		require.True(t, journalOf(t, cfg).IsDone("dump:"+table.Table), table.Table)
	}

	cfg.Resume = true
	cfg.Events = event.SinkFunc(func(e event.Event) {
		if e.Kind == event.RunStarted {
			resumed = e.Estimate
		}
	})
	res, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	require.True(t, res.Resumed)
	require.NotNil(t, resumed)
	assert.Less(t, resumed.Window, first.Window, "the dumps done are not estimated again")
	assert.Equal(t, first.Model, resumed.Model)
}
