package openedge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func analysisFixtures(t *testing.T) []string {
	t.Helper()
	names, err := filepath.Glob("testdata/analysis/*analys")
	require.NoError(t, err)
	require.NotEmpty(t, names)
	return names
}

func parseFixture(t *testing.T, path string) *Analysis {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	a, err := ParseAnalysis(f, filepath.Base(path))
	require.NoError(t, err)
	return a
}

// Each fixture's parse is pinned in a .json golden and its rewrite in a
// .written golden; the facts test below says what the goldens must hold.
func TestParseAnalysisGolden(t *testing.T) {
	for _, path := range analysisFixtures(t) {
		base := filepath.Base(path)
		t.Run(base, func(t *testing.T) {
			a := parseFixture(t, path)
			js, err := json.MarshalIndent(a, "", "  ")
			require.NoError(t, err)
			assertGolden(t, filepath.Join("analysis", base+".json"), append(js, '\n'))

			var out bytes.Buffer
			require.NoError(t, WriteAnalysis(&out, a))
			assertGolden(t, filepath.Join("analysis", base+".written"), out.Bytes())
		})
	}
}

func TestParseAnalysisFacts(t *testing.T) {
	sports := parseFixture(t, "testdata/analysis/sports2000_11.5.1.dbanalys")
	old := parseFixture(t, "testdata/analysis/old_spacing_10.1.tabanalys")
	part := parseFixture(t, "testdata/analysis/partitions_11.7.tabanalys")

	t.Run("header", func(t *testing.T) {
		assert.Equal(t, "OpenEdge Release 11.5.1 as of Wed May  6 18:21:44 EDT 2015", sports.Release)
		assert.Equal(t, "/usr2/cce/appl/test/cvb/dbanal/sample/sports2000", sports.Database)
		assert.Equal(t, 4096, sports.BlockSize)
		assert.Equal(t, 5, sports.RecSpaceSearchDepth)
		assert.Equal(t, "chanalys ixanalys tabanalys", sports.Options)
		assert.Equal(t, "Tue Jul  7 17:05:42 2015", sports.Date)
		assert.Equal(t, int64(1103), sports.RMBlocks)
		assert.Equal(t, 52.35, sports.RMUsedPct)
		// 10.x suffixes header lines with their message number.
		assert.Equal(t, "/db/legacy/prod", old.Database)
		assert.Equal(t, 8192, old.BlockSize)
		assert.Equal(t, "tabanalys", old.Options)
		assert.Zero(t, old.RecSpaceSearchDepth)
	})

	t.Run("tables and areas", func(t *testing.T) {
		// Only the RECORD BLOCK SUMMARY counts: the DATABASE SUMMARY rows
		// (PUB.Benefits again, PUB._Client-Session wrapped) are skipped.
		require.Len(t, sports.Tables, 8)
		assert.Equal(t, TableStat{Area: "Cust_Data", AreaNum: 9, Owner: "PUB", Name: "Customer", Line: 173,
			Records: 1117, Bytes: 150630, MinRecord: 98, MaxRecord: 225, MeanRecord: 134,
			Fragments: 1117, FragFactor: 1, ScatterFactor: 1}, sports.Tables[7])
		assert.Equal(t, []AreaSummary{
			{"Control Area", 1, 24, 961}, {"Schema Area", 6, 1341, 164659},
			{"Employee", 7, 83, 7373}, {"Cust_Data", 9, 1117, 150630}, {"Cust_Index", 10, 0, 0},
		}, sports.Areas)

		// " : " spacing, wrapped names, no "Summary for AREA" (summed from rows).
		require.Len(t, old.Tables, 5)
		assert.Equal(t, reportAreaKey{"Order Data", 11}, reportAreaKey{old.Tables[3].Area, old.Tables[3].AreaNum})
		assert.Equal(t, "order-line-history-archive", old.Tables[3].Name)
		assert.Equal(t, int64(1234567), old.Tables[3].Records)
		assert.Equal(t, int64(106220749), old.Tables[3].Bytes) // 101.3M = 101.3 × 1024²
		assert.Equal(t, int64(1240001), old.Tables[3].Fragments)
		assert.Equal(t, "Invoice-Adjustments-Pending", old.Tables[4].Name)
		assert.Equal(t, AreaSummary{"Order Data", 11, 1346487, 111883059}, old.Areas[1])

		// Partitions, the composite initial partition wrapped, a tenant heading,
		// a LOB summary that must not add tables, an area with no tables.
		require.Len(t, part.Tables, 5)
		assert.Equal(t, [3]string{"cust-list", "list1", ""}, [3]string{part.Tables[2].Name, part.Tables[2].Partition, part.Tables[2].Tenancy})
		assert.Equal(t, "Initial(Composite)", part.Tables[3].Partition)
		assert.Equal(t, int64(50000), part.Tables[3].Records)
		assert.Equal(t, "TENANT acme: 2", part.Tables[4].Tenancy)
		assert.Equal(t, "PUB.order", part.Tables[4].QualifiedName())
		assert.Equal(t, AreaSummary{"Empty Data", 18, 0, 0}, part.Areas[1])
	})

	t.Run("indexes", func(t *testing.T) {
		require.Len(t, sports.Indexes, 10)
		assert.Equal(t, IndexStat{Area: "Schema Area", AreaNum: 6, Owner: "PUB", Table: "_Constraint",
			Name: "_Con-dependency", Number: -1604, Fields: 4, Levels: 1, Blocks: 1, Bytes: 3,
			Util: 0.1, Factor: 1}, sports.Indexes[2])
		assert.Equal(t, int64(26), sports.IndexBlocks)
		assert.Equal(t, 48.24, sports.IndexUsedPct)

		require.Len(t, part.Indexes, 8)
		assert.Equal(t, [2]string{"BinNum", "0"}, [2]string{part.Indexes[0].Name, part.Indexes[0].Partition})
		assert.Equal(t, [2]string{"IntField-1", "3"}, [2]string{part.Indexes[1].Name, part.Indexes[1].Partition})
		wrapped := part.Indexes[2]
		assert.Equal(t, "stock-by-warehouse-and-bin-location", wrapped.Name)
		assert.True(t, wrapped.Inactive)
		assert.Equal(t, 31, wrapped.Number)
		assert.Equal(t, int64(40), wrapped.Blocks)
		assert.Equal(t, -88, part.Indexes[3].Number)
		// Partition sub-lines of a local index: 5 numbers, the index number
		// and fields taken from the index row above.
		assert.Equal(t, IndexStat{Area: "Inventory", AreaNum: 8, Owner: "PUB", Table: "stock", Name: "StockDate",
			Partition: "1", Number: 32, Fields: 1, Levels: 2, Blocks: 215, Bytes: 1677722, Util: 98.2, Factor: 1}, part.Indexes[5])
		assert.True(t, part.Indexes[6].Inactive)
		assert.Equal(t, "2", part.Indexes[6].Partition)
		assert.Equal(t, "order", part.Indexes[7].Table)
		assert.Empty(t, old.Indexes)
	})
}

