package plan

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/units"
	"github.com/stretchr/testify/require"
)

// A profile is a synthetic source database: its tabanalys report (written
// with openedge.WriteAnalysis and parsed back, so the plan reads exactly
// what it would read from a real report) and optionally its .df.
type profile struct {
	name   string
	tables []tableSpec
	withDF bool
	// indexSummary makes the report a dbanalys (with INDEX BLOCK SUMMARY).
	indexSummary bool
	// online: the report was made while the database was in use and
	// carries the (2486) warning before it, as proutil prints it.
	online bool
	opts   func(*Options)
	// goldenFiles limits the golden comparison (nil: every file); ten
	// thousand tables make placement.md and plan.json too big to review.
	goldenFiles []string
}

type tableSpec struct {
	area    string
	name    string
	records int64
	mean    int64
	lobs    []string // blob field names
	indexes int
}

// testOptions are fixed so goldens do not depend on the machine.
func testOptions() Options {
	o := DefaultOptions()
	o.Machine = Machine{Cores: 8, MemoryBytes: 16 * units.GB}
	o.Target = "/db/new/prod"
	return o
}

func (p profile) analysis() *openedge.Analysis {
	a := &openedge.Analysis{Database: "/db/old/" + p.name, BlockSize: 4096, Options: "tabanalys",
		Date: "Sun Nov 22 07:00:00 2026"}
	areaNum := map[string]int{}
	for _, s := range []string{"Schema Area"} {
		areaNum[s] = 6
	}
	// Metaschema rows, as every report has them: the plan must skip them.
	a.Tables = append(a.Tables,
		openedge.TableStat{Area: "Schema Area", AreaNum: 6, Owner: "PUB", Name: "_File", Records: 40, Bytes: 9000, MinRecord: 200, MaxRecord: 260, MeanRecord: 225, Fragments: 40, FragFactor: 1, ScatterFactor: 1},
		openedge.TableStat{Area: "Schema Area", AreaNum: 6, Owner: "SYSPROGRESS", Name: "SYSTABLES", Records: 40, Bytes: 4000, MinRecord: 90, MaxRecord: 110, MeanRecord: 100, Fragments: 40, FragFactor: 1, ScatterFactor: 1},
	)
	for _, t := range p.tables {
		if _, ok := areaNum[t.area]; !ok {
			areaNum[t.area] = 7 + len(areaNum) - 1
		}
		ts := openedge.TableStat{Area: t.area, AreaNum: areaNum[t.area], Owner: "PUB", Name: t.name,
			Records: t.records, Bytes: t.records * t.mean, Fragments: t.records, ScatterFactor: 1}
		if t.records > 0 {
			ts.MinRecord, ts.MaxRecord, ts.MeanRecord, ts.FragFactor = t.mean, t.mean, t.mean, 1
		}
		a.Tables = append(a.Tables, ts)
		if p.indexSummary {
			for i := 0; i < t.indexes; i++ {
				bytes := t.records * 24
				a.Indexes = append(a.Indexes, openedge.IndexStat{Area: t.area, AreaNum: areaNum[t.area], Owner: "PUB",
					Table: t.name, Name: fmt.Sprintf("ix%d", i+1), Number: 100 + i, Fields: 1, Levels: 2,
					Blocks: bytes/4096 + 1, Bytes: bytes, Util: 80, Factor: 1.2})
			}
		}
	}
	return a
}

func (p profile) df() *openedge.DF {
	var tables []*openedge.DFTable
	for _, t := range p.tables {
		dt := &openedge.DFTable{Name: t.name, Area: t.area}
		dt.Fields = append(dt.Fields, &openedge.DFField{Name: "id", Type: "integer"},
			&openedge.DFField{Name: "descr", Type: "character"})
		for _, l := range t.lobs {
			dt.Fields = append(dt.Fields, &openedge.DFField{Name: l, Type: "blob", LobArea: t.area})
		}
		for i := 0; i < max(1, t.indexes); i++ {
			dt.Indexes = append(dt.Indexes, &openedge.DFIndex{Name: fmt.Sprintf("ix%d", i+1), Area: t.area,
				Primary: i == 0, Unique: i == 0, Fields: []openedge.DFIndexField{{Name: "id"}}})
		}
		tables = append(tables, dt)
	}
	return openedge.NewDF(tables, nil, "UTF-8")
}

// input renders the profile as a report, parses it back and returns the
// plan input (and the .df, when the profile has one).
func (p profile) input(t testing.TB) (Input, *openedge.DF) {
	t.Helper()
	var b bytes.Buffer
	if p.online {
		b.WriteString("[Warning] database in use - reported statistics are approximations. (2486)\n")
	}
	require.NoError(t, openedge.WriteAnalysis(&b, p.analysis()))
	a, err := openedge.ParseAnalysis(&b, p.name+".tba")
	require.NoError(t, err)
	in := Input{Analysis: a, AnalysisName: p.name + ".tba"}
	if !p.withDF {
		return in, nil
	}
	df := p.df()
	in.DFTables, in.DFName = df.Tables(), p.name+".df"
	return in, df
}

