package gen

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// wideTables is the wide profile's table count. Real ERP schemas
// (SAP-like, Datasul/TOTVS) have 5,000 to 20,000 tables, almost all of
// them tiny; the wide profile is such a schema cut to a few thousand
// tables so that a real run of it on oesim (a utility call or more per
// table) takes minutes: it measures oedl's own work per table, not the
// utilities' throughput.
const wideTables = 4000

// buildWide is the erp profile's "before" structure and naming with
// wideTables tables sharing the scale by heavy-tailed weights, as the
// erp profile's long tail does: most hold a handful of records.
func buildWide(scale int64, seed uint64) (*Database, error) {
	r := rand.New(rand.NewPCG(erpSchemaSeed, 4))
	weights := make([]float64, wideTables)
	var wsum float64
	for i := range weights {
		weights[i] = math.Exp(2 * min(max(r.NormFloat64(), -3), 2))
		wsum += weights[i]
	}
	specs := make([]*tableSpec, 0, wideTables)
	for i, w := range weights {
		name := fmt.Sprintf("w%04d%s", i, suffixes[i%len(suffixes)])
		a := archetypeOf(name)
		s := build(name, a, tailMean(a, r), r.IntN(25) == 0) // a few word indexes, as the erp tail has
		s.records = max(1, int64(math.Round(w/wsum*float64(scale)/float64(s.mean))))
		s.area = erpArea(name, r)
		s.idxArea = s.area
		if s.area != areaSchema {
			s.idxArea = s.area + "_IDX"
		}
		limitIndexes(s, r)
		specs = append(specs, s)
	}
	db, err := assemble("wide", erpST, specs, seed)
	if err != nil {
		return nil, err
	}
	return db.finish(), nil
}
