package estimate

import (
	"math"
	"strings"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/plan"
)

// scratchFill is what one scratch database will be given: the sample
// tables loaded into it, and how many times idxbuild writes their indexes
// (a rebuild writes new index blocks before it frees the old ones; a load
// with "build indexes" writes them once).
type scratchFill struct {
	tables        []*sampleTable
	indexWrites   int
	buildsIndexes bool
}

// scratchHeadroom is the share of the sample's counted space the fixed
// extents hold beyond it: a table's space is counted as the plan counts
// it (plan.Placement.Space), and a timed call must not reach the variable
// extent whatever the estimate of its records' blocks missed.
const scratchHeadroom = 0.5

// sizeScratch gives each area of st a fixed extent holding what fill puts
// in it (records, LOBs, indexes), then the variable extent: the timed loads and rebuilds grow no
// extent, so that their rates are those of writing data into formatted
// blocks, and a target on fixed extents does not pay the formatting twice
// (its extents at create, then again in the rates), while the estimate
// prices a variable extent's growth on its own (vargrow.go). An area the
// fill puts nothing in keeps one variable extent. tables are the plan's
// placements by owner.table.
func sizeScratch(st *openedge.Structure, fill scratchFill, tables map[string]*plan.Placement, blockSize int) {
	need := map[string]int64{}
	bpc := map[string]int{}
	for _, a := range st.Areas {
		bpc[strings.ToLower(a.Name)] = a.BPC
	}
	m := DefaultModel()
	for _, t := range fill.tables {
		p := tables[t.name]
		if p == nil || t.records <= 0 {
			continue
		}
		// The sample's part of the table: a dumpspecified slice of the
		// largest is fewer records than the plan's.
		s := *p
		s.Records, s.Bytes = t.records, t.bytes
		if p.IndexBytes > 0 && p.Records > 0 {
			s.IndexBytes = int64(math.Ceil(float64(p.IndexBytes) * float64(t.records) / float64(p.Records)))
		} else {
			s.IndexBytes = int64(math.Ceil(float64(t.records) * m.keysPerRecord(p) * m.Idxbuild.KeyBytes))
		}
		if p.Records > 0 {
			s.LOBBytes = int64(math.Ceil(float64(p.LOBBytes) * float64(t.records) / float64(p.Records)))
		}
		data, index := s.Space(blockSize, bpc[strings.ToLower(p.DataArea)], bpc[strings.ToLower(p.IndexArea)])
		need[strings.ToLower(p.DataArea)] += data
		if p.LOBArea != "" {
			need[strings.ToLower(p.LOBArea)] += s.LOBSpace(blockSize)
		}
		writes := fill.indexWrites
		if fill.buildsIndexes {
			writes++
		}
		need[strings.ToLower(p.IndexArea)] += index * int64(writes)
	}
	for _, a := range st.Areas {
		if len(a.Extents) == 0 {
			continue
		}
		line := a.Extents[0].Line
		n := need[strings.ToLower(a.Name)]
		if n <= 0 {
			a.Extents = []openedge.Extent{{Path: ".", Line: line}}
			continue
		}
		cluster := int64(max(1, a.BPC) * blockSize)
		kb := openedge.RoundExtentKB((int64(float64(n)*(1+scratchHeadroom))+cluster+1023)/1024, blockSize)
		a.Extents = []openedge.Extent{{Path: ".", Fixed: true, SizeKB: kb, Line: line}, {Path: ".", Line: line}}
	}
}
