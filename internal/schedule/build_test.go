package schedule

import (
	"context"
	"fmt"
	"testing"
	"time"

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

// manySmall is the shape that showed it: tables whose dumps are mostly
// start-up, more of them than dump slots.
func manySmall(n int) *plan.Plan {
	p := &plan.Plan{}
	for i := range n {
		p.Tables = append(p.Tables, plan.Placement{Table: fmt.Sprintf("PUB.t%03d", i), Bytes: 1 << 20, Records: 1 << 10, DataArea: "small_dat"})
	}
	return p
}

// The source's side jobs (tabanalys, .df, sequences, users) ranked
// below every table dump and so came last in the dump queue: the source
// was shut down, and the target's idxbuild started, only after them.
// Holding no slot, they run beside the dumps from the start.
func TestSideJobsEndBeforeTheLastDump(t *testing.T) {
	sideKinds := []Kind{KindAnalyzeSource, KindDumpDF, KindDumpSeq, KindDumpSecurity}
	tests := []struct {
		name  string
		serve bool
		slot  Slot
	}{
		{"served source: no slot, beside the dumps", true, SlotNone},
		{"single-user source: one utility at a time, the dump slot", false, SlotDump},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Build(manySmall(60), BuildOptions{ServeSource: tt.serve, ServeTarget: tt.serve})
			require.NoError(t, err)
			for _, k := range sideKinds {
				assert.Equal(t, tt.slot, b.Job(string(k)).Slot, k)
			}
			if !tt.serve {
				return
			}
			res, err := Dispatch(context.Background(), b.Graph, &clockExec{}, Options{Slots: map[Slot]int{SlotDump: 4, SlotLoad: 4}})
			require.NoError(t, err)
			require.NoError(t, res.Err())
			sp := spans(res)
			var lastDump time.Time
			for _, s := range res.Spans {
				if s.Job.Kind == KindDump && s.End.After(lastDump) {
					lastDump = s.End
				}
			}
			for _, k := range sideKinds {
				assert.False(t, sp[string(k)].End.After(lastDump), "%s ends at %v, after the last table dump at %v", k, sp[string(k)].End, lastDump)
			}
			assert.Equal(t, lastDump, sp[ShutdownID(DBSource)].Start, "the source is shut down as soon as the last table dump ends")
			for _, k := range sideKinds {
				assert.Equal(t, sp[ServeID(DBSource)].End, sp[string(k)].Start, "%s starts as soon as the source is served", k)
			}
		})
	}
}

// A source tabanalys that outlasts the loads (it shares the disk with the
// dumps) held the exclusive idxbuild, and the target's tabanalys after
// it, until it ended. idxbuild is alone on the target: it starts when the
// target's jobs end and the source's tabanalys goes on beside it; verify
// still waits for both tabanalys.
func TestIdxbuildOverlapsTheSourcesLastJobs(t *testing.T) {
	tests := []struct {
		name  string
		serve bool
	}{
		{"served", true},
		{"single-user", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cost := func(j *Job) time.Duration {
				if j.Kind == KindAnalyzeSource {
					return time.Hour
				}
				return DefaultCost(j)
			}
			b, err := Build(manySmall(20), BuildOptions{ServeSource: tt.serve, ServeTarget: tt.serve, Cost: cost})
			require.NoError(t, err)
			res, err := Dispatch(context.Background(), b.Graph, &clockExec{}, Options{Slots: map[Slot]int{SlotDump: 4, SlotLoad: 4}})
			require.NoError(t, err)
			require.NoError(t, res.Err())
			sp := spans(res)
			idx, src := sp[string(KindIdxbuild)], sp[string(KindAnalyzeSource)]
			assert.True(t, idx.Start.Before(src.End), "idxbuild starts at %v, not after the source's tabanalys (ends %v)", idx.Start, src.End)
			assert.False(t, sp[string(KindVerify)].Start.Before(src.End), "verify waits for the source's tabanalys")
			for _, s := range res.Spans {
				if s.Job.ID == idx.Job.ID || SourceSide(s.Job) {
					continue
				}
				assert.False(t, s.End.After(idx.Start) && s.Start.Before(idx.End), "%s overlaps idxbuild on the target", s.Job.ID)
			}
		})
	}
}
