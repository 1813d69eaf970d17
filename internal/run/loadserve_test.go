package run

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/event"

	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/schedule"
)

// Tuned for loading, the target is served with target.pf's parameters and
// the plan's helpers, after truncate bi to the plan's BI; the source and
// the post phase are as without tuning.
func TestTunedTargetCommands(t *testing.T) {
	p := &plan.Plan{BlockSize: 8192, Tables: []plan.Placement{placement("PUB.customer", "Cust", 10)},
		BI:        plan.BI{BlockSizeKB: 16, ClusterSizeKB: 16384},
		Startup:   []plan.Param{{Name: "-B", Value: "8192"}, {Name: "-spin", Value: "40000"}, {Name: "-bibufs", Value: "25"}},
		Processes: []plan.Param{{Name: "proapw", Value: "2"}, {Name: "probiw", Value: "1"}, {Name: "proaiw", Value: "1"}}}
	bin := func(n string) string { return filepath.Join("/dlc/bin", n) }
	tuned := []string{bin("proserve"), "/new/tgt", "-B", "8192", "-spin", "40000", "-bibufs", "25"}
	helpers := [][]string{{bin("proapw"), "/new/tgt"}, {bin("proapw"), "/new/tgt"}, {bin("probiw"), "/new/tgt"}}
	truncateBI := []string{bin("proutil"), "/new/tgt", "-C", "truncate", "bi", "-biblocksize", "16", "-bi", "16384"}
	area := "Cust"
	tests := []struct {
		name        string
		noIntegrity bool
		job         *schedule.Job
		want        [][]string
	}{
		{"serve the target", false, &schedule.Job{Kind: schedule.KindServe, DB: schedule.DBTarget},
			append([][]string{tuned}, helpers...)},
		{"serve the target with -i", true, &schedule.Job{Kind: schedule.KindServe, DB: schedule.DBTarget},
			append([][]string{append(append([]string{}, tuned...), "-i")}, helpers...)},
		{"the source is served bare", false, &schedule.Job{Kind: schedule.KindServe, DB: schedule.DBSource},
			[][]string{{bin("proserve"), "/db/src"}}},
		{"create ends with the plan's BI", false, &schedule.Job{Kind: schedule.KindCreateTarget}, [][]string{
			{bin("prostrct"), "create", "/new/tgt", "/plan/target.st", "-blocksize", "8192"},
			{bin("procopy"), "/dlc/empty8", "/new/tgt"},
			{bin("_progres"), "-b", "-db", "/new/tgt", "-1", "-p", "prodict/load_df.p", "-param", "/plan/target.df"},
			truncateBI}},
		{"a repair serves it tuned again", false, &schedule.Job{Kind: schedule.KindRepair, Area: area, Exclusive: true},
			append([][]string{{bin("proshut"), "/new/tgt", "-by"}, {bin("proutil"), "/new/tgt", "-C", "truncate", "area", area}, tuned}, helpers...)},
		{"post: the plan's BI again", false, &schedule.Job{Kind: schedule.KindPost}, [][]string{truncateBI}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{DLC: "/dlc", Source: "/db/src", Target: "/new/tgt", PlanDir: "/plan", Work: "/w", Plan: p,
				DumpJobs: 4, LoadJobs: 2, TuneTarget: true, NoIntegrity: tt.noIntegrity}
			assert.Equal(t, tt.want, Commands(cfg, tt.job))
			cfg.TuneTarget = false
			if tt.job.Kind == schedule.KindServe && tt.job.DB == schedule.DBTarget {
				want := []string{bin("proserve"), "/new/tgt"}
				if tt.noIntegrity {
					want = append(want, "-i")
				}
				assert.Equal(t, [][]string{want}, Commands(cfg, tt.job), "untuned: a bare proserve")
			}
		})
	}
}

// probiw and proapw only buy speed, and a Workgroup licence refuses them:
// a helper that fails (here: not even installed) is a warning naming it,
// and the run loads and verifies without it.
// The same in a repair, which starts the broker again after truncating
// the area a failed load left.
func TestTunedTargetGoesOnWithoutItsHelpers(t *testing.T) {
	helpers := []string{"proapw", "proapw", "probiw"}
	for _, tt := range []struct {
		name     string
		failLoad string // a table whose first load fails: a repair
		want     []string
	}{
		{"serve", "", helpers},
		{"serve, then a repair serves again", "PUB.customer", append(append([]string{}, helpers...), helpers...)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := fakeSetup(t, testTables...)
			cfg.Plan.Processes = []plan.Param{{Name: "proapw", Value: "2"}, {Name: "probiw", Value: "1"}}
			oe := newFakeOE(cfg.Plan)
			if tt.failLoad != "" {
				oe.failLoad[tt.failLoad] = 1
			}
			events := &eventLog{}
			cfg.Runner, cfg.DumpJobs, cfg.LoadJobs, cfg.TuneTarget, cfg.Events = oe, 3, 3, true, events
			require.True(t, cfg.served(schedule.DBTarget), "the test needs a served target")

			res, err := Run(context.Background(), cfg)
			require.NoError(t, err)
			require.NotNil(t, res.Verify)
			assert.True(t, res.Verify.OK)
			var warned []string
			for _, e := range events.kinds(event.Warning) {
				if strings.Contains(e.Message, "did not start") {
					warned = append(warned, strings.Fields(e.Message)[0])
				}
			}
			assert.ElementsMatch(t, tt.want, warned, "each helper warned once a start (they start together: in any order)")
		})
	}
}
