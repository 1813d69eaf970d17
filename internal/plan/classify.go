package plan

import (
	"fmt"
	"sort"

	"github.com/oedl/oedl/internal/units"
)

// Cluster sizes (blocks per cluster) per class. A Type II cluster belongs
// to one object, so the first record of a table allocates a whole cluster
// and so does the first key of each index (KB P81745: 500 tiny tables in a
// BPC 512 area on 8K blocks take about 4,000M).
const (
	bpcSmall  = 8
	bpcMedium = 64
	bpcLarge  = 512
	bpcLOB    = 64
	rpbIndex  = 1 // index blocks hold no records; seed 003's .st uses 1
	aiExtents = 4
)

// pool is one group of tables that share a data area and an index area.
type pool struct {
	class  SizeClass // small (empty tables included), medium or large
	rpb    int
	tables []*table
	data   *Area
	index  *Area
	// dataSpace, indexSpace: what the tables take on disk (spaceFor).
	dataSpace, indexSpace int64
}

// placement is the decision for one table, before area names exist.
type placement struct {
	class  SizeClass
	rpb    int
	bpc    int
	pool   *pool
	reason string
}

// assign classifies every table (tables are largest first) and groups
// them into pools, returned in area-number order.
func assign(tables []*table, o Options) ([]*pool, []placement) {
	var large []*pool
	shared := map[string]*pool{}
	out := make([]placement, len(tables))
	rank := 0 // rank among non-empty tables, for --top
	for i, t := range tables {
		var pl placement
		size := units.FormatIEC(t.bytes)
		if t.records == 0 && t.bytes == 0 {
			pl.class = ClassEmpty
			pl.rpb = DefaultRPB(o.BlockSize)
			pl.bpc = bpcSmall
			pl.reason = fmt.Sprintf("empty: no records to size it by, so the small pool (BPC %d) with the default RPB %d for %d-byte blocks",
				bpcSmall, pl.rpb, o.BlockSize)
		} else {
			rank++
			pl.rpb = RPB(o.BlockSize, t.mean)
			rpbWhy := rpbReason(o.BlockSize, t.mean, pl.rpb)
			switch {
			case t.bytes >= o.LargeBytes:
				pl.class, pl.bpc = ClassLarge, bpcLarge
				pl.reason = fmt.Sprintf("large: %s >= %s, so its own area (BPC %d)", size, units.FormatIEC(o.LargeBytes), bpcLarge)
			case rank <= o.TopN:
				pl.class, pl.bpc = ClassLarge, bpcLarge
				pl.reason = fmt.Sprintf("large: %s is number %d by size (top %d), so its own area (BPC %d)", size, rank, o.TopN, bpcLarge)
			case t.bytes >= o.MediumBytes:
				pl.class, pl.bpc = ClassMedium, bpcMedium
				pl.reason = fmt.Sprintf("medium: %s >= %s, so the medium pool for RPB %d (BPC %d)", size, units.FormatIEC(o.MediumBytes), pl.rpb, bpcMedium)
			default:
				pl.class, pl.bpc = ClassSmall, bpcSmall
				pl.reason = fmt.Sprintf("small: %s < %s, so the small pool for RPB %d (BPC %d)", size, units.FormatIEC(o.MediumBytes), pl.rpb, bpcSmall)
			}
			pl.reason += "; " + rpbWhy
		}
		if pl.class == ClassLarge {
			pl.pool = &pool{class: ClassLarge, rpb: pl.rpb}
			large = append(large, pl.pool)
		} else {
			class := pl.class
			if class == ClassEmpty {
				class = ClassSmall
			}
			key := fmt.Sprintf("%s/%d", class, pl.rpb)
			if shared[key] == nil {
				shared[key] = &pool{class: class, rpb: pl.rpb}
			}
			pl.pool = shared[key]
		}
		pl.pool.tables = append(pl.pool.tables, t)
		out[i] = pl
	}
	var pools []*pool
	for _, p := range shared {
		pools = append(pools, p)
	}
	sort.Slice(pools, func(i, j int) bool {
		if pools[i].class != pools[j].class {
			return pools[i].class == ClassSmall // small before medium
		}
		return pools[i].rpb < pools[j].rpb
	})
	return append(pools, large...), out
}
