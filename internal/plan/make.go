package plan

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/units"
)

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
	dataDirs := slices.Clone(o.DataDirs) // the plan must not alias the caller's slices
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
			Database:     in.Analysis.Database,
			Tabanalys:    in.AnalysisName,
			DF:           in.DFName,
			BlockSize:    in.Analysis.BlockSize,
			IndexSummary: hasIndexSummary(in.Analysis),
			LOBSummary:   len(in.Analysis.LOBs) > 0,
			Approximate:  in.Analysis.InUse,
		},
		BlockSize: o.BlockSize,
		Machine:   o.Machine,
		Target:    o.Target,
		Policy: Policy{
			LargeBytes: o.LargeBytes, TopN: o.TopN, MediumBytes: o.MediumBytes,
			HeadroomPct: o.HeadroomPct, MaxExtentBytes: o.MaxExtentBytes,
			BlockOverhead: BlockOverhead, DataDirs: dataDirs, BIDir: biDir, AIDirs: slices.Clone(o.AIDirs),
		},
		Skipped: skipped,
	}

	pools, placements := assign(tables, o)
	names := newAreaNamer()
	nameAreas(pools, names, o.BlockSize, o.LargeBytes)
	lob := lobPool(tables, o, names)
	ring := newDirRing(dataDirs)
	p.Schema = []Extent{{Path: ring.variable()}}
	if err := p.layoutAreas(pools, lob, hasIndexSummary(in.Analysis), p.Source.LOBSummary, o, ring); err != nil {
		return nil, err
	}
	p.Tables = placementsOf(tables, placements, lob)
	p.Idxbuild = tuneIdxbuild(o.Machine, o.BlockSize)
	p.BI = tuneBI(o, biDir, recordBytes(p.Tables))
	p.Totals = totalsOf(p)
	p.LargeFiles = len(p.Structure().LargeFileExtents(p.BlockSize)) > 0
	p.Startup, p.Processes = startupParams(o, p.Totals.Bytes+p.Totals.IndexBytes)
	if b2, ok := b2Param(alternatePoolOf(in, tables, o.BlockSize), o); ok {
		p.Startup = append(p.Startup, b2)
	}
	// Four variable AI extents, alternating over the AI directories (seed
	// 000 §6.10) so that a full extent is archived off one disk while the
	// next fills the other. After-imaging is begun after the load, which
	// runs without it, so nothing is pre-formatted.
	for i := 0; len(o.AIDirs) > 0 && i < aiExtents; i++ {
		p.AI = append(p.AI, Extent{Path: o.AIDirs[i%len(o.AIDirs)]})
	}
	return p, nil
}

// layoutAreas numbers the areas from 7 (small pools, medium pools, large
// tables, then the LOB area; each data area directly followed by its index
// area, so that a .st reader sees the pairs together) and sizes their
// extents.
func (p *Plan) layoutAreas(pools []*pool, lob *Area, indexSizesKnown, lobSizesKnown bool, o Options, ring *dirRing) error {
	num := openedge.FirstUserAreaNum
	for _, pl := range pools {
		for _, a := range []struct {
			area  *Area
			space int64
			known bool
		}{{pl.data, pl.dataSpace, true}, {pl.index, pl.indexSpace, indexSizesKnown}} {
			a.area.Number = num
			num++
			ext, why, err := layoutExtents(a.area.Bytes, a.space, a.known, o, ring)
			if err != nil {
				return fmt.Errorf("area %s: %w", a.area.Name, err)
			}
			a.area.Extents = ext
			a.area.Reason += "; extents: " + why
			p.Areas = append(p.Areas, *a.area)
		}
	}
	if lob != nil {
		lob.Number = num
		if !lobSizesKnown {
			lob.Extents = []Extent{{Path: ring.variable()}}
			lob.Reason += "; extents: LOB sizes unknown (the report has no LOB SUMMARY: reports before 11.6 have none), so one variable extent"
			p.Areas = append(p.Areas, *lob)
			return nil
		}
		ext, why, err := layoutExtents(lob.Bytes, lobSpace(lob.Bytes, o.BlockSize), true, o, ring)
		if err != nil {
			return fmt.Errorf("area %s: %w", lob.Name, err)
		}
		lob.Extents = ext
		lob.Reason += "; extents (LOB sizes from the report's LOB SUMMARY): " + why
		p.Areas = append(p.Areas, *lob)
	}
	return nil
}

