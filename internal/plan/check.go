package plan

import (
	"errors"
	"fmt"
	"strings"

	"github.com/oedl/oedl/internal/openedge"
)

// Check holds a plan directory together before anything runs: plan.json
// on its own (area numbers, names, records per block, blocks per cluster,
// sizes, where every table goes), plan.json against target.st (the same
// areas with the same numbers, RPB and BPC), and plan.json against
// target.df (every table in the area the plan gives it, its indexes and
// LOBs too, no table in one and not the other), then target.df against
// target.st (openedge.CheckSchema: statements, fields, indexes, areas).
// st and df may be nil (not part of the plan). It returns every
// disagreement, each naming its file (and line), joined.
//
// Why all of it: the run trusts plan.json for where a table's records
// are, and a repair truncates that area. A data_area that disagrees with
// target.df would truncate the wrong area; a table in two areas would be
// loaded into one and verified against the other.
func Check(p *Plan, st *openedge.Structure, df *openedge.DF) error {
	c := &checker{}
	c.plan(p)
	if st != nil {
		if err := st.Validate(); err != nil {
			c.errs = append(c.errs, err)
		}
		c.structure(p, st)
		c.largeFiles(p, st)
	}
	if names := df.ControlNames(); len(names) > 0 {
		// before c.df, which prints the names raw
		c.errs = append(c.errs, errors.New(joinProblems(names).Error()+"\n"+noControlNames))
	} else if df != nil {
		c.df(p, df)
		if err := openedge.CheckSchema(df, st); err != nil {
			c.errs = append(c.errs, err)
		}
	}
	return errors.Join(c.errs...)
}

type checker struct{ errs []error }

func (c *checker) addf(format string, a ...any) {
	c.errs = append(c.errs, fmt.Errorf(format, a...))
}

// controlNames refuses a plan.json whose table or area names hold a
// control character (openedge.ControlIn): oedl plan refuses them in the
// report and the .df, so such a plan.json was edited or written by another
// tool, and the run would print them to the DBA's terminal.
func (c *checker) controlNames(p *Plan) bool {
	var problems []string
	seen := map[string]bool{}
	check := func(kind, name string) {
		if r, ok := openedge.ControlIn(name); ok && !seen[kind+"\x00"+name] {
			seen[kind+"\x00"+name] = true
			problems = append(problems, fmt.Sprintf("%s: %s %q holds the control character %U", FilePlan, kind, name, r))
		}
	}
	for _, a := range p.Areas {
		check("area", a.Name)
		for _, t := range a.Tables {
			check("table", t)
		}
	}
	for _, t := range p.Tables {
		check("table", t.Table)
		check("table", t.Name)
		check("owner", t.Owner)
		for _, a := range []string{t.DataArea, t.IndexArea, t.LOBArea} {
			check("area", a)
		}
	}
	if len(problems) == 0 {
		return false
	}
	c.errs = append(c.errs, errors.New(joinProblems(problems).Error()+"\n"+noControlNames))
	return true
}

func validRPB(n int) bool { return n >= MinRPB && n <= MaxRPB && n&(n-1) == 0 }

func validBPC(n int) bool { return n == 1 || n == 8 || n == 64 || n == 512 }

func validBlockSize(n int) bool { return n == 1024 || n == 2048 || n == 4096 || n == 8192 }

