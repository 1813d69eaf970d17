package run

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/hosts"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/schedule"
)

const threeHostsFile = `hosts:
  prod:
    role: source
    ssh: prod1
    db: /db/prod
    dlc: /dlc-prod
    work: /w-prod
  dr:
    role: replica
    ssh: dr1
    db: /dr/prod
    dlc: /dlc-dr
    work: /w-dr
    env:
      PROMSGS: /dlc-dr/promsgs
  new:
    role: target
    ssh: new1
    db: /newdb/prod
    dlc: /dlc-new
    work: /w-new
`

// Every call is built for the host the job runs on: its DLC, its work
// directory, its database; what the run keeps (tabanalys reports) is
// saved here.
func TestCommandsOnHosts(t *testing.T) {
	hf, err := hosts.Parse("hosts.yaml", []byte(threeHostsFile))
	require.NoError(t, err)
	p := &plan.Plan{BlockSize: 8192, Tables: []plan.Placement{placement("PUB.customer", "Cust", 10)}}
	cfg := Config{Hosts: hf, PlanDir: "/plan", Work: "/here", Plan: p, DumpJobs: 2, LoadJobs: 2}
	cfg.fill()
	for _, tc := range []struct {
		job  *schedule.Job
		want [][]string
	}{
		{&schedule.Job{Kind: schedule.KindDump, Table: "PUB.customer", Host: "dr", DB: schedule.ReplicaDB("dr")},
			[][]string{{"/dlc-dr/bin/proutil", "/dr/prod", "-C", "dump", "PUB.customer", "/w-dr/dump/PUB.customer"}}},
		{&schedule.Job{Kind: schedule.KindDump, Table: "PUB.customer", Host: "prod", DB: schedule.DBSource},
			[][]string{{"/dlc-prod/bin/proutil", "/db/prod", "-C", "dump", "PUB.customer", "/w-prod/dump/PUB.customer"}}},
		{&schedule.Job{Kind: schedule.KindLoad, Table: "PUB.customer", Host: "new"},
			[][]string{{"/dlc-new/bin/proutil", "/newdb/prod", "-C", "load", "/w-new/dump/PUB.customer/customer.bd"}}},
		{&schedule.Job{Kind: schedule.KindCreateTarget, Host: "new"}, [][]string{
			{"/dlc-new/bin/prostrct", "create", "/newdb/prod", "/w-new/plan/target.st", "-blocksize", "8192"},
			{"/dlc-new/bin/procopy", "/dlc-new/empty8", "/newdb/prod"},
			{"/dlc-new/bin/_progres", "-b", "-db", "/newdb/prod", "-1", "-p", "prodict/load_df.p", "-param", "/w-new/plan/target.df"}}},
		{&schedule.Job{Kind: schedule.KindServe, DB: schedule.ReplicaDB("dr"), Host: "dr"}, [][]string{{"/dlc-dr/bin/proserve", "/dr/prod"}}},
		{&schedule.Job{Kind: schedule.KindDumpSeq, Host: "prod"},
			[][]string{{"/dlc-prod/bin/_progres", "-b", "-db", "/db/prod", "-p", "/w-prod/abl/dump_seqvals.p", "-param", "/w-prod/sequences.d"}}},
		{&schedule.Job{Kind: schedule.KindDumpSecurity, Host: "prod"},
			[][]string{{"/dlc-prod/bin/_progres", "-b", "-db", "/db/prod", "-p", "/w-prod/abl/dump_security.p", "-param", "/w-prod/security"}}},
		{&schedule.Job{Kind: schedule.KindLoadSecurity, Host: "new"}, [][]string{
			{"/dlc-new/bin/_progres", "-b", "-db", "/newdb/prod", "-p", "/w-new/abl/load_security.p", "-param", "/w-new/security"},
			{"/dlc-new/bin/_progres", "-b", "-db", "/newdb/prod", "-p", "/w-new/abl/dump_security.p", "-param", "/w-new/security.target"}}},
		{&schedule.Job{Kind: schedule.KindRepair, Area: "Cust", Host: "new"}, [][]string{{"/dlc-new/bin/proutil", "/newdb/prod", "-C", "truncate", "area", "Cust"}}},
	} {
		assert.Equal(t, tc.want, Commands(cfg, tc.job), "%s on %s", tc.job.Kind, tc.job.Host)
	}
	// Saved output comes back here; the steps carry their host.
	ss := cfg.steps(&schedule.Job{Kind: schedule.KindAnalyzeReplica, Host: "dr", DB: schedule.ReplicaDB("dr")}, nil)
	require.Len(t, ss, 1)
	assert.Equal(t, "dr", ss[0].host)
	assert.Equal(t, "/here/replica-dr.tba", ss[0].save)
	assert.Equal(t, []string{"/dlc-dr/bin/proutil", "/dr/prod", "-C", "tabanalys"}, ss[0].argv)
	assert.Equal(t, "new", cfg.truncateStep("Cust").host)
	// The environment: the host's DLC, this run's mark (the work
	// directory here, whatever host), the host's own variables.
	assert.Equal(t, []string{"DLC=/dlc-dr", WorkEnv + "=/here", "PROMSGS=/dlc-dr/promsgs"}, cfg.at("dr").env())
	assert.Equal(t, []string{"DLC=/dlc-new", WorkEnv + "=/here"}, cfg.at("new").env())
	// The databases of the run, and the slots per host.
	assert.Equal(t, []string{schedule.DBTarget, schedule.DBSource, schedule.ReplicaDB("dr")}, cfg.databases())
	assert.Equal(t, map[schedule.Slot]int{"dump@prod": 2, "dump@dr": 2, "load@new": 2, schedule.SlotMove: 4}, cfg.hostLayout().Slots(2, 2))
	assert.True(t, cfg.hostLayout().Moves("dr"))
	assert.Equal(t, "/db/prod", cfg.Source)
	assert.Equal(t, "/newdb/prod", cfg.Target)
}