// placementsOf turns the decisions into the plan's table list, in the
// order of tables (largest first).
func placementsOf(tables []*table, decided []placement, lob *Area) []Placement {
	out := make([]Placement, len(tables))
	for i, t := range tables {
		d := decided[i]
		out[i] = Placement{
			Table: t.qualified(), Owner: t.owner, Name: t.name,
			Records: t.records, Bytes: t.bytes, MeanRecord: t.mean, LOBBytes: t.lobBytes,
			Indexes: t.indexes, WordIndexes: t.wordIndexes, IndexBytes: t.indexBytes, SourceArea: t.sourceArea,
			Class: d.class, RPB: d.rpb, BPC: d.bpc,
			DataArea: d.pool.data.Name, IndexArea: d.pool.index.Name, Reason: d.reason,
		}
		if len(t.lobFields) > 0 {
			out[i].LOBArea = lob.Name
			out[i].Reason += fmt.Sprintf("; LOB field(s) %s to %s", strings.Join(t.lobFields, ", "), lob.Name)
			if t.lobBytes > 0 {
				out[i].Reason += fmt.Sprintf(" (%s of LOBs)", units.FormatIEC(t.lobBytes))
			}
		}
		out[i].Reason += inactiveNote(t)
	}
	return out
}

// recordBytes is the bytes of the records the load will write.
func recordBytes(tables []Placement) int64 {
	var n int64
	for _, t := range tables {
		n += t.Bytes
	}
	return n
}

func totalsOf(p *Plan) Totals {
	var tot Totals
	for _, t := range p.Tables {
		tot.Tables++
		tot.Records += t.Records
		tot.Bytes += t.Bytes
		tot.IndexBytes += t.IndexBytes
	}
	for _, du := range p.DiskUse() {
		tot.FixedBytes += du.FixedBytes
	}
	for _, a := range p.Areas {
		switch a.Kind {
		case AreaData:
			tot.DataAreas++
		case AreaIndex:
			tot.IndexAreas++
		case AreaLOB:
			tot.LOBAreas++
		}
	}
	return tot
}

// hasIndexSummary tells whether the report has an index block summary
// (dbanalys, ixanalys) rather than only the record summary (tabanalys).
func hasIndexSummary(a *openedge.Analysis) bool { return len(a.Indexes) > 0 }

// DirUse is the fixed-extent space a plan puts in one directory.
type DirUse struct {
	Dir        string
	FixedBytes int64
	Extents    int // fixed and variable
}

// DiskUse sums the fixed extents per directory, in the order the
// directories first appear in target.st (BI, Schema Area, areas, AI).
func (p *Plan) DiskUse() []DirUse {
	var out []DirUse
	at := map[string]int{}
	add := func(ext []Extent) {
		for _, e := range ext {
			i, ok := at[e.Path]
			if !ok {
				i = len(out)
				at[e.Path] = i
				out = append(out, DirUse{Dir: e.Path})
			}
			out[i].Extents++
			if e.Fixed {
				out[i].FixedBytes += e.SizeKB * 1024
			}
		}
	}
	add(p.BI.Extents)
	add(p.Schema)
	for _, a := range p.Areas {
		add(a.Extents)
	}
	add(p.AI)
	return out
}

// inactiveNote names the table's indexes that are INACTIVE in the source
// .df (added to a table with records, never built): the run's idxbuild
// builds and activates every index, so the target has them active, and
// their keys cost idxbuild time the source never paid.
func inactiveNote(t *table) string {
	if t.df == nil {
		return ""
	}
	var names []string
	for _, ix := range t.df.Indexes {
		if ix.Inactive {
			names = append(names, ix.Name)
		}
	}
	switch len(names) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("; index %s is INACTIVE in the source: idxbuild builds and activates it", names[0])
	}
	return fmt.Sprintf("; indexes %s are INACTIVE in the source: idxbuild builds and activates them", strings.Join(names, ", "))
}