// plan checks plan.json on its own.
func (c *checker) plan(p *Plan) {
	if c.controlNames(p) {
		return // the checks below print names raw
	}
	if p.BlockSize != 0 && !validBlockSize(p.BlockSize) { // 0: the run's default, 8192
		c.addf("%s: block_size %d; a database block is 1024, 2048, 4096 or 8192 bytes", FilePlan, p.BlockSize)
	}
	c.bi(p)
	byName := map[string]*Area{}
	byNum := map[int]*Area{}
	for i := range p.Areas {
		a := &p.Areas[i]
		key := strings.ToLower(a.Name)
		switch {
		case a.Name == "":
			c.addf("%s: area number %d has no name", FilePlan, a.Number)
		case byName[key] != nil:
			c.addf("%s: area %q is listed twice", FilePlan, a.Name)
		case strings.EqualFold(a.Name, openedge.SchemaAreaName):
			c.addf("%s: area %q: the Schema Area holds the metaschema only, not a planned area", FilePlan, a.Name)
		}
		byName[key] = a
		if prev := byNum[a.Number]; prev != nil {
			c.addf("%s: areas %q and %q have the same number %d", FilePlan, prev.Name, a.Name, a.Number)
		}
		byNum[a.Number] = a
		if a.Number < openedge.FirstUserAreaNum || a.Number > 32000 {
			c.addf("%s: area %q has number %d; data areas are numbered %d to 32000", FilePlan, a.Name, a.Number, openedge.FirstUserAreaNum)
		}
		if !validRPB(a.RPB) {
			c.addf("%s: area %q has rpb %d; records per block is a power of 2 from %d to %d", FilePlan, a.Name, a.RPB, MinRPB, MaxRPB)
		}
		if !validBPC(a.BPC) {
			c.addf("%s: area %q has bpc %d; blocks per cluster is 1, 8, 64 or 512", FilePlan, a.Name, a.BPC)
		}
		if a.Bytes < 0 {
			c.addf("%s: area %q has a negative size (%d bytes)", FilePlan, a.Name, a.Bytes)
		}
		for i, e := range a.Extents {
			if e.SizeKB < 0 || (e.Fixed && e.SizeKB == 0) {
				c.addf("%s: area %q extent %d has size %d KB", FilePlan, a.Name, i+1, e.SizeKB)
			}
		}
	}
	area := func(t Placement, field, name string, kind AreaKind, required bool) {
		a := byName[strings.ToLower(name)]
		switch {
		case name == "" && required:
			c.addf("%s: table %s has no %s", FilePlan, t.Table, field)
		case name != "" && a == nil:
			c.addf("%s: table %s has %s %q, which is not an area of the plan", FilePlan, t.Table, field, name)
		case a != nil && a.Kind != kind:
			c.addf("%s: table %s has %s %q, a %s area", FilePlan, t.Table, field, name, a.Kind)
		}
	}
	tables := map[string]Placement{}
	for _, t := range p.Tables {
		key := strings.ToLower(t.Table)
		if _, dup := tables[key]; dup {
			c.addf("%s: table %s is placed twice", FilePlan, t.Table)
		}
		tables[key] = t
		area(t, "data_area", t.DataArea, AreaData, true)
		area(t, "index_area", t.IndexArea, AreaIndex, false)
		area(t, "lob_area", t.LOBArea, AreaLOB, false)
		if t.Records < 0 || t.Bytes < 0 || t.IndexBytes < 0 || t.LOBBytes < 0 {
			c.addf("%s: table %s has a negative size (records %d, bytes %d, index bytes %d, LOB bytes %d)",
				FilePlan, t.Table, t.Records, t.Bytes, t.IndexBytes, t.LOBBytes)
		}
	}
	// An area's table list says the same as the tables' own lines: a
	// table listed in an area its line does not name is in two areas.
	for _, a := range p.Areas {
		for _, name := range a.Tables {
			t, ok := tables[strings.ToLower(name)]
			var placed string
			switch a.Kind {
			case AreaData:
				placed = t.DataArea
			case AreaIndex:
				placed = t.IndexArea
			case AreaLOB:
				placed = t.LOBArea
			}
			switch {
			case !ok:
				c.addf("%s: area %q lists table %s, which the plan does not place", FilePlan, a.Name, name)
			case !strings.EqualFold(placed, a.Name):
				c.addf("%s: table %s is listed in %s area %q but placed in %q: a table is in one area", FilePlan, name, a.Kind, a.Name, placed)
			}
		}
	}
	if t := p.Totals; t.Records < 0 || t.Bytes < 0 || t.IndexBytes < 0 || t.FixedBytes < 0 {
		c.addf("%s: negative totals (records %d, bytes %d, index bytes %d, fixed bytes %d)", FilePlan, t.Records, t.Bytes, t.IndexBytes, t.FixedBytes)
	}
}

// bi checks the BI settings run gives proutil truncate bi, as proutil
// checks them: -bi a cluster of 16 KB to 256 MB (262128 KB) in multiples
// of 16 (proutil rounds up; the plan writes what it will get), and
// -biblocksize 1, 2, 4, 8 or 16 KB and not below the database block.
// 0 leaves the database's own value.
func (c *checker) bi(p *Plan) {
	if kb := p.BI.ClusterSizeKB; kb != 0 && (kb < 16 || kb > 262128 || kb%16 != 0) {
		c.addf("%s: bi cluster_size_kb %d; a BI cluster is a multiple of 16 KB from 16 to 262128 (truncate bi -bi)", FilePlan, kb)
	}
	bs := p.BlockSize
	if bs == 0 {
		bs = DefaultBlockSize
	}
	switch kb := p.BI.BlockSizeKB; {
	case kb == 0:
	case kb != 1 && kb != 2 && kb != 4 && kb != 8 && kb != 16:
		c.addf("%s: bi block_size_kb %d; a BI block is 1, 2, 4, 8 or 16 KB (truncate bi -biblocksize)", FilePlan, kb)
	case kb*1024 < bs:
		c.addf("%s: bi block_size_kb %d is smaller than the database block (%d bytes)", FilePlan, kb, bs)
	}
}