// The writer must reproduce the 11.5.1 layout column for column: the record
// and index summaries of the sports2000 fixture (rows copied from the real
// report, subtotals computed the way the real report computes them) come
// out of Write(Parse(...)) unchanged.
func TestWriteAnalysisMatchesReferenceLayout(t *testing.T) {
	raw, err := os.ReadFile("testdata/analysis/sports2000_11.5.1.dbanalys")
	require.NoError(t, err)
	a, err := ParseAnalysis(bytes.NewReader(raw), "sports2000")
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, WriteAnalysis(&out, a))

	// The grand totals are left out: the utility sums exact byte counts,
	// the writer can only sum the rounded sizes it was given (316.0K from
	// the real rows, 316.1K from their printed sizes).
	section := func(s string) string {
		start := strings.Index(s, "                            RECORD BLOCK SUMMARY")
		end := strings.Index(s, "% of the index block space is used.")
		require.True(t, start >= 0 && end > start, "summaries not found")
		var keep []string
		for _, l := range strings.Split(s[start:end], "\n") {
			if !strings.HasPrefix(l, "Totals:") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	assert.Equal(t, section(string(raw)), section(out.String()))
	assert.True(t, strings.HasPrefix(out.String(), string(raw[:strings.Index(string(raw), "\n\n\nCHAIN")+1])),
		"header block differs")
	assert.True(t, strings.HasSuffix(out.String(), "\n"+sizeKey))
}

// sampleAnalysis exercises every writer feature: wrapping, partitions,
// tenancy, inactive and partitioned indexes, negative index numbers, an
// index-only area and an area that only an index names.
func sampleAnalysis() *Analysis {
	return &Analysis{
		Database: "/db/x", BlockSize: 8192, Options: "tabanalys", Date: "Sun Nov 22 07:00:00 2026",
		RMBlocks: 90, RMUsedPct: 61.5,
		Areas: []AreaSummary{{Name: "Data", Number: 7}, {Name: "Index Only", Number: 8}},
		Tables: []TableStat{
			{Area: "Data", AreaNum: 7, Owner: "PUB", Name: "customer", Records: 1117, Bytes: 150588, MinRecord: 98, MaxRecord: 225, MeanRecord: 134, Fragments: 1117, FragFactor: 1, ScatterFactor: 1},
			{Area: "Data", AreaNum: 7, Owner: "PUB", Name: "a-table-with-a-name-that-is-thirty-two", Partition: "Initial(Composite)", Records: 123456789, Bytes: 987654321012, MinRecord: 1, MaxRecord: 31000, MeanRecord: 8000, Fragments: 123456999, FragFactor: 1, ScatterFactor: 4.2},
			{Area: "Data", AreaNum: 7, Owner: "PUB", Name: "order", Partition: "p2019", Records: 4, Bytes: 400, MinRecord: 90, MaxRecord: 110, MeanRecord: 100, Fragments: 5, FragFactor: 1.3, ScatterFactor: 2},
			{Area: "Data", AreaNum: 7, Owner: "sqlusr", Name: "empty", Tenancy: "TENANT t1: 2"},
		},
		Indexes: []IndexStat{
			{Area: "Index Only", AreaNum: 8, Owner: "PUB", Table: "customer", Name: "CustNum", Number: 12, Fields: 1, Levels: 2, Blocks: 4, Bytes: 10138, Util: 62.2, Factor: 1.8},
			{Area: "Index Only", AreaNum: 8, Owner: "PUB", Table: "customer", Name: "a-very-long-index-name-indeed", Inactive: true, Number: 13, Fields: 3, Levels: 3, Blocks: 40, Bytes: 215450, Util: 64.2, Factor: 1.4},
			{Area: "Meta", AreaNum: 6, Owner: "PUB", Table: "_Constraint", Name: "_Con-dependency", Number: -1604, Fields: 4, Levels: 1, Blocks: 1, Bytes: 3, Util: 0.1, Factor: 1},
			{Area: "Meta", AreaNum: 6, Owner: "PUB", Table: "Bin", Name: "BinNum", Partition: "0", Number: 10, Fields: 1, Levels: 2, Blocks: 3, Bytes: 6963, Util: 57.1, Factor: 1.9},
		},
	}
}

// roundSizes applies what a trip through the Size column does to a byte
// count: one decimal of the largest unit.
func roundSizes(a *Analysis) {
	for i := range a.Tables {
		a.Tables[i].Bytes = mustParseSize(FormatSize(a.Tables[i].Bytes))
	}
	for i := range a.Indexes {
		a.Indexes[i].Bytes = mustParseSize(FormatSize(a.Indexes[i].Bytes))
	}
}

func mustParseSize(s string) int64 {
	n, err := ParseSize(s)
	if err != nil {
		panic(err)
	}
	return n
}

// rowsWithoutLines is the rows without the lines that name them, which a
// written report has and the rows it was written from do not.
func rowsWithoutLines(rows []TableStat) []TableStat {
	out := slices.Clone(rows)
	for i := range out {
		out[i].Line = 0
	}
	return out
}

func TestAnalysisRoundTrip(t *testing.T) {
	a := sampleAnalysis()
	var out bytes.Buffer
	require.NoError(t, WriteAnalysis(&out, a))
	got, err := ParseAnalysis(bytes.NewReader(out.Bytes()), "roundtrip")
	require.NoError(t, err, out.String())

	want := sampleAnalysis()
	roundSizes(want)
	assert.Equal(t, want.Tables, rowsWithoutLines(got.Tables))
	assert.Equal(t, want.Indexes, got.Indexes)
	assert.Equal(t, []AreaSummary{
		{Name: "Data", Number: 7, Records: 123457910, Bytes: mustParseSize(FormatSize(150588 + 987654321012 + 400))},
		{Name: "Index Only", Number: 8}, {Name: "Meta", Number: 6},
	}, got.Areas)
	assert.Equal(t, int64(48), got.IndexBlocks, "defaults to the sum of the index blocks")

	// Writing what was parsed is a fixed point.
	var again bytes.Buffer
	require.NoError(t, WriteAnalysis(&again, got))
	assert.Equal(t, out.String(), again.String())
}

func TestWriteAnalysisGolden(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, WriteAnalysis(&out, sampleAnalysis()))
	assertGolden(t, "analysis/sample.written", out.Bytes())
	require.Error(t, WriteAnalysis(&out, nil))
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, os.ErrClosed }

