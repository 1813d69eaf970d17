package schedule

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/plan"
)

// erpLike is a few big tables and a long tail, as the erp profile is.
func erpLike() *plan.Plan {
	p := &plan.Plan{}
	for i, mb := range []int64{900, 600, 400, 250} {
		p.Tables = append(p.Tables, plan.Placement{Table: fmt.Sprintf("PUB.big%d", i), Bytes: mb << 20, Records: mb << 10, DataArea: fmt.Sprintf("big%d_dat", i)})
	}
	for i := range 30 {
		p.Tables = append(p.Tables, plan.Placement{Table: fmt.Sprintf("PUB.t%02d", i), Bytes: int64(i+1) << 18, Records: int64(i+1) << 8, DataArea: "small_dat"})
	}
	return p
}

func threeHosts(moves map[string]bool) *Hosts {
	return &Hosts{Source: "prod", Replicas: []string{"dr"}, Target: "new", Moves: func(h string) bool { return moves[h] }}
}

func dumpsOn(b *Built) map[string][]string {
	out := map[string][]string{}
	for _, j := range b.Jobs() {
		if j.Kind == KindDump {
			out[j.Host] = append(out[j.Host], j.Table)
		}
	}
	return out
}

func TestBuildOnHosts(t *testing.T) {
	b, err := Build(erpLike(), BuildOptions{ServeSource: true, ServeTarget: true, Hosts: threeHosts(map[string]bool{"prod": true, "dr": true})})
	require.NoError(t, err)
	on := dumpsOn(b)
	assert.Contains(t, on["dr"], "PUB.big0", "the largest table is dumped on the replica: the source's disk also reads the baseline")
	assert.NotEmpty(t, on["prod"], "the source dumps its share")
	assert.Len(t, append(on["prod"], on["dr"]...), 34)

	// Where everything else runs.
	for id, host := range map[string]string{
		string(KindPreflight): "", string(KindVerify): "", ProveReplicaID("dr"): "",
		string(KindAnalyzeSource): "prod", string(KindDumpDF): "prod", string(KindDumpSeq): "prod", string(KindDumpSecurity): "prod", ServeID(DBSource): "prod",
		AnalyzeReplicaID("dr"): "dr", ServeID(ReplicaDB("dr")): "dr", ShutdownID(ReplicaDB("dr")): "dr",
		string(KindCreateTarget): "new", ServeID(DBTarget): "new", string(KindIdxbuild): "new", string(KindLoadSeq): "new", string(KindLoadSecurity): "new",
		string(KindAnalyzeTarget): "new", string(KindPost): "new", LoadID("PUB.t00", 0): "new",
	} {
		require.NotNil(t, b.Job(id), id)
		assert.Equal(t, host, b.Job(id).Host, id)
	}
	// A replica's dumps wait for its proof, which waits for both baselines.
	assert.ElementsMatch(t, []string{string(KindAnalyzeSource), AnalyzeReplicaID("dr")}, b.Job(ProveReplicaID("dr")).Deps)
	for _, tbl := range on["dr"] {
		assert.Equal(t, []string{ProveReplicaID("dr")}, b.Job(DumpID(tbl)).Deps)
		assert.Equal(t, Slot("dump@dr"), b.Job(DumpID(tbl)).Slot)
	}
	for _, tbl := range on["prod"] {
		assert.Equal(t, []string{ServeID(DBSource)}, b.Job(DumpID(tbl)).Deps)
	}
	// Every table moves (no host shares the target's machine); its load
	// waits for the move.
	mv := b.Job(MoveID("PUB.t00", 0))
	require.NotNil(t, mv)
	assert.Equal(t, SlotMove, mv.Slot)
	assert.Equal(t, []string{DumpID("PUB.t00")}, mv.Deps)
	assert.ElementsMatch(t, []string{MoveID("PUB.t00", 0), ServeID(DBTarget)}, b.Job(LoadID("PUB.t00", 0)).Deps)
	assert.Equal(t, Slot("load@new"), b.Job(LoadID("PUB.t00", 0)).Slot)
	assert.Contains(t, b.Job(ShutdownID(ReplicaDB("dr"))).Deps, DumpID("PUB.big0"))
}

func TestBuildOnHostsSameMachine(t *testing.T) {
	// The source and the target on one machine: only the replica's dumps move.
	b, err := Build(erpLike(), BuildOptions{Hosts: threeHosts(map[string]bool{"dr": true})})
	require.NoError(t, err)
	for _, j := range b.Jobs() {
		if j.Kind == KindDump {
			assert.Equal(t, j.Host == "dr", b.Job(MoveID(j.Table, 0)) != nil, j.Table)
		}
	}
}

// The placement follows the hosts' speed, not a count: a replica half again
// as slow takes less, a faster one more (one three times slower takes
// nothing: its own proof would end after the source had dumped it all).
func TestPlacementFollowsCost(t *testing.T) {
	share := func(factor float64) int64 {
		cost := func(j *Job) time.Duration {
			d := DefaultCost(j)
			if j.Host == "dr" && j.Kind != KindMove {
				d = time.Duration(float64(d) * factor)
			}
			return d
		}
		b, err := Build(erpLike(), BuildOptions{Cost: cost, Hosts: threeHosts(map[string]bool{"prod": true, "dr": true})})
		require.NoError(t, err)
		var bytes int64
		for _, j := range b.Jobs() {
			if j.Kind == KindDump && j.Host == "dr" {
				bytes += j.Bytes
			}
		}
		return bytes
	}
	slow, even, fast := share(1.5), share(1), share(0.3)
	assert.Less(t, slow, even)
	assert.Less(t, even, fast)
	assert.Positive(t, slow)
	assert.Zero(t, share(3))
}

func TestSectionJobsMove(t *testing.T) {
	b, err := Build(erpLike(), BuildOptions{ServeSource: true, ServeTarget: true, ThreadedDumpMin: 300 << 20, DumpThreads: 3,
		Hosts: threeHosts(map[string]bool{"prod": true, "dr": true})})
	require.NoError(t, err)
	d := b.Job(DumpID("PUB.big0"))
	require.Equal(t, 3, d.Threads)
	assert.Nil(t, b.Job(MoveID("PUB.big0", 0)), "a threaded dump moves section by section")
	js := b.SectionJobs(d, 2, 10, 100)
	require.Len(t, js, 2)
	assert.Equal(t, "move:PUB.big0:2", js[0].ID)
	assert.Empty(t, js[0].Deps, "a section moves as soon as it lands, while the dump goes on")
	assert.Equal(t, "load:PUB.big0:2", js[1].ID)
	assert.ElementsMatch(t, []string{ServeID(DBTarget), js[0].ID}, js[1].Deps)
	assert.Equal(t, "new", js[1].Host)

	one, err := Build(erpLike(), BuildOptions{ServeSource: true, ServeTarget: true, ThreadedDumpMin: 300 << 20, DumpThreads: 3})
	require.NoError(t, err)
	assert.Len(t, one.SectionJobs(one.Job(DumpID("PUB.big0")), 2, 10, 100), 1, "one machine: nothing moves")
}