// structure checks that target.st has the plan's areas, as the plan has
// them, and no other data area.
func (c *checker) structure(p *Plan, st *openedge.Structure) {
	inPlan := map[string]bool{}
	for _, a := range p.Areas {
		inPlan[strings.ToLower(a.Name)] = true
		sa := st.Area(a.Name)
		if sa == nil || sa.Type != openedge.AreaData {
			c.addf("%s: area %q of %s is not in %s (renamed or removed in one file only?)", st.Source, a.Name, FilePlan, st.Source)
			continue
		}
		if sa.Number != a.Number || sa.RPB != a.RPB || sa.BPC != a.BPC {
			c.addf("%s:%d: area %q is %d,%d;%d here but %d,%d;%d in %s (number,rpb;bpc)",
				st.Source, sa.Line, a.Name, sa.Number, sa.RPB, sa.BPC, a.Number, a.RPB, a.BPC, FilePlan)
		}
	}
	for _, sa := range st.Areas {
		if sa.Type == openedge.AreaData && !strings.EqualFold(sa.Name, openedge.SchemaAreaName) && !inPlan[strings.ToLower(sa.Name)] {
			c.addf("%s:%d: area %q is not an area of %s (renamed or added in one file only?)", st.Source, sa.Line, sa.Name, FilePlan)
		}
	}
}

// largeFiles refuses an extent of 2 GiB or more in a plan that does not
// say the target has large files (plan.json large_files): a database
// without them refuses it at prostrct create, or stops the load when a
// variable extent's maximum is reached (8898). oedl plan writes one only
// with --max-extent above 2GB, and says so; a hand-edited target.st must
// say so too.
func (c *checker) largeFiles(p *Plan, st *openedge.Structure) {
	if p.LargeFiles {
		return
	}
	bs := p.BlockSize
	if bs == 0 {
		bs = DefaultBlockSize
	}
	for _, e := range st.LargeFileExtents(bs) {
		c.addf("%s:%d: an extent of %d KB needs large files (without them an extent stays at most %d KB at %d-byte blocks) and %s does not say large_files: split it, or plan again with --max-extent above 2GB for a target with large files",
			st.Source, e.Line, openedge.RoundExtentKB(e.SizeKB, bs), openedge.MaxExtentKBWithoutLargeFiles(bs), bs, FilePlan)
	}
}

// df checks that target.df puts every table where the plan does.
func (c *checker) df(p *Plan, df *openedge.DF) {
	planned := map[string]bool{}
	for _, t := range p.Tables {
		planned[strings.ToLower(t.Name)] = true
		d := df.Table(t.Name)
		if d == nil {
			c.addf("%s: table %s of %s is not in %s", df.Name(), t.Table, FilePlan, df.Name())
			continue
		}
		if !sameArea(d.Area, t.DataArea) {
			c.addf("%s:%d: table %q is in area %q here but in %q in %s", df.Name(), d.Line, d.Name, areaOrSchema(d.Area), t.DataArea, FilePlan)
		}
		if t.IndexArea != "" {
			for _, ix := range d.Indexes {
				if !sameArea(ix.Area, t.IndexArea) {
					c.addf("%s:%d: index %q of %q is in area %q here but in %q in %s", df.Name(), ix.Line, ix.Name, d.Name, areaOrSchema(ix.Area), t.IndexArea, FilePlan)
				}
			}
		}
		if t.LOBArea != "" {
			for _, f := range d.Fields {
				if f.IsLOB() && !sameArea(f.LobArea, t.LOBArea) {
					c.addf("%s:%d: LOB field %q of %q is in area %q here but in %q in %s", df.Name(), f.Line, f.Name, d.Name, areaOrSchema(f.LobArea), t.LOBArea, FilePlan)
				}
			}
		}
	}
	for _, d := range df.Tables() {
		if !planned[strings.ToLower(d.Name)] {
			c.addf("%s:%d: table %q is not in %s: it would be created and never loaded", df.Name(), d.Line, d.Name, FilePlan)
		}
	}
}

func areaOrSchema(a string) string {
	if a == "" {
		return openedge.SchemaAreaName
	}
	return a
}

func sameArea(a, b string) bool { return strings.EqualFold(areaOrSchema(a), areaOrSchema(b)) }
