package run

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/schedule"
)

// A broker serving more jobs than OpenEdge's default of 20 users (-n)
// takes would refuse the connections past it: the serve step sizes -n
// from the job count of the database it serves.
func TestServeSizesUsersFromTheJobs(t *testing.T) {
	cfg := Config{DLC: "/dlc", Source: "/db/src", Target: "/new/tgt", PlanDir: "/plan", Work: "/w",
		Plan: &plan.Plan{Tables: []plan.Placement{placement("PUB.customer", "Cust", 10)}}, DumpJobs: 32, LoadJobs: 4}
	bin := func(n string) string { return filepath.Join("/dlc/bin", n) }
	for _, tt := range []struct {
		db       string
		loadJobs int
		want     []string
	}{
		{schedule.DBSource, 4, []string{bin("proserve"), "/db/src", "-n", "40"}},
		{schedule.DBTarget, 4, []string{bin("proserve"), "/new/tgt"}},
		{schedule.DBTarget, 16, []string{bin("proserve"), "/new/tgt", "-n", "24"}},
	} {
		cfg.LoadJobs = tt.loadJobs
		assert.Equal(t, [][]string{tt.want}, Commands(cfg, &schedule.Job{Kind: schedule.KindServe, DB: tt.db}), tt.db)
	}
}

func TestCommands(t *testing.T) {
	p := &plan.Plan{BlockSize: 4096, Tables: []plan.Placement{placement("PUB.customer", "Cust", 10)},
		Idxbuild: plan.Idxbuild{TB: 64, TM: 32, TMB: 512, SG: 64, TF: 80, B: 1024, Threadnum: 2, Mergethreads: 4, Datascanthreads: 2, Pfactor: 80},
		BI:       plan.BI{BlockSizeKB: 16, ClusterSizeKB: 16384}}
	cfg := Config{DLC: "/dlc", Source: "/db/src", Target: "/new/tgt", PlanDir: "/plan", Work: "/w", Plan: p, DumpJobs: 4, LoadJobs: 2}
	bin := func(n string) string { return filepath.Join("/dlc/bin", n) }
	oddArea := `Area "q" $(x)`
	tests := []struct {
		name string
		job  *schedule.Job
		want [][]string
	}{
		{"dump", &schedule.Job{Kind: schedule.KindDump, Table: "PUB.customer"},
			[][]string{{bin("proutil"), "/db/src", "-C", "dump", "PUB.customer", "/w/dump/PUB.customer"}}},
		{"threaded dump", &schedule.Job{Kind: schedule.KindDump, Table: "sales.order", Threads: 3},
			[][]string{{bin("proutil"), "/db/src", "-C", "dump", "sales.order", "/w/dump/sales.order", "-thread", "1", "-threadnum", "3", "-dumplist", "/w/dump/sales.order/sales.order.dumplist"}}},
		{"load of a non-PUB table", &schedule.Job{Kind: schedule.KindLoad, Table: "sales.order"},
			[][]string{{bin("proutil"), "/new/tgt", "-C", "load", "/w/dump/sales.order/sales_order.bd"}}},
		{"load of a section", &schedule.Job{Kind: schedule.KindLoad, Table: "PUB.customer", Section: 3},
			[][]string{{bin("proutil"), "/new/tgt", "-C", "load", "/w/dump/PUB.customer/customer.bd3"}}},
		{"load batch: one call, the first table's file and the list of all", &schedule.Job{ID: "load-batch:Small:1", Kind: schedule.KindLoadBatch, Area: "Small",
			Members: []schedule.Member{{Table: "PUB.state"}, {Table: "PUB.zip"}}},
			[][]string{{bin("proutil"), "/new/tgt", "-C", "load", "/w/dump/PUB.state/state.bd", "-dumplist", "/w/batches/load-batch_Small_1.lst"}}},
		{"repair of a served target", &schedule.Job{Kind: schedule.KindRepair, Area: oddArea, Exclusive: true},
			[][]string{{bin("proshut"), "/new/tgt", "-by"}, {bin("proutil"), "/new/tgt", "-C", "truncate", "area", oddArea}, {bin("proserve"), "/new/tgt"}}},
		{"repair offline", &schedule.Job{Kind: schedule.KindRepair, Area: oddArea},
			[][]string{{bin("proutil"), "/new/tgt", "-C", "truncate", "area", oddArea}}},
		{"create", &schedule.Job{Kind: schedule.KindCreateTarget}, [][]string{
			{bin("prostrct"), "create", "/new/tgt", "/plan/target.st", "-blocksize", "4096"},
			{bin("procopy"), "/dlc/empty4", "/new/tgt"},
			{bin("_progres"), "-b", "-db", "/new/tgt", "-1", "-p", "prodict/load_df.p", "-param", "/plan/target.df"}}},
		{"idxbuild", &schedule.Job{Kind: schedule.KindIdxbuild}, [][]string{{bin("proutil"), "/new/tgt", "-C", "idxbuild", "all",
			"-SG", "64", "-TB", "64", "-TM", "32", "-TMB", "512", "-B", "1024", "-TF", "80", "-thread", "1", "-threadnum", "2",
			"-mergethreads", "4", "-datascanthreads", "2", "-pfactor", "80", "-T", "/w/sort", "-rusage"}}},
		{"sequences on a served source", &schedule.Job{Kind: schedule.KindDumpSeq},
			[][]string{{bin("_progres"), "-b", "-db", "/db/src", "-p", "/w/abl/dump_seqvals.p", "-param", "/w/sequences.d"}}},
		{"users, grants and views out of the source", &schedule.Job{Kind: schedule.KindDumpSecurity},
			[][]string{{bin("_progres"), "-b", "-db", "/db/src", "-p", "/w/abl/dump_security.p", "-param", "/w/security"}}},
		{"users, grants and views into a served target, then read back", &schedule.Job{Kind: schedule.KindLoadSecurity}, [][]string{
			{bin("_progres"), "-b", "-db", "/new/tgt", "-p", "/w/abl/load_security.p", "-param", "/w/security"},
			{bin("_progres"), "-b", "-db", "/new/tgt", "-p", "/w/abl/dump_security.p", "-param", "/w/security.target"}}},
		{"post", &schedule.Job{Kind: schedule.KindPost},
			[][]string{{bin("proutil"), "/new/tgt", "-C", "truncate", "bi", "-biblocksize", "16", "-bi", "16384"}}},
		{"verify runs nothing", &schedule.Job{Kind: schedule.KindVerify}, nil},
		{"a broker for few jobs: OpenEdge's default users", &schedule.Job{Kind: schedule.KindServe, DB: schedule.DBTarget},
			[][]string{{bin("proserve"), "/new/tgt"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Commands(cfg, tt.job))
		})
	}
	// A single-user source gets -1.
	cfg.DumpJobs = 1
	assert.Contains(t, Commands(cfg, &schedule.Job{Kind: schedule.KindDumpSeq})[0], "-1")
}
