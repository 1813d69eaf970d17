package schedule

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/plan"
)

func placements(specs ...plan.Placement) *plan.Plan { return &plan.Plan{Tables: specs} }

func tbl(name, area string, bytes int64) plan.Placement {
	return plan.Placement{Table: "PUB." + name, DataArea: area, Bytes: bytes, Records: bytes / 100}
}

func withLOBs(p plan.Placement, lobs int64) plan.Placement { p.LOBBytes = lobs; return p }

// names lists each batch as area: tables.
func names(bs []Batch) [][]string {
	var out [][]string
	for _, b := range bs {
		row := []string{b.Area}
		for _, m := range b.Members {
			row = append(row, m.Table)
		}
		out = append(out, row)
	}
	return out
}

func TestBatches(t *testing.T) {
	tests := []struct {
		name string
		plan *plan.Plan
		o    BatchOptions
		skip func(plan.Placement) bool
		want [][]string
	}{
		{"off by default", placements(tbl("a", "A", 10), tbl("b", "A", 10)), BatchOptions{}, nil, nil},
		{"small tables of one area, in plan order", placements(tbl("a", "A", 10), tbl("big", "A", 5000), tbl("b", "A", 10), tbl("c", "A", 10)),
			BatchOptions{TableMax: 100}, nil, [][]string{{"A", "PUB.a", "PUB.b", "PUB.c"}}},
		{"never across areas", placements(tbl("a", "A", 10), tbl("x", "B", 10), tbl("b", "A", 10), tbl("y", "B", 10)),
			BatchOptions{TableMax: 100}, nil, [][]string{{"A", "PUB.a", "PUB.b"}, {"B", "PUB.x", "PUB.y"}}},
		{"a lone small table is no batch", placements(tbl("a", "A", 10), tbl("x", "B", 10), tbl("b", "A", 10)),
			BatchOptions{TableMax: 100}, nil, [][]string{{"A", "PUB.a", "PUB.b"}}},
		{"at most MaxTables", placements(tbl("a", "A", 1), tbl("b", "A", 1), tbl("c", "A", 1), tbl("d", "A", 1), tbl("e", "A", 1)),
			BatchOptions{TableMax: 100, MaxTables: 2}, nil, [][]string{{"A", "PUB.a", "PUB.b"}, {"A", "PUB.c", "PUB.d"}}},
		{"at most BatchMax bytes", placements(tbl("a", "A", 60), tbl("b", "A", 60), tbl("c", "A", 60), tbl("d", "A", 10)),
			BatchOptions{TableMax: 100, BatchMax: 130}, nil, [][]string{{"A", "PUB.a", "PUB.b"}, {"A", "PUB.c", "PUB.d"}}},
		// One start-up's worth of data a batch (BatchFactor): four, as
		// before, put a, b, c, d and e in one batch.
		{"BatchMax defaults to one start-up's worth", placements(tbl("a", "A", 60), tbl("b", "A", 30), tbl("c", "A", 60), tbl("d", "A", 10), tbl("e", "A", 30)),
			BatchOptions{TableMax: 100}, nil, [][]string{{"A", "PUB.a", "PUB.b"}, {"A", "PUB.c", "PUB.d", "PUB.e"}}},
		// The plan lists tables largest first: two tables near the limit
		// are not loaded one after the other in one call (seed003's
		// gltmp_det and glec_det), the largest loads alone.
		{"two tables near the limit never share a batch", placements(tbl("gltmp", "A", 80), tbl("glec", "A", 60), tbl("x", "A", 5), tbl("y", "A", 5)),
			BatchOptions{TableMax: 100}, nil, [][]string{{"A", "PUB.glec", "PUB.x", "PUB.y"}}},
		{"skipped tables stay out", placements(tbl("a", "A", 10), tbl("t", "A", 10), tbl("b", "A", 10)),
			BatchOptions{TableMax: 100}, func(p plan.Placement) bool { return p.Table == "PUB.t" }, [][]string{{"A", "PUB.a", "PUB.b"}}},
		// KB 000029044's layout: 16 KB of records, 611 MB of LOBs. Its dump
		// holds the LOBs (they go into the .bd), so it loads alone.
		{"a table whose data is its LOBs is not small", placements(tbl("a", "A", 10), withLOBs(tbl("attach", "A", 10), 5000), tbl("b", "A", 10)),
			BatchOptions{TableMax: 100}, nil, [][]string{{"A", "PUB.a", "PUB.b"}}},
		{"empty tables batch too", placements(tbl("a", "A", 0), tbl("b", "A", 0)),
			BatchOptions{TableMax: 100}, nil, [][]string{{"A", "PUB.a", "PUB.b"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, names(Batches(tt.plan, tt.o, tt.skip)))
		})
	}
}

