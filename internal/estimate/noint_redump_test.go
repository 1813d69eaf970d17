package estimate

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/schedule"
)

// A failed -i load makes the run dump that load's tables again before it
// loads them again (internal/run/noint.go rebuildAfter): the price holds
// that chain, the dump then the load of the table whose failure costs
// most, each at least what it takes alone. The price before est-price
// was the target's creation plus the loads from dumps all done: 1.13x
// under a measured failure whose largest table was dumped again.
func TestRebuildPriceDumpsTheFailedLoadAgain(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Input)
	}{
		{"the defaults", func(*Input) {}},
		{"a prepared target: created again in the window", func(in *Input) { in.Strategy.Prepared = true }},
		{"staged: every load waits for the dump again", func(in *Input) { in.Strategy.Staged = true }},
		{"one load at a time", func(in *Input) { in.Strategy.LoadJobs = 1 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := goldenInput()
			in.Strategy.NoIntegrity, in.Strategy.ThreadedDumpMin = true, 0
			tt.mutate(&in)
			p, err := RebuildPrice(context.Background(), in)
			require.NoError(t, err)

			m, cc := in.model(), in.context()
			built, _, err := in.build(m, cc)
			require.NoError(t, err)
			largest := in.Plan.Tables[0].Table
			dump, load := built.Job(schedule.DumpID(largest)), built.Job(schedule.LoadID(largest, 0))
			require.NotNil(t, dump)
			require.NotNil(t, load)
			chain := aloneDuration(m.work(dump, cc), cc.hw) + aloneDuration(m.work(load, cc), cc.hw)
			assert.GreaterOrEqual(t, p.FailureCost.D(), chain, "%s dumped again, then loaded again", largest)
			assert.Equal(t, []string{largest}, p.Redumped)
			assert.GreaterOrEqual(t, p.Redump.D(), aloneDuration(m.work(dump, cc), cc.hw))
			assert.GreaterOrEqual(t, p.FailureCost, p.Recreate)
			assert.GreaterOrEqual(t, p.FailureCost, p.Reload)
		})
	}
}

// The load priced is the one whose failure waits longest for its dumps
// again: a threaded table (its sections loaded again as they land), or a
// batch, every table of which the run dumps again.
func TestRebuildPriceRedumped(t *testing.T) {
	small := func(in *Input) {
		in.Plan = testPlan(1e5, 2e5, 3e5, 4e4, 5e3)
		for i := range in.Plan.Tables {
			in.Plan.Tables[i].DataArea = "small"
		}
	}
	tests := []struct {
		name   string
		mutate func(*Input)
		want   []string
	}{
		{"a threaded dump", func(*Input) {}, []string{"PUB.t0"}},
		{"every table in one batch", small, []string{"PUB.t0", "PUB.t1", "PUB.t2", "PUB.t3", "PUB.t4"}},
		{"on two hosts: the other dumps' copies kept, the failed one's copied again", func(in *Input) {
			moves := func(h string) bool { return h != "tgt" }
			in.Hosts = &Hosts{Layout: &schedule.Hosts{Source: "src", Target: "tgt", Moves: moves}, Links: map[string]Link{"src": {MBps: 100}}}
		}, []string{"PUB.t0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := goldenInput()
			in.Strategy.NoIntegrity = true
			tt.mutate(&in)
			p, err := RebuildPrice(context.Background(), in)
			require.NoError(t, err)
			assert.ElementsMatch(t, tt.want, p.Redumped)
			assert.Greater(t, p.FailureCost, p.Redump, "its loads after the dump again")
			assert.Equal(t, len(in.Plan.Tables), p.Tables, "every table loaded again")
		})
	}
}