func TestWriteAnalysisReportsWriteErrors(t *testing.T) {
	err := WriteAnalysis(failingWriter{}, sampleAnalysis())
	require.ErrorIs(t, err, os.ErrClosed)
}

// report wraps table rows in the minimum a parser accepts.
// report is a record summary with rows in area "Data" and a Totals: line
// of records, what the rows add up to in a report that is not cut.
func report(rows string, records int) string {
	return "PROGRESS Database Analysis\n\nDatabase: /db/x\nBlocksize: 8192\n\n" +
		"RECORD BLOCK SUMMARY\n\n" +
		"RECORD BLOCK SUMMARY FOR AREA \"Data\": 7\n" +
		"-------------------------------------------------------\n" + // line 9: rows start at 10
		rows +
		fmt.Sprintf("Totals:                 %d  9.0B 1 1 1 9 1.0 1.0\n", records)
}

func TestParseAnalysisErrors(t *testing.T) {
	const row = "PUB.Customer  1117  147.1K  98  225  134  1117  1.0  1.0\n"
	tests := []struct {
		name, input, want string
	}{
		{"empty input", "", "r.txt: no RECORD BLOCK SUMMARY"},
		{"not a report", "hello\nworld\n", "r.txt: no RECORD BLOCK SUMMARY"},
		{"a .df given for a report", "ADD SEQUENCE \"s\"\n  INITIAL 0\n\nADD TABLE \"Customer\"\n  AREA \"Data\"\n",
			`r.txt: no RECORD BLOCK SUMMARY: line 1 (ADD SEQUENCE "s") is a .df statement: this is a .df, not a tabanalys or dbanalys report`},
		{"malformed whole number", report("PUB.Customer  1117  147.1K  98  2x5  134  1117  1.0  1.0\n", 1117),
			`r.txt:10: PUB.Customer Max "2x5" is not a whole number`},
		{"malformed size", report("PUB.Customer  1117  147.1Q  98  225  134  1117  1.0  1.0\n", 1117),
			`r.txt:10: PUB.Customer Size: malformed size "147.1Q"`},
		{"malformed factor", report("PUB.Customer  1117  147.1K  98  225  134  1117  1.0  NaN\n", 1117),
			`r.txt:10: PUB.Customer Scatter Factor "NaN" is not a decimal number`},
		{"too few numbers", report("PUB.Customer  1117  147.1K  98  225\n", 1117),
			"r.txt:10: table row PUB.Customer has 4 numbers, want 8"},
		{"numbers without a name", report("             1117  147.1K  98  225  134  1117  1.0  1.0\n", 0),
			"r.txt:10: numbers line without a table name"},
		{"wrapped name then text", report("PUB.a-long-name\nSubtotals: 1 1.0B 1 1 1 1 1.0 1.0\n", 1),
			`r.txt:11: "PUB.a-long-name" (line 10) is not followed by its numbers`},
		{"table row outside an area", "RECORD BLOCK SUMMARY\n" + row + "Totals: 1 1.0B 1 1 1 1 1.0 1.0\n",
			"r.txt:2: table row PUB.Customer outside an area"},
		{"cut off after a wrapped name", "RECORD BLOCK SUMMARY\nRECORD BLOCK SUMMARY FOR AREA \"D\": 7\nPUB.a-long-name\n",
			`r.txt:3: "PUB.a-long-name" has no numbers line: the report is cut off`},
		{"cut off before Totals", "RECORD BLOCK SUMMARY\nRECORD BLOCK SUMMARY FOR AREA \"D\": 7\n" + row,
			"r.txt:3: RECORD BLOCK SUMMARY ends without its Totals: line: the report is cut off"},
		{"summary without subtotals", report("Summary for AREA \"Data\": 7\n", 0),
			"r.txt:10: Summary for AREA has no Subtotals: line"},
		{"malformed area heading", "RECORD BLOCK SUMMARY\nRECORD BLOCK SUMMARY FOR AREA Data: x\n",
			`r.txt:2: malformed area heading`},
		{"bad block size", "Database: /db/x\nBlocksize: big\nRECORD BLOCK SUMMARY\n", `r.txt:2: the block size (the header's second value) "big" is not a number`},
		{"index before its table", report("", 0) + "INDEX BLOCK SUMMARY\nINDEX BLOCK SUMMARY FOR AREA \"Data\": 7\n  CustNum 12 1 2 4 9.9K 62.2 1.8\n",
			"r.txt:13: index CustNum before its table line"},
		{"partition line without its index", report("", 0) + "INDEX BLOCK SUMMARY\nINDEX BLOCK SUMMARY FOR AREA \"Data\": 7\nPUB.Customer\n  CustNum:1 2 4 9.9K 62.2 1.8\n",
			"r.txt:14: partition line CustNum:1 is not under the row of index CustNum"},
		{"index row with 5 numbers and no partition", report("", 0) + "INDEX BLOCK SUMMARY\nINDEX BLOCK SUMMARY FOR AREA \"Data\": 7\nPUB.Customer\n  CustNum 2 4 9.9K 62.2 1.8\n",
			"r.txt:14: index row CustNum has 5 numbers, want 7 (or 5 for a partition line)"},
		{"index section cut off", report("", 0) + "INDEX BLOCK SUMMARY\nINDEX BLOCK SUMMARY FOR AREA \"Data\": 7\nPUB.Customer\n  CustNum 12 1 2 4 9.9K 62.2 1.8\n",
			"INDEX BLOCK SUMMARY ends without its Totals: line: the report is cut off"},
		{"two record summaries", report("", 0) + "RECORD BLOCK SUMMARY\n", "r.txt:11: a second RECORD BLOCK SUMMARY"},
		// A page header (or a second report's header) between the rows:
		// its "Blocksize: 8192" read as a table row without owner said
		// "table row Blocksize: has 1 numbers, want 8" (nu-trial8).
		{"header line among the rows", report(row+"Blocksize: 8192\n", 1117),
			`r.txt:11: "Blocksize: 8192" is a line of a report's header, inside the RECORD BLOCK SUMMARY`},
		{"line too long", "RECORD BLOCK SUMMARY\n" + strings.Repeat("x", 5<<20), "r.txt:2: bufio.Scanner: token too long"},
		// A row oedl does not read as one (new-user trial 5): before the
		// Subtotals:/Totals: check these parsed, one table short, and
		// verify compared the same short list before and after.
		{"a row indented (pasted from a mail or a wiki)", report("PUB.a  1 1.0B 1 1 1 1 1.0 1.0\n  PUB.b  5 5.0B 1 1 1 5 1.0 1.0\n", 6),
			"r.txt:12: Totals: says 6 records, the table rows in the report add up to 1: a line of the report is a table row oedl did not read as one"},
		{"an owner not starting with an ASCII letter", report("PUB.a  1 1.0B 1 1 1 1 1.0 1.0\n\u00c5sa.kunder  5 5.0B 1 1 1 5 1.0 1.0\n"+
			"Subtotals:  6 6.0B 1 1 1 6 1.0 1.0\n", 6),
			"r.txt:12: Subtotals: says 6 records, the table rows since the heading on line 8 add up to 1"},
		{"an area summary short of a row", report("PUB.a  1 1.0B 1 1 1 1 1.0 1.0\n  PUB.b  5 5.0B 1 1 1 5 1.0 1.0\n"+
			"Summary for AREA \"Data\": 7\nSubtotals:  6 6.0B 1 1 1 6 1.0 1.0\n", 6),
			`r.txt:13: Subtotals: of area "Data": 7 says 6 records, the table rows of the area add up to 1`},
		{"a Totals: line without numbers", "RECORD BLOCK SUMMARY\nRECORD BLOCK SUMMARY FOR AREA \"D\": 7\nTotals:\n", "r.txt:3: Totals: has no numbers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := ParseAnalysis(strings.NewReader(tt.input), "r.txt")
			require.Error(t, err)
			assert.Nil(t, a, "no partial result with an error")
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestParseAnalysisTolerates(t *testing.T) {
	tests := []struct {
		name, rows string
		tables     int
	}{
		{"warning line", "[Warning] database in use - reported statistics are approximations. (2486)\n" +
			"PUB.a 1 1.0B 1 1 1 1 1.0 1.0\n", 1},
		{"old titles and spacing", "RECORD BLOCK SUMMARY FOR AREA \"Data\" : 7 (14212)\nPUB.a 1 1.0B 1 1 1 1 1.0 1.0\n", 1},
		{"tabs and CRLF", "PUB.a\t1\t1.0B\t1 1 1 1 1.0 1.0\r\n", 1},
		{"chain analysis in between", "CHAIN ANALYSIS FOR AREA \"Data\": 7\nPUB.x is not a row here\n" +
			"RECORD BLOCK SUMMARY FOR AREA \"Data\": 7\nPUB.a 1 1.0B 1 1 1 1 1.0 1.0\n", -1},
		{"lob summary", "LOB SUMMARY FOR AREA dbArea3: 9\nPUB.Invoice:1\n    InvBlob1:5 400 55.1M 1.0B 976.6K 141.0K\n" +
			"Summary for AREA \"Data\": 7\nSubtotals: 0 0.0B 0 0 0 0 0.0 1.0\n", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := ParseAnalysis(strings.NewReader(report(tt.rows, tt.tables)), "r.txt")
			if tt.tables < 0 { // a chain analysis ends the record summary: needs its own Totals
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Len(t, a.Tables, tt.tables)
		})
	}
}

// An ixanalys has no RECORD BLOCK SUMMARY: the writer leaves it out and the
// parser accepts its absence only for such a report.
func TestIndexOnlyReport(t *testing.T) {
	a := sampleAnalysis()
	a.Options, a.Tables = "ixanalys", nil
	var out bytes.Buffer
	require.NoError(t, WriteAnalysis(&out, a))
	assert.NotContains(t, out.String(), "RECORD BLOCK SUMMARY")
	got, err := ParseAnalysis(&out, "ix")
	require.NoError(t, err)
	want := sampleAnalysis()
	roundSizes(want)
	assert.Equal(t, want.Indexes, got.Indexes)
	assert.Empty(t, got.Tables)

	_, err = ParseAnalysis(strings.NewReader("Options: tabanalys\nINDEX BLOCK SUMMARY\nTotals: 0 0.0B 0.0 0.0\n"), "tab")
	assert.ErrorContains(t, err, "tab: no RECORD BLOCK SUMMARY")
	_, err = ParseAnalysis(strings.NewReader("Options: ixanalys\n"), "empty-ix")
	assert.ErrorContains(t, err, "no RECORD BLOCK SUMMARY", "an ixanalys still needs its index summary")

	assert.True(t, IndexOnlyOptions("ixanalys "))
	assert.True(t, IndexOnlyOptions("IDXANALYS"))
	assert.False(t, IndexOnlyOptions("chanalys ixanalys tabanalys"))
	assert.False(t, IndexOnlyOptions(""))
}

// TestParseAnalysisLOBs: since 11.6 a LOB SUMMARY gives each blob and clob
// field's LOB count and bytes (KB 000029044), often most of a table's data;
// oedl sizes the LOB area from them. The layouts: field rows indented under
// their table (12.x), not indented (the KB's 11.7.5 sample), a field name
// wrapped alone on its line, the LOB area's name unquoted in the heading.
func TestParseAnalysisLOBs(t *testing.T) {
	tests := []struct {
		name, rows string
		want       []LOBStat
		wantErr    string
	}{
		{"indented rows", "LOB SUMMARY FOR AREA Lob Area: 9\nLOB SUMMARY FOR SHARED TABLES:\n" +
			"Table                                 LOBs     Size      Min      Max     Mean\nPUB.Invoice:6\n" +
			"    InvBlob1:17   147  20.3M  1.0B  976.6K  141.0K\n    InvClob1:18   147  14.4M  1.0B  976.6K  100.5K\n" +
			"Subtotals:  294  34.7M  1.0B  976.6K  120.8K\n",
			[]LOBStat{
				{Area: "Lob Area", AreaNum: 9, Owner: "PUB", Table: "Invoice", Field: "InvBlob1", LOBs: 147, Bytes: 21286093, MaxLOB: 1000038},
				{Area: "Lob Area", AreaNum: 9, Owner: "PUB", Table: "Invoice", Field: "InvClob1", LOBs: 147, Bytes: 15099494, MaxLOB: 1000038},
			}, ""},
		{"rows not indented", "LOB SUMMARY FOR AREA Mislob: 17\nPUB.testdata:27\nblobdata:5 500 732.9M 1.4M 8.2M 4.8M\n",
			[]LOBStat{{Area: "Mislob", AreaNum: 17, Owner: "PUB", Table: "testdata", Field: "blobdata", LOBs: 500, Bytes: 768501350, MaxLOB: 8598323}}, ""},
		{"wrapped field name", "LOB SUMMARY FOR AREA \"Lobs\": 9\nPUB.Document:4\n    a-very-long-attachment-field-name:12\n      3  1.5K  512B  512B  512B\n",
			[]LOBStat{{Area: "Lobs", AreaNum: 9, Owner: "PUB", Table: "Document", Field: "a-very-long-attachment-field-name", LOBs: 3, Bytes: 1536, MaxLOB: 512}}, ""},
		{"field row before its table", "LOB SUMMARY FOR AREA Lobs: 9\n    InvBlob1:17   147  20.3M  1.0B  976.6K  141.0K\n",
			nil, "r.txt:11: LOB row InvBlob1 before its table line"},
		{"malformed LOB size", "LOB SUMMARY FOR AREA Lobs: 9\nPUB.Invoice:6\n    InvBlob1:17   147  20.3Q  1.0B  976.6K  141.0K\n",
			nil, `r.txt:12: PUB.Invoice.InvBlob1 Size: malformed size "20.3Q"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := report(tt.rows+"Summary for AREA \"Data\": 7\nSubtotals: 0 0.0B 0 0 0 0 0.0 1.0\n", 0)
			a, err := ParseAnalysis(strings.NewReader(in), "r.txt")
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Nil(t, a)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, a.LOBs)
		})
	}
}

// TestParseAnalysisTimestampedLines: a dbanalys captured through a script
// that puts the time before every line ("02:15:18   cod-conhec  71 ...", as
// George Potemkin's dbanalys loader expects them) reads as the report
// itself: every row, the wrapped index name, the indented index rows. Before, no
// line was recognised and the report was refused as not a tabanalys.
// TestTableRowLine: a row is named by the line that holds its table's
// name, a wrapped row by its name's line, not its numbers' (plan's
// messages name it: a name over 32 characters).
func TestTableRowLine(t *testing.T) {
	a := parseFixture(t, "../../testdata/tabanalys/wrapped_10.1B.tabanalys")
	lines := map[string]int{}
	for _, tb := range a.Tables {
		lines[tb.Name] = tb.Line
	}
	assert.Equal(t, 16, lines["tr_hist"])
	assert.Equal(t, 17, lines["tr_hist_archive_by_site"], "wrapped: the numbers are on line 18")
}

func TestParseAnalysisTimestampedLines(t *testing.T) {
	a := parseFixture(t, "../../testdata/tabanalys/timestamped_lines_11.7.dbanalys")
	require.Len(t, a.Tables, 4)
	var records int64
	for _, tb := range a.Tables {
		records += tb.Records
	}
	assert.Equal(t, int64(358908), records)
	assert.Equal(t, "conhec-ocorrencia-historico-det", a.Tables[2].Name)
	assert.Equal(t, 70, a.Tables[2].Line)
	assert.Equal(t, int64(310442), a.Tables[2].Records)
	require.Len(t, a.Indexes, 4)
	assert.Equal(t, "pk-ocorrencia-conhec-sequencia", a.Indexes[2].Name, "wrapped after its name")
	assert.Equal(t, 4096, a.BlockSize)
	assert.Equal(t, "/db/logistica/log", a.Database)

	// A time must be the whole first word: a row is never taken for one.
	_, err := ParseAnalysis(strings.NewReader("02:15:07x OpenEdge Release 11.7\n"), "t")
	require.Error(t, err)
}
