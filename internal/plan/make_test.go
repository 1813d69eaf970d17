package plan

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/units"
)

// tinyTables is ten thousand small tables of assorted record sizes, some
// of them empty.
func tinyTables(n int) profile {
	p := profile{name: "tiny"}
	for i := 0; i < n; i++ {
		records := int64(i % 500)
		p.tables = append(p.tables, tableSpec{area: fmt.Sprintf("Area%d", i%18), name: fmt.Sprintf("t%05d-x", i),
			records: records, mean: 20 + int64(i%400)*5, indexes: 1 + i%3})
	}
	return p
}

// checkInvariants are the rules every plan obeys, whatever the input.
func checkInvariants(t *testing.T, p *Plan, in Input) {
	t.Helper()
	names := map[string]bool{}
	numbers := map[int]bool{}
	areas := map[string]Area{}
	member := map[string]bool{} // area + "\x00" + table
	for i, a := range p.Areas {
		key := strings.ToLower(a.Name)
		require.False(t, names[key], "area name %q twice", a.Name)
		require.False(t, numbers[a.Number], "area number %d twice", a.Number)
		names[key], numbers[a.Number] = true, true
		require.Equal(t, openedge.FirstUserAreaNum+i, a.Number, "areas numbered from 7 without gaps")
		require.NotEqual(t, "schema area", key)
		require.Regexp(t, `^[A-Za-z0-9_]{1,32}$`, a.Name)
		require.NotEmpty(t, a.Reason)
		require.NotEmpty(t, a.Extents)
		require.False(t, a.Extents[len(a.Extents)-1].Fixed, "the last extent is variable")
		areas[a.Name] = a
		for _, tb := range a.Tables {
			member[a.Name+"\x00"+tb] = true
		}
	}
	seen := map[string]bool{}
	for _, tp := range p.Tables {
		seen[strings.ToLower(tp.Table)] = true // OpenEdge names are case-insensitive
		d, ok := areas[tp.DataArea]
		require.True(t, ok, "%s: data area %q exists", tp.Table, tp.DataArea)
		require.Equal(t, AreaData, d.Kind)
		require.Equal(t, tp.RPB, d.RPB, "%s: its RPB is its area's", tp.Table)
		require.Equal(t, tp.BPC, d.BPC, "%s: its BPC is its area's", tp.Table)
		require.True(t, member[d.Name+"\x00"+tp.Table], "%s is listed in %s", tp.Table, d.Name)
		ix, ok := areas[tp.IndexArea]
		require.True(t, ok)
		require.Equal(t, AreaIndex, ix.Kind)
		if tp.LOBArea != "" {
			require.Equal(t, AreaLOB, areas[tp.LOBArea].Kind)
		}
		switch tp.Class {
		case ClassSmall, ClassEmpty:
			require.Equal(t, 8, tp.BPC)
		case ClassMedium:
			require.Equal(t, 64, tp.BPC)
		case ClassLarge:
			require.Equal(t, 512, tp.BPC)
			require.Len(t, d.Tables, 1, "a large table has its area to itself")
		}
		require.NotEmpty(t, tp.Reason)
	}
	for _, r := range in.Analysis.Tables {
		if !isSystemTable(r.Owner, r.Name) {
			require.True(t, seen[strings.ToLower(r.QualifiedName())], "%s is placed", r.QualifiedName())
		}
	}
	var buf bytes.Buffer
	require.NoError(t, writeStructure(&buf, p.Structure()), "the .st validates")
	var fixed int64
	for _, a := range p.Structure().Areas {
		for _, e := range a.Extents {
			if e.Fixed {
				fixed += e.SizeKB * 1024
			}
		}
	}
	require.Equal(t, fixed, p.Totals.FixedBytes, "disk use adds up to the .st's fixed extents")
}

