package run

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/schedule"
)

// TestSourceBrokerGoneStopsTheDumps: the broker the run started on the
// source goes (someone's proshut, a crash) under a dump. Retried, the dump
// would open the source single-user while the other dumps' retries are
// refused (263): every attempt used up in a second, each failure naming
// (263) and not the broker. The dump fails once, for good, naming the
// broker, and the resume serves the source again and ends verified.
func TestSourceBrokerGoneStopsTheDumps(t *testing.T) {
	cfg := fakeSetup(t, testTables...)
	oe := newFakeOE(cfg.Plan)
	oe.brokerDiesAt["PUB.order-line"] = true
	cfg.Runner, cfg.DumpJobs, cfg.LoadJobs, cfg.Retries = oe, 3, 3, 2
	require.True(t, cfg.served(schedule.DBSource), "the test needs a served source")

	_, err := Run(context.Background(), cfg)
	var fe *FailedError
	require.True(t, errors.As(err, &fe), "%v", err)
	require.Len(t, fe.Failed, 1, "%v", err)
	f := fe.Failed[0]
	assert.Equal(t, "dump:PUB.order-line", f.ID)
	assert.Equal(t, 1, f.Attempt, "not tried again on a source nobody serves")
	assert.Contains(t, f.Err, "the broker this run started on the source "+cfg.Source+" is gone")
	assert.Equal(t, 1, dumpsOf(oe, "PUB.order-line"))

	cfg.Resume = true
	res, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	require.NotNil(t, res.Verify)
	assert.True(t, res.Verify.OK)
	assert.Equal(t, 2, dumpsOf(oe, "PUB.order-line"))
}

// dumpsOf counts the dumps of table the fake ran.
func dumpsOf(oe *fakeOE, table string) int {
	oe.mu.Lock()
	defer oe.mu.Unlock()
	n := 0
	for _, c := range oe.calls {
		if f := strings.Fields(c); len(f) > 4 && f[0] == "proutil" && f[3] == "dump" && f[4] == table {
			n++
		}
	}
	return n
}
