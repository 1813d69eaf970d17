package run

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/schedule"
)

// helpersTogether is the fake OpenEdge whose probiw and proapw each go on
// only once all the broker's helpers have started (or after
// waitForAtMost, counted as a helper that ran alone).
type helpersTogether struct {
	*fakeOE
	want int

	mu      sync.Mutex
	started int
	all     chan struct{}
	alone   int
}

func (h *helpersTogether) Run(ctx context.Context, c execx.Cmd) (execx.Result, error) {
	switch filepath.Base(c.Path) {
	case "proapw", "probiw":
		h.mu.Lock()
		h.started++
		if h.started == h.want {
			close(h.all)
		}
		h.mu.Unlock()
		select {
		case <-h.all:
		case <-time.After(waitForAtMost):
			h.mu.Lock()
			h.alone++
			h.mu.Unlock()
		}
		return execx.Result{}, nil
	}
	return h.fakeOE.Run(ctx, c)
}

// The target's broker helpers start beside each other, not one after
// another: their start-ups were on the chain between the target's creation
// and the first load. The run still loads and verifies.
func TestBrokerHelpersStartTogether(t *testing.T) {
	cfg := fakeSetup(t, testTables...)
	cfg.Plan.Processes = []plan.Param{{Name: "proapw", Value: "2"}, {Name: "probiw", Value: "1"}}
	h := &helpersTogether{fakeOE: newFakeOE(cfg.Plan), want: 3, all: make(chan struct{})}
	cfg.Runner, cfg.DumpJobs, cfg.LoadJobs, cfg.TuneTarget = h, 3, 3, true
	require.True(t, cfg.served(schedule.DBTarget), "the test needs a served target")

	res, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	require.NotNil(t, res.Verify)
	assert.True(t, res.Verify.OK)
	assert.Equal(t, 3, h.started, "two page writers and the BI writer started")
	assert.Zero(t, h.alone, "no helper waited for the others to start")
}