func TestMakeTenThousandTinyTables(t *testing.T) {
	p := tinyTables(10_000)
	in, _ := p.input(t)
	pl, err := Make(in, p.options())
	require.NoError(t, err)
	checkInvariants(t, pl, in)
	assert.Equal(t, 10_000, pl.Totals.Tables)
	for _, tp := range pl.Tables {
		assert.Contains(t, []SizeClass{ClassSmall, ClassEmpty}, tp.Class)
	}
	// Pools, not 10,000 areas: one data and one index area per RPB class.
	assert.LessOrEqual(t, len(pl.Areas), 2*9)
}

func TestMakeIsDeterministic(t *testing.T) {
	p := erpProfile()
	in, df := p.input(t)
	first, err := Make(in, p.options())
	require.NoError(t, err)
	a, err := Render(first, df)
	require.NoError(t, err)
	for i := 0; i < 5; i++ {
		again, err := Make(in, p.options())
		require.NoError(t, err)
		b, err := Render(again, df)
		require.NoError(t, err)
		require.Equal(t, a, b)
	}
}

func TestMakeProfilesKeepInvariants(t *testing.T) {
	for _, p := range profiles() {
		t.Run(p.name, func(t *testing.T) {
			in, _ := p.input(t)
			pl, err := Make(in, p.options())
			require.NoError(t, err)
			checkInvariants(t, pl, in)
		})
	}
}

func TestMakeClasses(t *testing.T) {
	p := profile{name: "classes", tables: []tableSpec{
		{area: "D", name: "big", records: 10_000_000, mean: 200},      // 1.9G
		{area: "D", name: "mid", records: 2_000_000, mean: 100},       // 190M
		{area: "D", name: "mid2", records: 1_500_000, mean: 100},      // 143M
		{area: "D", name: "small", records: 1000, mean: 100},          // 98K
		{area: "D", name: "nothing", records: 0, mean: 0},             // empty
		{area: "D", name: "justunder", records: 1_000_000, mean: 100}, // 95.4M
	}}
	in, _ := p.input(t)
	pl, err := Make(in, p.options())
	require.NoError(t, err)
	class := map[string]SizeClass{}
	for _, tp := range pl.Tables {
		class[tp.Name] = tp.Class
	}
	assert.Equal(t, map[string]SizeClass{"big": ClassLarge, "mid": ClassMedium, "mid2": ClassMedium,
		"small": ClassSmall, "nothing": ClassEmpty, "justunder": ClassSmall}, class)
	assert.Equal(t, "big", pl.Tables[0].Name, "largest first")

	o := p.options()
	o.TopN = 2
	pl, err = Make(in, o)
	require.NoError(t, err)
	assert.Equal(t, ClassLarge, pl.Tables[1].Class, "--top 2 makes the second largest large too")
	assert.Contains(t, pl.Tables[1].Reason, "top 2")
	assert.Equal(t, ClassMedium, pl.Tables[2].Class)

	// (A partitioned table is refused: TestMakeRejects.)
}