func (p profile) options() Options {
	o := testOptions()
	if p.opts != nil {
		p.opts(&o)
	}
	return o
}

// profiles are the golden cases: each one awkward in its own way.
func profiles() []profile {
	return []profile{
		{
			name: "giant",
			tables: []tableSpec{
				{area: "Data", name: "history", records: 200_000_000, mean: 250, indexes: 3},
				{area: "Data", name: "customer", records: 5000, mean: 300, indexes: 2},
				{area: "Data", name: "state", records: 50, mean: 40, indexes: 1},
			},
			indexSummary: true,
		},
		{
			name: "dashes",
			tables: []tableSpec{
				{area: "Data", name: "cust-order", records: 9_000_000, mean: 150, indexes: 2},
				{area: "Data", name: "cust_order", records: 8_000_000, mean: 150, indexes: 2},
				{area: "Data", name: "a-very-long-table-name-for-areas", records: 7_000_000, mean: 180, indexes: 1},
				{area: "Data", name: "pay#roll$2", records: 1000, mean: 60, indexes: 1},
				{area: "Data", name: "Small8", records: 6_000_000, mean: 200, indexes: 1},
			},
			withDF: true,
			opts:   func(o *Options) { o.LargeBytes = 1 * units.GB; o.TopN = 4 },
		},
		{
			name: "lobs",
			tables: []tableSpec{
				{area: "Data", name: "document", records: 20000, mean: 120, lobs: []string{"body", "thumb"}, indexes: 2},
				{area: "Data", name: "customer", records: 3000, mean: 280, lobs: []string{"photo"}, indexes: 1},
				{area: "Data", name: "item", records: 40000, mean: 90, indexes: 2},
			},
			withDF: true,
		},
		{
			name: "empty",
			tables: []tableSpec{
				{area: "Data", name: "audit_trail", records: 0, mean: 0, indexes: 1},
				{area: "Data", name: "country", records: 240, mean: 70, indexes: 1},
			},
			withDF: true,
			opts:   func(o *Options) { o.Target = "" },
		},
		erpProfile(),
		{
			// A plan from a live source (oedl plan --source while users work).
			name: "online",
			tables: []tableSpec{
				{area: "Data", name: "order", records: 2_000_000, mean: 140, indexes: 2},
				{area: "Data", name: "customer", records: 5000, mean: 300, indexes: 1},
			},
			withDF: true, indexSummary: true, online: true,
		},
	}
}

// erpProfile is shaped like seed 003's ERP database: a few tables of a
// gigabyte and more, a band of medium tables, many small ones and some
// empty, over several source areas, with an index summary, a .df, two data
// directories and separate BI and AI disks.
func erpProfile() profile {
	p := profile{name: "erp", withDF: true, indexSummary: true}
	p.tables = []tableSpec{
		{area: "TRANSACTION", name: "gltmp_det", records: 14_856_965, mean: 92, indexes: 3},
		{area: "HISTORY", name: "gltr_hist", records: 5_145_602, mean: 210, indexes: 6},
		{area: "TRANSACTION", name: "glec_det", records: 9_766_305, mean: 110, indexes: 2},
		{area: "STATIC", name: "xxext_xref", records: 18_535_331, mean: 214, indexes: 2},
		{area: "TRANSACTION", name: "tr_hist", records: 2_900_000, mean: 320, indexes: 5},
		{area: "TRANSACTION", name: "sod_det", records: 1_200_000, mean: 410, indexes: 4},
		{area: "STATIC", name: "pt_mstr", records: 400_000, mean: 520, indexes: 6},
		{area: "STATIC", name: "abs_mstr", records: 84520, mean: 324, indexes: 3},
		{area: "TRANSACTION", name: "absd_det", records: 100449, mean: 116, indexes: 2},
		{area: "TRANSACTION", name: "absc_det", records: 12210, mean: 61, indexes: 1},
		{area: "STATIC", name: "ap_mstr", records: 18405, mean: 168, indexes: 2},
		{area: "STATIC", name: "ard_det", records: 83500, mean: 123, indexes: 2},
		{area: "STATIC", name: "acd_det", records: 6108, mean: 97, indexes: 1},
		{area: "STATIC", name: "code_mstr", records: 3000, mean: 45, indexes: 1},
		{area: "STATIC", name: "xxrpn_amend", records: 0, mean: 0, indexes: 1},
		{area: "STATIC", name: "vec_mstr", records: 0, mean: 0, indexes: 1},
	}
	p.opts = func(o *Options) {
		o.DataDirs = []string{"/data1/prod", "/data2/prod"}
		o.BIDir = "/bi/prod"
		o.AIDirs = []string{"/ai1/prod", "/ai2/prod"}
		o.MaxExtentBytes = 1 * units.GB
	}
	return p
}
