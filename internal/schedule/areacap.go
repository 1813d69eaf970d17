package schedule

import (
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/plan"
)

// AreaLoadCaps are the per-area load caps of Options for a --loads-per-area
// of n: n > 0 caps every area at n, n < 0 caps none, and n == 0 (the
// default) decides by the area's type.
//
// One load per area is Type I advice: a Type I area's blocks are shared by
// every table in it, so concurrent loads interleave their records block by
// block and each table ends up scattered (slower to dump, scan and
// rebuild). In a Type II area (8, 64 or 512 blocks per cluster) a cluster
// belongs to one object, so concurrent loads into one area each fill their
// own clusters: it is as safe and as tidy as loads into separate areas, and
// the cap would only queue the many small tables a small-table area holds.
// An area the plan does not describe (the Schema Area, which is Type I) is
// taken as Type I. Concurrent loads need a served target either way
// (BuildOptions.ServeTarget), as OpenEdge allows one single-user utility.
func AreaLoadCaps(p *plan.Plan, n int) (perArea int, areas map[string]int) {
	switch {
	case n > 0:
		return n, nil
	case n < 0:
		return 0, nil
	}
	typeII := map[string]bool{}
	for _, a := range p.Areas {
		typeII[a.Name] = (&openedge.StructArea{BPC: a.BPC}).TypeII()
	}
	areas = map[string]int{}
	for _, t := range p.Tables {
		if t.DataArea != "" && !typeII[t.DataArea] {
			areas[t.DataArea] = 1
		}
	}
	return 0, areas
}
