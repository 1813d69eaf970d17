package plan

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/oedl/oedl/internal/openedge"
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

// Make decides the target layout and parameters for the tables of in.
// It is pure: the same input and options give the same plan, byte for byte
// once written, which keeps golden files and reviews meaningful.
func Make(in Input, o Options) (*Plan, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	tables, skipped, err := collect(in)
	if err != nil {
		return nil, err
	}
	dataDirs := o.DataDirs
	if len(dataDirs) == 0 {
		dataDirs = []string{"."}
		if o.Target != "" {
			dataDirs = []string{filepath.Dir(o.Target)}
		}
	}
	biDir := o.BIDir
	if biDir == "" {
		biDir = dataDirs[0]
	}

	p := &Plan{
		Version: PlanVersion,
		Source: Source{
			Database:  in.Analysis.Database,
			Tabanalys: in.AnalysisName,
			DF:        in.DFName,
			BlockSize: in.Analysis.BlockSize,
		},
		BlockSize: o.BlockSize,
		Machine:   o.Machine,
		Target:    o.Target,
		Policy: Policy{
			LargeBytes: o.LargeBytes, TopN: o.TopN, MediumBytes: o.MediumBytes,
			HeadroomPct: o.HeadroomPct, MaxExtentBytes: o.MaxExtentBytes,
			BlockOverhead: BlockOverhead, DataDirs: dataDirs, BIDir: biDir, AIDirs: o.AIDirs,
		},
		Skipped: skipped,
	}

	pools, placements := assign(tables, o)
	names := newAreaNamer()
	nameAreas(pools, names, o.BlockSize)
	lobArea := lobPool(tables, o, names)

	// Number the areas from 7: small pools, medium pools, large tables,
	// then the LOB area; each data area directly followed by its index
	// area, so that a .st reader sees the pairs together.
	ring := &dirRing{dirs: dataDirs}
	p.Schema = []Extent{{Path: ring.take()}}
	num := openedge.FirstUserAreaNum
	for _, pl := range pools {
		for i, a := range []*Area{pl.data, pl.index} {
			a.Number = num
			num++
			known := a.Kind == AreaData || hasIndexSummary(in.Analysis)
			space := []int64{pl.dataSpace, pl.indexSpace}[i]
			var why string
			if a.Extents, why, err = layoutExtents(a.Bytes, space, known, o, ring); err != nil {
				return nil, fmt.Errorf("area %s: %w", a.Name, err)
			}
			a.Reason += "; extents: " + why
			p.Areas = append(p.Areas, *a)
		}
	}
	if lobArea != nil {
		lobArea.Number = num
		lobArea.Extents = []Extent{{Path: ring.take()}}
		lobArea.Reason += "; extents: LOB sizes are not in tabanalys, so one variable extent"
		p.Areas = append(p.Areas, *lobArea)
	}

	for i, t := range tables {
		pl := placements[i]
		pt := &p.Tables
		*pt = append(*pt, Placement{
			Table: t.qualified(), Owner: t.owner, Name: t.name,
			Records: t.records, Bytes: t.bytes, MeanRecord: t.mean,
			Indexes: t.indexes, IndexBytes: t.indexBytes, SourceArea: t.sourceArea,
			Class: pl.class, RPB: pl.rpb, BPC: pl.bpc,
			DataArea: pl.pool.data.Name, IndexArea: pl.pool.index.Name, Reason: pl.reason,
		})
		if len(t.lobFields) > 0 {
			(*pt)[i].LOBArea = lobArea.Name
			(*pt)[i].Reason += fmt.Sprintf("; LOB field(s) %s to %s", strings.Join(t.lobFields, ", "), lobArea.Name)
		}
	}

	for _, t := range p.Tables {
		p.Totals.Tables++
		p.Totals.Records += t.Records
		p.Totals.Bytes += t.Bytes
		p.Totals.IndexBytes += t.IndexBytes
	}
	for _, a := range p.Areas {
		switch a.Kind {
		case AreaData:
			p.Totals.DataAreas++
		case AreaIndex:
			p.Totals.IndexAreas++
		case AreaLOB:
			p.Totals.LOBAreas++
		}
	}
	dbBytes := p.Totals.Bytes + p.Totals.IndexBytes
	p.Idxbuild = tuneIdxbuild(o.Machine, o.BlockSize)
	p.Startup, p.Processes = startupParams(o, dbBytes)
	p.BI = tuneBI(o, biDir)
	// Four variable AI extents, alternating over the AI directories (seed
	// 000 §6.10) so that a full extent is archived off one disk while the
	// next fills the other. After-imaging is begun after the load, which
	// runs without it, so nothing is pre-formatted.
	for i := 0; len(o.AIDirs) > 0 && i < aiExtents; i++ {
		p.AI = append(p.AI, Extent{Path: o.AIDirs[i%len(o.AIDirs)]})
	}
	return p, nil
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
		size := openedge.FormatSize(t.bytes)
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
				pl.reason = fmt.Sprintf("large: %s >= %s, so its own area (BPC %d)", size, openedge.FormatSize(o.LargeBytes), bpcLarge)
			case rank <= o.TopN:
				pl.class, pl.bpc = ClassLarge, bpcLarge
				pl.reason = fmt.Sprintf("large: %s is number %d by size (top %d), so its own area (BPC %d)", size, rank, o.TopN, bpcLarge)
			case t.bytes >= o.MediumBytes:
				pl.class, pl.bpc = ClassMedium, bpcMedium
				pl.reason = fmt.Sprintf("medium: %s >= %s, so the medium pool for RPB %d (BPC %d)", size, openedge.FormatSize(o.MediumBytes), pl.rpb, bpcMedium)
			default:
				pl.class, pl.bpc = ClassSmall, bpcSmall
				pl.reason = fmt.Sprintf("small: %s < %s, so the small pool for RPB %d (BPC %d)", size, openedge.FormatSize(o.MediumBytes), pl.rpb, bpcSmall)
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

// nameAreas creates the data and index area of each pool. Shared pools are
// named first so a table called "Small64" cannot take a pool's name.
func nameAreas(pools []*pool, names *areaNamer, blockSize int) {
	for _, pl := range pools {
		if pl.class == ClassLarge {
			continue
		}
		base := fmt.Sprintf("%s%d", titleCase(string(pl.class)), pl.rpb)
		pl.data = &Area{Name: names.name(base, "_Data"), Kind: AreaData, RPB: pl.rpb, BPC: bpcFor(pl.class)}
		pl.index = &Area{Name: names.name(base, "_Index"), Kind: AreaIndex, RPB: rpbIndex, BPC: bpcFor(pl.class)}
	}
	for _, pl := range pools {
		if pl.class != ClassLarge {
			continue
		}
		t := pl.tables[0]
		base := t.name
		if !strings.EqualFold(t.owner, "PUB") {
			base = t.owner + "_" + t.name
		}
		pl.data = &Area{Name: names.name(base, "_Data"), Kind: AreaData, RPB: pl.rpb, BPC: bpcLarge}
		pl.index = &Area{Name: names.name(base, "_Index"), Kind: AreaIndex, RPB: rpbIndex, BPC: bpcMedium}
	}
	for _, pl := range pools {
		fillPoolAreas(pl, blockSize)
	}
}

// fillPoolAreas lists the pool's tables in its areas, sums their sizes and
// writes the areas' reasons.
func fillPoolAreas(pl *pool, blockSize int) {
	var bytes, ixBytes int64
	for _, t := range pl.tables {
		pl.data.Tables = append(pl.data.Tables, t.qualified())
		pl.index.Tables = append(pl.index.Tables, t.qualified())
		bytes += t.bytes
		ixBytes += t.indexBytes
		d, ix := spaceFor(t, pl.rpb, pl.data.BPC, pl.index.BPC, blockSize)
		pl.dataSpace += d
		pl.indexSpace += ix
	}
	sort.Strings(pl.data.Tables)
	sort.Strings(pl.index.Tables)
	pl.data.Bytes, pl.index.Bytes = bytes, ixBytes
	n := len(pl.tables)
	switch pl.class {
	case ClassSmall:
		pl.data.Reason = fmt.Sprintf("shared data area of %d small table(s) with RPB %d; BPC %d: each object takes at least one cluster, so small clusters waste at most %d blocks per table",
			n, pl.rpb, bpcSmall, bpcSmall)
	case ClassMedium:
		pl.data.Reason = fmt.Sprintf("shared data area of %d medium table(s) with RPB %d; BPC %d: fewer cluster allocations while they load, at most %d blocks of slack each",
			n, pl.rpb, bpcMedium, bpcMedium)
	case ClassLarge:
		t := pl.tables[0]
		pl.data.Reason = fmt.Sprintf("own data area of %s (%s): its scans are sequential, its load and idxbuild can run beside the others, and truncate area or a later tablemove touch only it; BPC %d: the area grows 512 blocks at a time",
			t.qualified(), openedge.FormatSize(t.bytes), bpcLarge)
	}
	pl.index.Reason = fmt.Sprintf("indexes of the tables in %s: kept apart from the record blocks so each area holds one kind of block and idxbuild can go area by area; RPB %d: index blocks hold no records; BPC %d",
		pl.data.Name, rpbIndex, pl.index.BPC)
}

// lobPool makes the LOB area when any table has a blob or clob field. LOB
// sizes are not in tabanalys, so one shared area takes them all.
func lobPool(tables []*table, o Options, names *areaNamer) *Area {
	var with []string
	for _, t := range tables {
		if len(t.lobFields) > 0 {
			with = append(with, t.qualified())
		}
	}
	if len(with) == 0 {
		return nil
	}
	sort.Strings(with)
	return &Area{
		Name: names.name("LOB", "_Data"), Kind: AreaLOB, RPB: DefaultRPB(o.BlockSize), BPC: bpcLOB, Tables: with,
		Reason: fmt.Sprintf("LOB columns of %d table(s), in their own Type II area so that large chunks stay out of the record blocks; RPB %d, the OpenEdge default (it hardly matters for LOB data); BPC %d",
			len(with), DefaultRPB(o.BlockSize), bpcLOB),
	}
}

func bpcFor(c SizeClass) int {
	switch c {
	case ClassMedium:
		return bpcMedium
	case ClassLarge:
		return bpcLarge
	}
	return bpcSmall
}

func titleCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// hasIndexSummary tells whether the report has an index block summary
// (dbanalys, ixanalys) rather than only the record summary (tabanalys).
func hasIndexSummary(a *openedge.Analysis) bool { return len(a.Indexes) > 0 }