func TestMakeRejects(t *testing.T) {
	p := erpProfile()
	in, _ := p.input(t)
	app := slices.IndexFunc(in.Analysis.Tables, func(r openedge.TableStat) bool { return !r.System() })
	tests := []struct {
		name string
		in   func(*Input)
		opt  func(*Options)
		want string
	}{
		{"zero threshold", nil, func(o *Options) { o.LargeBytes = 0 }, "--large"},
		{"negative threshold", nil, func(o *Options) { o.LargeBytes = -1 }, "--large"},
		{"zero medium", nil, func(o *Options) { o.MediumBytes = 0 }, "--medium"},
		{"negative top", nil, func(o *Options) { o.TopN = -1 }, "--top"},
		{"max extent under a cluster", nil, func(o *Options) { o.MaxExtentBytes = 2 * units.MB }, "512-block cluster"},
		{"max extent over 1 TB", nil, func(o *Options) { o.MaxExtentBytes = 1<<40 + 1 }, "more than 1 TB, the largest extent OpenEdge has"},
		{"block size", nil, func(o *Options) { o.BlockSize = 16384 }, "--block-size 16384"},
		{"empty data dir", nil, func(o *Options) { o.DataDirs = []string{"/d1", " "} }, "--data-dir #2"},
		{"quote in a path", nil, func(o *Options) { o.DataDirs = []string{`/d"1`} }, "double quote"},
		// A path copied from a Windows .st (nu-trial8): oedl runs on Unix,
		// where "D:\oedata" was a directory of that name under the current one.
		{"drive letter", nil, func(o *Options) { o.DataDirs = []string{"/d1", `D:\oedata`} }, `--data-dir "D:\oedata" is a Windows path`},
		{"backslashes", nil, func(o *Options) { o.AIDirs = []string{`.\ai`} }, `--ai-dir ".\ai" is a Windows path`},
		{"drive letter, forward slash", nil, func(o *Options) { o.BIDir = "e:/bi" }, `--bi-dir "e:/bi" is a Windows path`},
		{"windows target", nil, func(o *Options) { o.Target = `C:\db\prod` }, `--target "C:\db\prod" is a Windows path`},
		{"no cores", nil, func(o *Options) { o.Machine.Cores = 0 }, "--cores"},
		{"no memory", nil, func(o *Options) { o.Machine.MemoryBytes = 0 }, "--memory"},
		{"negative headroom", nil, func(o *Options) { o.HeadroomPct = -5 }, "--headroom"},
		{"no report", func(in *Input) { in.Analysis = nil }, nil, "no tabanalys report"},
		{"only system tables", func(in *Input) {
			in.Analysis = &openedge.Analysis{Tables: []openedge.TableStat{{Owner: "PUB", Name: "_File", Records: 3, Bytes: 300}}}
		}, nil, "no application tables"},
		{"an ixanalys: no record summary", func(in *Input) {
			in.Analysis = &openedge.Analysis{Options: "ixanalys", Indexes: []openedge.IndexStat{{Owner: "PUB", Table: "customer", Name: "id", Number: 12}}}
		}, nil, "an index analysis (Options: ixanalys) counts no records: give the report of proutil -C tabanalys or dbanalys"},
		{"df has an extra table", func(in *Input) {
			in.DFTables = append(append([]*openedge.DFTable{}, in.DFTables...), &openedge.DFTable{Name: "ghost", Line: 42})
		}, nil, `erp.df:42: table "ghost" is not in the tabanalys report erp.tba`},
		{"report has an extra table", func(in *Input) {
			in.DFTables = in.DFTables[1:]
		}, nil, "erp.tba: table PUB.gltmp_det is not in the .df erp.df"},
		{"tenant rows in the report", func(in *Input) {
			a := *in.Analysis
			a.Tables = slices.Clone(a.Tables)
			a.Tables[app].Tenancy = "TENANT acme: 1"
			in.Analysis = &a
		}, nil, "erp.tba: table PUB." + in.Analysis.Tables[app].Name + " has rows of tenants or groups (TENANT acme: 1)"},
		{"partition rows in the report", func(in *Input) {
			a := *in.Analysis
			a.Tables = slices.Clone(a.Tables)
			a.Tables[app].Partition = "Initial(Composite)"
			second := a.Tables[app]
			second.Partition = "list1"
			a.Tables = append(a.Tables, second)
			in.Analysis = &a
		}, nil, "erp.tba: table PUB." + in.Analysis.Tables[app].Name + " has partitions (Initial(Composite), list1)"},
		{"table name in a single-byte code page", func(in *Input) {
			a := *in.Analysis
			a.Tables = slices.Clone(a.Tables)
			a.Tables[app].Name = "Pre\xe7o" // ç in ISO8859-1 / 1252
			in.Analysis = &a
		}, nil, `erp.tba: table "PUB.Pre\xe7o" is not UTF-8`},
		{"table name over 32 characters", func(in *Input) {
			a := *in.Analysis
			a.Tables = slices.Clone(a.Tables)
			a.Tables[app].Name, a.Tables[app].Line = "customer-shipping-address-history", 55 // 33
			in.Analysis = &a
		}, nil, "erp.tba:55: table PUB.customer-shipping-address-history: its name has 33 characters, OpenEdge's limit is 32"},
		// Safety trial 13: a name with a control character would reach the
		// DBA's terminal raw (an ESC ]52 writes his clipboard).
		{"table name with an escape sequence", func(in *Input) {
			a := *in.Analysis
			a.Tables = slices.Clone(a.Tables)
			a.Tables[app].Name, a.Tables[app].Line = "x\x1b]52;c;aGk=\a", 61
			in.Analysis = &a
		}, nil, `erp.tba:61: table "PUB.x\x1b]52;c;aGk=\a" of area "` + in.Analysis.Tables[app].Area + `" holds the control character U+001B`},
		{"area name with a carriage return", func(in *Input) {
			a := *in.Analysis
			a.Tables = slices.Clone(a.Tables)
			a.Tables[app].Area, a.Tables[app].Line = "Data\rSchema Area", 62
			in.Analysis = &a
		}, nil, `erp.tba:62: table "PUB.` + in.Analysis.Tables[app].Name + `" of area "Data\rSchema Area" holds the control character U+000D`},
		{"index name in the df with a BEL", func(in *Input) {
			in.DFTables = slices.Clone(in.DFTables)
			d := *in.DFTables[0]
			d.Indexes = []*openedge.DFIndex{{Name: "ix\a", Table: d.Name, Line: 70}}
			in.DFTables[0] = &d
		}, nil, `erp.df:70: index "ix\a" holds the control character U+0007`},
		{"sequence name in the df with a direction override", func(in *Input) {
			in.DFSequences = []*openedge.DFSequence{{Name: "next\u202eid", Line: 3}}
		}, nil, `erp.df:3: sequence "next\u202eid" holds the control character U+202E`},
		{"multi-tenant table in the df", func(in *Input) {
			in.DFTables = slices.Clone(in.DFTables)
			mt := *in.DFTables[0]
			mt.MultiTenant, mt.Line = true, 7
			in.DFTables[0] = &mt
		}, nil, fmt.Sprintf(`erp.df:7: table %q is MULTITENANT`, in.DFTables[0].Name)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bad, o := in, p.options()
			if tt.in != nil {
				tt.in(&bad)
			}
			if tt.opt != nil {
				tt.opt(&o)
			}
			pl, err := Make(bad, o)
			require.Error(t, err)
			assert.Nil(t, pl)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestMismatchListIsBounded(t *testing.T) {
	p := tinyTables(50)
	p.withDF = true
	in, _ := p.input(t)
	in.DFTables = nil
	in.DFTables = []*openedge.DFTable{} // a .df with no tables at all
	_, err := Make(in, p.options())
	require.Error(t, err)
	lines := strings.Split(err.Error(), "\n")
	assert.Len(t, lines, 11)
	assert.Equal(t, "... and 41 more", lines[10])
	// The first line says what to give instead, whatever the list hides
	// (nu-trial8: an incremental .df given as --df printed 335 lines
	// "table ... is not in the .df" and nothing else).
	assert.Contains(t, lines[0], "tiny.df: 50 of the report's 50 tables are not in this .df")
	assert.Contains(t, lines[0], "the source's full definitions")
	assert.Contains(t, lines[0], "not an incremental .df")
}

// TestMakeCountsWordIndexes: the plan tells which of a table's indexes are
// WORD indexes (from the .df): the estimate prices their keys per word.
func TestMakeCountsWordIndexes(t *testing.T) {
	tests := []struct {
		name  string
		words []int // which of the table's three indexes are WORD indexes
		want  int
	}{
		{"none", nil, 0},
		{"one", []int{1}, 1},
		{"two", []int{1, 2}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := profile{name: "words", withDF: true, tables: []tableSpec{{area: "D", name: "customer", records: 1000, mean: 250, indexes: 3}}}
			in, _ := p.input(t)
			for _, i := range tt.words {
				in.DFTables[0].Indexes[i].Word = true
			}
			pl, err := Make(in, p.options())
			require.NoError(t, err)
			assert.Equal(t, 3, pl.Tables[0].Indexes)
			assert.Equal(t, tt.want, pl.Tables[0].WordIndexes)
		})
	}
}

// TestMakeSizesLOBAreaFromReport: an 11.6+ report gives each LOB field's
// bytes (Analysis.LOBs); the plan keeps them per table (lob_bytes) and
// gives the LOB area fixed extents for them, as it does for records.
// Without LOB rows (an older report) the LOB area stays one variable
// extent, its size unknown.
func TestMakeSizesLOBAreaFromReport(t *testing.T) {
	p := profile{name: "lobs", withDF: true, tables: []tableSpec{
		{area: "D", name: "attachment", records: 420, mean: 39, lobs: []string{"filedata", "thumb"}, indexes: 1},
		{area: "D", name: "customer", records: 1000, mean: 250, indexes: 2},
	}}
	tests := []struct {
		name      string
		lobs      []openedge.LOBStat
		wantBytes int64
		wantFixed bool
	}{
		{"no LOB summary", nil, 0, false},
		{"two LOB fields", []openedge.LOBStat{
			{Area: "Mislob", AreaNum: 17, Owner: "PUB", Table: "attachment", Field: "filedata", LOBs: 420, Bytes: 600 * units.MB},
			{Area: "Mislob", AreaNum: 17, Owner: "PUB", Table: "Attachment", Field: "thumb", LOBs: 420, Bytes: 11 * units.MB},
		}, 611 * units.MB, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, _ := p.input(t)
			in.Analysis.LOBs = tt.lobs
			pl, err := Make(in, p.options())
			require.NoError(t, err)
			checkInvariants(t, pl, in)
			var att *Placement
			for i := range pl.Tables {
				if pl.Tables[i].Name == "attachment" {
					att = &pl.Tables[i]
				}
			}
			require.NotNil(t, att)
			assert.Equal(t, tt.wantBytes, att.LOBBytes)
			var lob *Area
			for i := range pl.Areas {
				if pl.Areas[i].Kind == AreaLOB {
					lob = &pl.Areas[i]
				}
			}
			require.NotNil(t, lob)
			var fixed int64
			for _, e := range lob.Extents {
				if e.Fixed {
					fixed += e.SizeKB * 1024
				}
			}
			if !tt.wantFixed {
				assert.Zero(t, fixed, lob.Reason)
				assert.Contains(t, lob.Reason, "no LOB SUMMARY")
				return
			}
			assert.GreaterOrEqual(t, fixed, tt.wantBytes, "the fixed extents hold the LOBs: %s", lob.Reason)
			assert.Contains(t, lob.Reason, "LOB SUMMARY): 611 MiB of data")
		})
	}
}

// TestMakeNamesInactiveIndexes: an index INACTIVE in the source .df (added
// to a table with records and never built) is built and activated by the
// run's idxbuild; the plan says so on the table, so that the DBA is not
// surprised by the time it takes or by the target's active index.
func TestMakeNamesInactiveIndexes(t *testing.T) {
	p := profile{name: "inactive", withDF: true, tables: []tableSpec{{area: "D", name: "customer", records: 1000, mean: 250, indexes: 3}}}
	in, _ := p.input(t)
	in.DFTables[0].Indexes[1].Inactive = true
	in.DFTables[0].Indexes[2].Inactive = true
	pl, err := Make(in, p.options())
	require.NoError(t, err)
	want := fmt.Sprintf("indexes %s, %s are INACTIVE in the source: idxbuild builds and activates them",
		in.DFTables[0].Indexes[1].Name, in.DFTables[0].Indexes[2].Name)
	assert.Contains(t, pl.Tables[0].Reason, want)

	in.DFTables[0].Indexes[1].Inactive, in.DFTables[0].Indexes[2].Inactive = false, false
	pl, err = Make(in, p.options())
	require.NoError(t, err)
	assert.NotContains(t, pl.Tables[0].Reason, "INACTIVE")
}
