package openedge

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func openCS(t *testing.T, name string) *os.File {
	t.Helper()
	f, err := os.Open("testdata/csoutput/" + name)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return f
}

func TestParseCSTab(t *testing.T) {
	a, err := ParseCSTab(openCS(t, "sports2000.tab.txt"), "sports2000.tab.txt")
	require.NoError(t, err)
	assert.Equal(t, "sports2000", a.Database)
	assert.Equal(t, "o1GqqV/0QITvE2lsSOBp1g", a.DBUID)
	assert.Equal(t, "2015-07-07T17:05:42.000+2:00", a.Date)
	require.Len(t, a.Tables, 3)
	assert.Equal(t, TableStat{Area: "Cust_Data", AreaNum: 9, Owner: "PUB", Name: "Customer", Number: 2, Line: 3,
		Records: 1117, Bytes: 150588, MinRecord: 98, MaxRecord: 225, MeanRecord: 134,
		Fragments: 1117, FragFactor: 1, ScatterFactor: 1}, a.Tables[1])
	assert.Equal(t, "Order Data", a.Tables[2].Area, "quoted strings keep their spaces")
	assert.Equal(t, []AreaSummary{{"Employee", 7, 21, 848}, {"Cust_Data", 9, 1117, 150588}, {"Order Data", 11, 91023, 4093117}}, a.Areas)

	tabs, err := CSFormat{Sep: '\t'}.ParseTab(openCS(t, "tabsep.tab.txt"), "tabsep.tab.txt")
	require.NoError(t, err)
	require.Len(t, tabs.Tables, 1)
	assert.Equal(t, "Benefits", tabs.Tables[0].Name)
	assert.Equal(t, int64(848), tabs.Tables[0].Bytes)

	pipes, err := CSFormat{Sep: '|'}.ParseTab(openCS(t, "pipesep.tab.txt"), "pipesep.tab.txt")
	require.NoError(t, err)
	require.Len(t, pipes.Tables, 1)
	assert.Equal(t, `Cust "Data" | area`, pipes.Tables[0].Area, `separator and "" inside quotes`)
}

func TestParseCSIndex(t *testing.T) {
	a, err := ParseCSIndex(openCS(t, "sports2000.ix.txt"), "sports2000.ix.txt")
	require.NoError(t, err)
	require.Len(t, a.Indexes, 3)
	assert.Equal(t, IndexStat{Area: "Schema Area", AreaNum: 6, Owner: "PUB", Table: "_Field", TableNum: -2,
		Name: "_Field-Name", Number: 3, Fields: 2, Levels: 2, Blocks: 11, Bytes: 29872, Util: 66.8, Factor: 1.7}, a.Indexes[0])
	assert.True(t, a.Indexes[2].Inactive, "State 0")
	assert.False(t, a.Indexes[1].Inactive, "State 1")
}

func TestCSRoundTrip(t *testing.T) {
	for _, f := range []CSFormat{{}, {Verbose: true}, {Sep: '\t'}, {Sep: '|', Verbose: true}, {Sep: ','}} {
		a := sampleAnalysis()
		a.Date, a.DBUID = "2026-11-22T07:00:00.000+0:00", "uid"
		a.Tables[0].Area = `Cust "Data", 2`
		var tab, ix bytes.Buffer
		require.NoError(t, f.WriteTab(&tab, a))
		require.NoError(t, f.WriteIndex(&ix, a))
		assert.Equal(t, f.Verbose, strings.HasPrefix(tab.String(), `"Time Stamp"`))

		got, err := f.ParseTab(&tab, "x.tab.txt")
		require.NoError(t, err, tab.String())
		assert.Equal(t, a.Tables, rowsWithoutLines(got.Tables), "separator %q", f.Sep)
		assert.Equal(t, [3]string{a.Date, a.DBUID, a.Database}, [3]string{got.Date, got.DBUID, got.Database})
		gotIx, err := f.ParseIndex(&ix, "x.ix.txt")
		require.NoError(t, err, ix.String())
		assert.Equal(t, a.Indexes, gotIx.Indexes)
	}
}

func TestWriteCSGolden(t *testing.T) {
	a, err := ParseCSTab(openCS(t, "sports2000.tab.txt"), "sports2000.tab.txt")
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, WriteCSTab(&out, a))
	raw, err := os.ReadFile("testdata/csoutput/sports2000.tab.txt")
	require.NoError(t, err)
	assert.Equal(t, string(raw), out.String(), "the 11.5.1 file is reproduced byte for byte")

	ix, err := ParseCSIndex(openCS(t, "sports2000.ix.txt"), "sports2000.ix.txt")
	require.NoError(t, err)
	out.Reset()
	require.NoError(t, WriteCSIndex(&out, ix))
	assertGolden(t, "csoutput/sports2000.ix.txt.written", out.Bytes())
}

