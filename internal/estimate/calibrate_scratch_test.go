package estimate

import (
	"testing"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/plan"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSizeScratch: each area gets a fixed extent holding what the scratch
// will be given (the records' clusters in the data area, the indexes'
// clusters as many times as they are written in the index area) with
// headroom, then a variable extent; an area given nothing keeps one
// variable extent. Before, every area had one variable extent, and the
// timed loads and rebuilds paid its growth (docs/oesim.md, "Variable
// extents grow formatted").
func TestSizeScratch(t *testing.T) {
	// 1,000 records of 1,000 bytes at RPB 8 take 16 clusters of 8 blocks
	// (1 MiB); 2 indexes of 80 KiB, 2 clusters (128 KiB).
	// Its LOBs, 1 MiB of them, go to a LOB area of 64-block clusters: 130
	// blocks, 3 clusters (1.5 MiB); half of them, for half of the records,
	// 65 blocks in 2 clusters (1 MiB).
	placed := map[string]*plan.Placement{"PUB.t": {Table: "PUB.t", Records: 1000, Bytes: 1_000_000, Indexes: 2,
		IndexBytes: 80 << 10, LOBBytes: 1 << 20, RPB: 8, DataArea: "Data", IndexArea: "Index", LOBArea: "LOB"}}
	full := &sampleTable{name: "PUB.t", records: 1000, bytes: 1_000_000}
	half := &sampleTable{name: "PUB.t", records: 500, bytes: 500_000} // a dumpspecified slice
	const mib = 1 << 20
	tests := []struct {
		name      string
		fill      scratchFill
		wantData  int64 // bytes the data area's fixed extent must hold (0: variable only)
		wantIndex int64
		wantLOB   int64
	}{
		{"nothing: variable extents", scratchFill{}, 0, 0, 0},
		{"loads without indexes", scratchFill{tables: []*sampleTable{full}}, mib, 0, 3 * mib / 2},
		{"rebuilt four times", scratchFill{tables: []*sampleTable{full}, indexWrites: 4}, mib, 4 * 128 << 10, 3 * mib / 2},
		{"indexes built by the load", scratchFill{tables: []*sampleTable{full}, buildsIndexes: true}, mib, 128 << 10, 3 * mib / 2},
		{"a slice: its share", scratchFill{tables: []*sampleTable{half}, indexWrites: 1}, mib / 2, 128 << 10, mib},
		{"a table the plan does not place: nothing", scratchFill{tables: []*sampleTable{{name: "PUB.other", records: 5, bytes: 50}}}, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := &openedge.Structure{Areas: []*openedge.StructArea{
				{Type: openedge.AreaBeforeImage, Extents: []openedge.Extent{{Path: ".", Line: 1}}},
				{Type: openedge.AreaData, Name: "Schema Area", Number: 6, Extents: []openedge.Extent{{Path: ".", Line: 2}}},
				{Type: openedge.AreaData, Name: "Data", Number: 7, RPB: 8, BPC: 8, Extents: []openedge.Extent{{Path: "/db/x", Fixed: true, SizeKB: 1 << 20, Line: 3}, {Path: "/db/x", Line: 4}}},
				{Type: openedge.AreaData, Name: "Index", Number: 8, RPB: 1, BPC: 8, Extents: []openedge.Extent{{Path: "/db/x", Line: 5}}},
				{Type: openedge.AreaData, Name: "LOB", Number: 9, RPB: 64, BPC: 64, Extents: []openedge.Extent{{Path: "/db/x", Line: 6}}},
			}}
			sizeScratch(st, tt.fill, placed, 8192)
			for _, a := range st.Areas[:2] {
				assert.Equal(t, []openedge.Extent{{Path: ".", Line: a.Extents[0].Line}}, a.Extents, "%s: nothing loaded into it", a.Name)
			}
			for i, want := range []int64{tt.wantData, tt.wantIndex, tt.wantLOB} {
				a := st.Areas[2+i]
				line := []int{3, 5, 6}[i]
				if want == 0 {
					assert.Equal(t, []openedge.Extent{{Path: ".", Line: line}}, a.Extents, a.Name)
					continue
				}
				require.Len(t, a.Extents, 2, a.Name)
				fixed := a.Extents[0]
				assert.True(t, fixed.Fixed, a.Name)
				assert.Equal(t, openedge.Extent{Path: ".", Line: line}, a.Extents[1], "%s: then a variable extent", a.Name)
				assert.Zero(t, fixed.SizeKB%128, "%s: a multiple of 16 blocks", a.Name)
				assert.GreaterOrEqual(t, fixed.SizeKB*1024, want+want/2, "%s: the sample and its headroom", a.Name)
				assert.LessOrEqual(t, fixed.SizeKB*1024, 2*want, "%s: not much more", a.Name)
			}
		})
	}
}
