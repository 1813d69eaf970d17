package estimate

import (
	"math"
	"strings"

	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/schedule"
)

// growth is the bytes of variable extent one table's objects add to the
// target's areas: its records and LOBs (written by its load) and its indexes
// (written by idxbuild, or by the load that builds them). OpenEdge formats
// every block it adds to a variable extent, as prostrct create formats a
// fixed extent's (docs/oesim.md, "Variable extents grow formatted"), so
// these bytes are written once more than the data, in sequence.
type growth struct{ data, index float64 }

// variableGrowth is the growth of every table of p with records, by
// lower-case owner.table. A table's space in an area is counted as the
// plan sizes fixed extents (plan.Placement.Space: whole blocks, by RPB or
// by bytes, then whole clusters; at least one cluster per index); the
// part of an area's space beyond its fixed extents grows its variable
// extent, and each table pays its share of that part (an area with no
// fixed extent: all of its space; one whose fixed extents hold it all:
// none); a table's LOBs grow its LOB area with its load. A plan without
// the index summary has no index bytes: the model's sort record per key
// stands for them (more than a B-tree's prefix compressed entries; most
// small tables' indexes take their one cluster either way).
func variableGrowth(p *plan.Plan, m *Model) map[string]growth {
	bs := p.BlockSize
	if bs <= 0 {
		bs = defaultRandomKB * 1024
	}
	areas := make(map[string]*plan.Area, len(p.Areas))
	for i := range p.Areas {
		areas[strings.ToLower(p.Areas[i].Name)] = &p.Areas[i]
	}
	bpc := func(area string) int {
		if a := areas[strings.ToLower(area)]; a != nil {
			return a.BPC
		}
		return 1
	}
	type space struct{ data, index, lob int64 }
	spaces := make(map[string]space, len(p.Tables))
	need := map[string]int64{}
	for i := range p.Tables {
		t := p.Tables[i]
		if t.Records <= 0 {
			continue // nothing loaded, no key to build
		}
		if t.IndexBytes <= 0 && t.Indexes > 0 {
			t.IndexBytes = int64(math.Ceil(float64(t.Records) * m.keysPerRecord(&t) * m.Idxbuild.KeyBytes))
		}
		var s space
		s.data, s.index = t.Space(bs, bpc(t.DataArea), bpc(t.IndexArea))
		need[strings.ToLower(t.DataArea)] += s.data
		need[strings.ToLower(t.IndexArea)] += s.index
		if t.LOBArea != "" {
			s.lob = t.LOBSpace(bs)
			need[strings.ToLower(t.LOBArea)] += s.lob
		}
		spaces[strings.ToLower(t.Table)] = s
	}
	share := func(area string) float64 {
		a, n := areas[strings.ToLower(area)], need[strings.ToLower(area)]
		if a == nil || n <= 0 || len(a.Extents) == 0 || a.Extents[len(a.Extents)-1].Fixed {
			return 0 // not an area of the plan's, or no variable extent to grow
		}
		var fixed int64
		for _, x := range a.Extents {
			if x.Fixed {
				fixed += x.SizeKB * 1024
			}
		}
		return math.Max(0, float64(n-fixed)) / float64(n)
	}
	out := make(map[string]growth, len(spaces))
	for _, t := range p.Tables {
		if s, ok := spaces[strings.ToLower(t.Table)]; ok {
			// The load writes the records and the LOBs.
			data := float64(s.data)*share(t.DataArea) + float64(s.lob)*share(t.LOBArea)
			out[strings.ToLower(t.Table)] = growth{data: data, index: float64(s.index) * share(t.IndexArea)}
		}
	}
	return out
}

// loadGrowth is the bytes of variable extent a load job adds: each of a
// batch's tables whole, a table's or a .bd section's share of it.
func (cc *costContext) loadGrowth(j *schedule.Job) growth {
	if j.Kind == schedule.KindLoadBatch {
		var g growth
		for _, mb := range j.Members {
			one := cc.growth[strings.ToLower(mb.Table)]
			g.data += one.data
			g.index += one.index
		}
		return g
	}
	g := cc.growth[strings.ToLower(j.Table)]
	if t := cc.tables[strings.ToLower(j.Table)]; t != nil && t.DumpBytes() > 0 && j.Bytes < t.DumpBytes() {
		part := float64(j.Bytes) / float64(t.DumpBytes())
		g.data, g.index = g.data*part, g.index*part
	}
	return g
}

// formatting is the device traffic of formatting bytes of extent: written
// in sequence, at the calibrated rate prostrct create's fixed extents pay.
func (m *Model) formatting(bytes float64) ioShape {
	return ioShape{write: bytes * m.ExtentWritePerByte}
}
