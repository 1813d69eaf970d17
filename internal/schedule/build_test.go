package schedule

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/plan"
)

func twoTables() *plan.Plan {
	return &plan.Plan{Tables: []plan.Placement{
		{Table: "PUB.big", Bytes: 5e9, Records: 1e7, DataArea: "big_dat"},
		{Table: "PUB.small", Bytes: 1e6, Records: 1e3, DataArea: "misc_dat"},
	}}
}

func TestBuildShapes(t *testing.T) {
	t.Run("overlapped: a load waits for its own dump only", func(t *testing.T) {
		b, err := Build(twoTables(), BuildOptions{})
		require.NoError(t, err)
		assert.ElementsMatch(t, []string{DumpID("PUB.small"), string(KindCreateTarget)}, b.Job(LoadID("PUB.small", 0)).Deps)
		assert.Equal(t, "misc_dat", b.Job(LoadID("PUB.small", 0)).Area)
		assert.Equal(t, string(KindIdxbuild), b.LoadBarrier)
	})
	t.Run("staged: every load waits for every dump", func(t *testing.T) {
		b, err := Build(twoTables(), BuildOptions{Staged: true})
		require.NoError(t, err)
		assert.Contains(t, b.Job(LoadID("PUB.small", 0)).Deps, DumpsDoneID)
		barrier := b.Job(DumpsDoneID)
		assert.Equal(t, KindBarrier, barrier.Kind)
		assert.ElementsMatch(t, []string{DumpID("PUB.big"), DumpID("PUB.small")}, barrier.Deps)
		assert.Zero(t, barrier.Cost, "a barrier does no work")
	})
	t.Run("threaded dumps have no load up front; SectionLoad builds them", func(t *testing.T) {
		b, err := Build(twoTables(), BuildOptions{ServeSource: true, ServeTarget: true, ThreadedDumpMin: 1e9, DumpThreads: 4})
		require.NoError(t, err)
		assert.Equal(t, 4, b.Job(DumpID("PUB.big")).Threads)
		ranks := b.Ranks()
		assert.Greater(t, ranks[DumpID("PUB.big")], ranks[DumpID("PUB.small")],
			"the threaded dump's rank counts the loads it will add, so the big table still starts first")
		assert.Nil(t, b.Job(LoadID("PUB.big", 0)))
		assert.Equal(t, ShutdownID(DBTarget), b.LoadBarrier)
		l := b.SectionLoad(b.Job(DumpID("PUB.big")), 2, 10, 100)
		assert.Equal(t, "load:PUB.big:2", l.ID)
		assert.Equal(t, []string{ServeID(DBTarget)}, l.Deps)
		assert.Equal(t, []string{ShutdownID(DBTarget)}, l.Before)
		assert.Equal(t, "big_dat", l.Area)
		assert.Equal(t, SlotLoad, l.Slot)
		assert.Positive(t, l.Cost)
	})
	t.Run("no tables", func(t *testing.T) {
		_, err := Build(&plan.Plan{}, BuildOptions{})
		assert.Error(t, err)
	})
}

func TestGraphErrors(t *testing.T) {
	_, err := NewGraph([]*Job{{ID: "a", Deps: []string{"b"}}, {ID: "b", Deps: []string{"a"}}})
	assert.ErrorContains(t, err, "cycle")
	_, err = NewGraph([]*Job{{ID: "a", Deps: []string{"nope"}}})
	assert.ErrorContains(t, err, "unknown job nope")
	_, err = NewGraph([]*Job{{ID: "a"}, {ID: "a"}})
	assert.ErrorContains(t, err, "duplicate")
}

func TestCriticalPath(t *testing.T) {
	g, err := NewGraph([]*Job{job("a", 1), job("b", 10, "a"), job("c", 2, "a"), job("d", 1, "b", "c")})
	require.NoError(t, err)
	var ids []string
	for _, j := range g.CriticalPath() {
		ids = append(ids, j.ID)
	}
	assert.Equal(t, []string{"a", "b", "d"}, ids)
}