func TestParseCSErrors(t *testing.T) {
	const good = `2015-07-07T17:05:42.000+2:00 "u" "db" "A" 7 "-" "-" 0 "-" "-" 0 "PUB" "T" 15 21 848 39 41 40 21 1.0 1.0`
	tests := []struct {
		name, input string
		sep         byte
		want        string
	}{
		{"short line", good + "\n" + `2015 "u" "db" "A" 7`, 0, "t.txt:2: 5 fields, want 22"},
		{"bad number", strings.Replace(good, " 21 848", " 2x1 848", 1), 0, `t.txt:1: Records "2x1" is not a whole number`},
		{"bad size", strings.Replace(good, " 848 ", " 8.4Q ", 1), 0, `t.txt:1: Size "8.4Q" is not a byte count`},
		{"bad factor", strings.Replace(good, "1.0 1.0", "1.0 x", 1), 0, `t.txt:1: Scatter Factor "x" is not a decimal number`},
		{"bad area number", strings.Replace(good, `"A" 7`, `"A" seven`, 1), 0, `t.txt:1: Area # "seven" is not a whole number`},
		{"unterminated quote", `2015 "u`, 0, "t.txt:1: unterminated quoted string"},
		{"text after quote", `2015 "u"x "db"`, 0, "t.txt:1: text after the quoted string"},
		{"bad separator", good, '"', `-fieldsep '"'`},
		{"control separator", good, 1, "-fieldsep"},
		{"line too long", strings.Repeat("x", 2<<20), 0, "t.txt:1: bufio.Scanner: token too long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := CSFormat{Sep: tt.sep}.ParseTab(strings.NewReader(tt.input), "t.txt")
			require.Error(t, err)
			assert.Nil(t, a)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	_, err := ParseCSIndex(strings.NewReader(strings.Replace(good, `"T" 15`, `"T" 15 "I" 3 maybe`, 1)), "i.txt")
	assert.ErrorContains(t, err, "i.txt:1: 25 fields, want 23")
	_, err = ParseCSIndex(strings.NewReader(`2015 "u" "db" "A" 7 "-" "-" 0 "-" "-" 0 "PUB" "T" 15 "I" 3 maybe 1 2 3 4 5.0 1.0`), "i.txt")
	assert.ErrorContains(t, err, `i.txt:1: State "maybe" is not 1 (active) or 0 (inactive)`)
	assert.Error(t, CSFormat{Sep: 0x7f}.WriteTab(&bytes.Buffer{}, sampleAnalysis()))
}

// FuzzParseCSTab: no panic, no result with an error, and a parsed file
// written back with the same format parses to the same tables.
func FuzzParseCSTab(f *testing.F) {
	for _, name := range []string{"sports2000.tab.txt", "tabsep.tab.txt", "pipesep.tab.txt",
		"../../../../testdata/csoutput/fieldsep_tab_verbose_crlf_12.8.tab.txt", "../../../../testdata/csoutput/fieldsep_comma_11.7.tab.txt"} {
		b, err := os.ReadFile("testdata/csoutput/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, byte(0))
		f.Add(b, byte('\t'))
		f.Add(b, byte('|'))
	}
	f.Fuzz(func(t *testing.T, in []byte, sep byte) {
		// As oedl plan reads it: the separator sniffed from the first field.
		if a, err := ParseCSTab(bytes.NewReader(in), "fuzz"); err != nil {
			require.Nil(t, a)
		}
		format := CSFormat{Sep: sep, Verbose: len(in)%2 == 0}
		a, err := format.ParseTab(bytes.NewReader(in), "fuzz")
		if err != nil {
			require.Nil(t, a)
			return
		}
		var w1, w2 bytes.Buffer
		require.NoError(t, format.WriteTab(&w1, a))
		a2, err := format.ParseTab(bytes.NewReader(w1.Bytes()), "rewrite")
		require.NoError(t, err, "the writer's output must parse:\n%s", w1.String())
		require.Len(t, a2.Tables, len(a.Tables))
		require.NoError(t, format.WriteTab(&w2, a2))
		a3, err := format.ParseTab(bytes.NewReader(w2.Bytes()), "rewrite2")
		require.NoError(t, err)
		require.Equal(t, a2.Tables, a3.Tables)
	})
}

// FuzzParseCSIndex: the same properties for <db>.ix.txt.
func FuzzParseCSIndex(f *testing.F) {
	b, err := os.ReadFile("testdata/csoutput/sports2000.ix.txt")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b, byte(0))
	f.Add([]byte(strings.ReplaceAll(string(b), " ", ",")), byte(','))
	f.Fuzz(func(t *testing.T, in []byte, sep byte) {
		format := CSFormat{Sep: sep, Verbose: len(in)%2 == 1}
		a, err := format.ParseIndex(bytes.NewReader(in), "fuzz")
		if err != nil {
			require.Nil(t, a)
			return
		}
		var w1, w2 bytes.Buffer
		require.NoError(t, format.WriteIndex(&w1, a))
		a2, err := format.ParseIndex(bytes.NewReader(w1.Bytes()), "rewrite")
		require.NoError(t, err, "the writer's output must parse:\n%s", w1.String())
		require.Len(t, a2.Indexes, len(a.Indexes))
		require.NoError(t, format.WriteIndex(&w2, a2))
		a3, err := format.ParseIndex(bytes.NewReader(w2.Bytes()), "rewrite2")
		require.NoError(t, err)
		require.Equal(t, a2.Indexes, a3.Indexes)
	})
}

// TestSniffCSFormat: the separator is the byte after the first field, the
// -verbose header's "Time Stamp" or a row's time stamp, even when it is a
// character the time stamp itself holds.
func TestSniffCSFormat(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want byte
	}{
		{"space", `2015-07-07T17:05:42.000+2:00 "uid" "db"`, ' '},
		{"tab header", "\"Time Stamp\"\t\"DBUID\"", '\t'},
		{"pipe row", `2015-07-07T17:05:42.000+2:00|"uid"`, '|'},
		{"minus after a zone", `2015-07-07T17:05:42.000-4:00-"uid"`, '-'},
		{"minus without a zone", `2015-07-07T17:05:42.000-"uid"`, '-'},
		{"colon", `2015-07-07T17:05:42.000+2:00:"uid"`, ':'},
		{"quoted date (oesim), comma", `"Fri Nov 27 12:22:36 2026","-"`, ','},
		{"blank lines first", "\r\n\n\"Time Stamp\";\"DBUID\"", ';'},
		{"a report", "OpenEdge Release 12.8", 0},
		{"a quote is no separator", `"a""b"`, 0},
		{"empty", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, sniffCSFormat([]byte(tt.in)).Sep)
		})
	}
}