func TestStartupBytes(t *testing.T) {
	tests := []struct {
		name string
		cost func(*Job) time.Duration
		want int64 // within 1 KiB
	}{
		// 300 ms at 50 MiB/s: 15 MiB.
		{"default cost", nil, 15 << 20},
		{"100 ms at 10 MB/s", func(j *Job) time.Duration {
			return 100*time.Millisecond + time.Duration(float64(j.Bytes)/10e6*float64(time.Second))
		}, 1e6},
		{"no start-up: nothing is start-up bound", func(j *Job) time.Duration { return time.Duration(j.Bytes) }, 0},
		{"no data cost: nothing to weigh", func(*Job) time.Duration { return time.Second }, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.InDelta(t, tt.want, StartupBytes(tt.cost), 1024)
		})
	}
}

func TestBuildBatches(t *testing.T) {
	p := placements(tbl("big", "A", 5e9), tbl("a", "A", 10), tbl("b", "A", 20), tbl("c", "B", 30))
	t.Run("overlapped: the batch waits for its tables' dumps", func(t *testing.T) {
		b, err := Build(p, BuildOptions{Batch: BatchOptions{TableMax: 100}})
		require.NoError(t, err)
		j := b.Job(LoadBatchID("A", 1))
		require.NotNil(t, j)
		assert.Equal(t, KindLoadBatch, j.Kind)
		assert.Equal(t, SlotLoad, j.Slot)
		assert.Equal(t, []Member{{"PUB.a", 0, 10}, {"PUB.b", 0, 20}}, j.Members)
		assert.Equal(t, int64(30), j.Bytes)
		assert.ElementsMatch(t, []string{string(KindCreateTarget), DumpID("PUB.a"), DumpID("PUB.b")}, j.Deps)
		assert.Nil(t, b.Job(LoadID("PUB.a", 0)), "a batched table has no load of its own")
		assert.NotNil(t, b.Job(LoadID("PUB.c", 0)), "alone in its area: loaded on its own")
		assert.NotNil(t, b.Job(LoadID("PUB.big", 0)))
		assert.Contains(t, b.Job(string(KindIdxbuild)).Deps, j.ID, "idxbuild waits for the batch")
		assert.Less(t, j.Cost, 2*DefaultCost(&Job{Kind: KindLoad}), "one start-up for the batch, not two")
	})
	t.Run("staged: the batch waits for every dump", func(t *testing.T) {
		b, err := Build(p, BuildOptions{Staged: true, Batch: BatchOptions{TableMax: 100}})
		require.NoError(t, err)
		assert.ElementsMatch(t, []string{string(KindCreateTarget), DumpsDoneID}, b.Job(LoadBatchID("A", 1)).Deps)
	})
	t.Run("threaded tables are never batched", func(t *testing.T) {
		b, err := Build(p, BuildOptions{ServeSource: true, ThreadedDumpMin: 15, DumpThreads: 2, Batch: BatchOptions{TableMax: 100}})
		require.NoError(t, err)
		assert.Nil(t, b.Job(LoadBatchID("A", 1)), "b and c dump with threads; a is alone")
	})
}
