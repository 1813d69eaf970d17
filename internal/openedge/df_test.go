package openedge

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The .df samples under testdata/df are written from the documented layout
// (openedge-formats.md §6.1): sports.df is sports2000-like with sequences,
// table and field triggers with CRC, a blob with LOB-AREA, a clob with the
// CLOB-* options, a word index, an inactive index, DESCRIPTION with "",
// a VALEXP over two lines, an extent field and a table whose name holds
// blanks, a dash, a quote and non-ASCII letters; sports-crlf.df is the same
// with CRLF line ends (so its trailer offset differs); incremental.df holds
// what oedl does not type (comments, an annotation, ADD DATABASE, UPDATE,
// RENAME, DROP, unknown options, orphan fields and indexes, a table with no
// AREA, bufpool=yes, a blank line after the offset); notrailer.df has no
// trailer and no final line end.

func dfSamples(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "df", "*.df"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 4)
	return files
}

func readDF(t *testing.T, path string) ([]byte, *DF) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	d, err := ParseDF(bytes.NewReader(data), filepath.Base(path))
	require.NoError(t, err)
	return data, d
}

func writeDF(t *testing.T, d *DF) []byte {
	t.Helper()
	var out bytes.Buffer
	n, err := d.WriteTo(&out)
	require.NoError(t, err)
	require.Equal(t, int64(out.Len()), n, "WriteTo returns the byte count")
	return out.Bytes()
}

func TestDFRoundTripByteForByte(t *testing.T) {
	for _, path := range dfSamples(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, d := readDF(t, path)
			assert.Equal(t, string(data), string(writeDF(t, d)))
		})
	}
}

func TestDFTypedGolden(t *testing.T) {
	for _, path := range dfSamples(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			_, d := readDF(t, path)
			assertGolden(t, "df/"+strings.TrimSuffix(filepath.Base(path), ".df")+".typed", []byte(dumpDF(d)))
		})
	}
}

// TestDFRewriteAreas moves every table, index and LOB to new areas and
// checks, beyond the golden, that nothing but AREA / LOB-AREA values and
// the trailer offset changed.
func TestDFRewriteAreas(t *testing.T) {
	for _, path := range dfSamples(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, d := readDF(t, path)
			for _, tb := range d.Tables() {
				require.NoError(t, d.SetTableArea(tb.Name, "New Data"))
				for _, ix := range tb.Indexes {
					require.NoError(t, d.SetIndexArea(tb.Name, ix.Name, "New Index"))
				}
				for _, f := range tb.Fields {
					if f.IsLOB() {
						require.NoError(t, d.SetLobArea(tb.Name, f.Name, "New \"Lob\" Area"))
					}
				}
			}
			out := writeDF(t, d)
			assertGolden(t, "df/"+strings.TrimSuffix(filepath.Base(path), ".df")+".rewritten", out)
			assertOnlyAreasChanged(t, string(data), string(out))

			again, err := ParseDF(bytes.NewReader(out), "rewritten")
			require.NoError(t, err)
			assert.Equal(t, string(out), string(writeDF(t, again)), "the rewritten file round-trips too")
			for _, tb := range again.Tables() {
				assert.Equal(t, "New Data", tb.Area)
				for _, ix := range tb.Indexes {
					assert.Equal(t, "New Index", ix.Area)
				}
				for _, f := range tb.Fields {
					if f.IsLOB() {
						assert.Equal(t, "New \"Lob\" Area", f.LobArea)
					}
				}
			}
		})
	}
}

var (
	areaLine  = regexp.MustCompile(`^\s*(AREA|LOB-AREA) "`)
	areaValue = regexp.MustCompile(`\b(AREA|LOB-AREA) "(?:[^"]|"")*"`)
)

// assertOnlyAreasChanged walks the lines of before and after: a line may
// differ only in the value of an AREA / LOB-AREA option, a line may be
// inserted only if it is an AREA / LOB-AREA option, and the trailer offset
// digits may change.
func assertOnlyAreasChanged(t *testing.T, before, after string) {
	t.Helper()
	maskAreas := func(s string) string { return areaValue.ReplaceAllString(s, `$1 "*"`) }
	b, a := strings.SplitAfter(before, "\n"), strings.SplitAfter(after, "\n")
	i, j := 0, 0
	for i < len(b) && j < len(a) {
		switch {
		case b[i] == a[j], maskAreas(b[i]) == maskAreas(a[j]): // same, or an area value replaced
			i, j = i+1, j+1
		case areaLine.MatchString(a[j]): // line inserted
			j++
		case strings.Trim(strings.TrimSpace(b[i]), "0123456789") == "" && strings.Trim(strings.TrimSpace(a[j]), "0123456789") == "":
			i, j = i+1, j+1 // the trailer offset
		default:
			t.Fatalf("unexpected change: %q became %q", b[i], a[j])
		}
	}
	assert.Equal(t, len(b)-i, len(a)-j, "same tail")
}

func TestDFTrailerOffsetRecomputed(t *testing.T) {
	data, _ := readDF(t, filepath.Join("testdata", "df", "sports-crlf.df"))
	psc := bytes.Index(data, []byte("\r\nPSC\r\n")) + 2
	want := fmt.Sprintf("%010d", psc)
	require.True(t, bytes.HasSuffix(data, []byte(want+"\r\n")), "the sample counts CR bytes in its offset")

	stale := bytes.Replace(data, []byte(want), []byte("0000000042"), 1)
	d, err := ParseDF(bytes.NewReader(stale), "stale.df")
	require.NoError(t, err)
	assert.Equal(t, string(data), string(writeDF(t, d)), "a stale offset is corrected on write")

	// Blanks around the digits are kept; only the digits change.
	padded := strings.Replace(string(data), want+"\r\n", " 17  \r\n", 1)
	d, err = ParseDF(strings.NewReader(padded), "padded.df")
	require.NoError(t, err)
	assert.True(t, strings.HasSuffix(string(writeDF(t, d)), " "+want+"  \r\n"))
}

func TestDFViews(t *testing.T) {
	_, d := readDF(t, filepath.Join("testdata", "df", "sports.df"))
	assert.Equal(t, "ISO8859-1", d.Codepage())
	require.Len(t, d.Sequences(), 2)
	assert.Equal(t, DFSequence{Name: "NextOrdNum", Initial: 1, Increment: 1, Min: ptr(int64(1)), Max: ptr(int64(999999)), Cycle: true, Line: 7}, *d.Sequences()[1])

	c := d.Table("CUSTOMER")
	require.NotNil(t, c, "Table is case-insensitive")
	assert.Equal(t, "Customer", c.Name)
	assert.Equal(t, []string{"CustNum", "Comments", "CreditLimit", "Since", "MonthQuota"}, fieldNames(c))
	assert.Equal(t, 12, c.Field("monthquota").Extent)
	assert.Equal(t, 2, c.Field("CreditLimit").Decimals)
	assert.Equal(t, "?", c.Field("Since").Initial)
	assert.True(t, c.Index("comments").Word)
	cs := c.Index("CreditSince")
	assert.True(t, cs.Inactive)
	assert.Equal(t, []DFIndexField{{Name: "CreditLimit", Descending: true}, {Name: "Since", Abbreviated: true}}, cs.Fields)

	odd := d.Table(`ship-to ädresse "quoted"`)
	require.NotNil(t, odd)
	assert.Equal(t, `Ship-To Ädresse "quoted"`, odd.Name)
	assert.Equal(t, []string{"Name"}, fieldNames(odd))

	assert.Equal(t, []string{"Data", "Index", "Lobs"}, d.AreaNames())
	assert.Empty(t, d.OrphanFields())
	assert.Nil(t, d.Table("Nope"))

	_, inc := readDF(t, filepath.Join("testdata", "df", "incremental.df"))
	assert.Equal(t, "UTF-8", inc.Codepage())
	require.Len(t, inc.OrphanFields(), 1)
	assert.Equal(t, "Email", inc.OrphanFields()[0].Name)
	require.Len(t, inc.OrphanIndexes(), 1)
	assert.Equal(t, "Customer", inc.OrphanIndexes()[0].Table)
	require.Len(t, inc.Tables(), 1)
	assert.Equal(t, "", inc.Tables()[0].Area)
	assert.True(t, inc.Tables()[0].Index("Id").Unique, "ADD UNIQUE INDEX")

	_, none := readDF(t, filepath.Join("testdata", "df", "notrailer.df"))
	assert.Equal(t, "", none.Codepage())
}

func TestDFSetInsertsOptionLines(t *testing.T) {
	_, d := readDF(t, filepath.Join("testdata", "df", "incremental.df"))
	require.NoError(t, d.SetTableArea("auditlog", "Audit"))
	require.NoError(t, d.SetIndexArea("AuditLog", "id", "Audit Idx"))
	require.NoError(t, d.SetLobArea("AuditLog", "payload", "Audit Lob"))
	out := string(writeDF(t, d))
	assert.Contains(t, out, "ADD TABLE \"AuditLog\" TYPE PROGRESS\n  AREA \"Audit\"\n  DUMP-NAME \"auditlog\"\n")
	assert.Contains(t, out, "ADD UNIQUE INDEX \"Id\" ON \"AuditLog\" \n  AREA \"Audit Idx\"\n  PRIMARY\n")
	assert.Contains(t, out, "  POSITION 2\n  LOB-AREA \"Audit Lob\"\n  LOB-BYTES 104857600\n")

	// The last line of a file without a final line end.
	d, err := ParseDF(strings.NewReader("ADD TABLE \"T\""), "t.df")
	require.NoError(t, err)
	require.NoError(t, d.SetTableArea("T", "A"))
	assert.Equal(t, "ADD TABLE \"T\"\n  AREA \"A\"", string(writeDF(t, d)))

	// CRLF files get CRLF option lines.
	d, err = ParseDF(strings.NewReader("ADD TABLE \"T\"\r\n  DUMP-NAME \"t\"\r\n"), "t.df")
	require.NoError(t, err)
	require.NoError(t, d.SetTableArea("T", "A"))
	assert.Equal(t, "ADD TABLE \"T\"\r\n  AREA \"A\"\r\n  DUMP-NAME \"t\"\r\n", string(writeDF(t, d)))

	// A bare-word value (ABL accepts one) is replaced by a quoted string;
	// lower-case keywords are keywords too.
	d, err = ParseDF(strings.NewReader("add table \"T\"\n  area Data\n"), "t.df")
	require.NoError(t, err)
	assert.Equal(t, "Data", d.Table("T").Area)
	require.NoError(t, d.SetTableArea("T", "New Data"))
	assert.Equal(t, "add table \"T\"\n  area \"New Data\"\n", string(writeDF(t, d)))

	// Options sharing the header line are rewritten in place.
	d, err = ParseDF(strings.NewReader("ADD INDEX \"i\" ON \"T\" AREA \"Old\" UNIQUE\n  INDEX-FIELD \"f\" ASCENDING\n\nADD TABLE \"T\"\n"), "t.df")
	require.NoError(t, err)
	require.NoError(t, d.SetIndexArea("t", "I", "New"))
	assert.Equal(t, "ADD INDEX \"i\" ON \"T\" AREA \"New\" UNIQUE\n  INDEX-FIELD \"f\" ASCENDING\n\nADD TABLE \"T\"\n", string(writeDF(t, d)))
}

func TestDFClone(t *testing.T) {
	data, d := readDF(t, filepath.Join("testdata", "df", "sports.df"))
	c := d.Clone()
	require.NoError(t, c.SetTableArea("Customer", "Elsewhere"))
	assert.Equal(t, "Data", d.Table("Customer").Area, "the original is untouched")
	assert.Equal(t, string(data), string(writeDF(t, d)))
	assert.Equal(t, "Elsewhere", c.Table("Customer").Area)
	assert.Equal(t, d.Name(), c.Name())
}

func TestDFSetErrors(t *testing.T) {
	_, d := readDF(t, filepath.Join("testdata", "df", "sports.df"))
	tests := []struct {
		name string
		set  func() error
		want string
	}{
		{"unknown table", func() error { return d.SetTableArea("Nope", "A") }, `sports.df: no ADD TABLE "Nope" in this file`},
		{"unknown index", func() error { return d.SetIndexArea("Customer", "Nope", "A") }, `sports.df:117: table "Customer" has no index "Nope"`},
		{"unknown field", func() error { return d.SetLobArea("Country", "Nope", "A") }, `sports.df:78: table "Country" has no field "Nope"`},
		{"not a LOB", func() error { return d.SetLobArea("Country", "Country", "A") }, `sports.df:82: field "Country" of table "Country" is character, not a blob or clob: it has no LOB-AREA`},
		{"orphan table", func() error { return d.SetIndexArea("Warehouse", "x", "A") }, `sports.df: no ADD TABLE "Warehouse" in this file`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.set()
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
		})
	}
}

func TestParseDFErrors(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"unterminated string", "ADD TABLE \"T\"\n  DESCRIPTION \"never\nclosed\n", `x.df:2: unterminated string starting "never`},
		{"option outside a statement", "ADD TABLE \"T\"\n\n  AREA \"Data\"\n", `x.df:3: AREA "Data" outside a statement`},
		{"a tabanalys given for a .df", "OpenEdge Release 11.7.4 as of Fri Jul 13 19:01:25 EDT 2018\n\nPROGRESS Database Analysis\n",
			`x.df:1: OpenEdge Release 11.7.4 as of Fri Jul 13... outside a statement: this is a tabanalys or dbanalys report, not a .df`},
		{"a report without its banner", "\nPROGRESS Database Analysis\n\nDatabase: /db/prod\n",
			`x.df:2: PROGRESS Database Analysis outside a statement: this is a tabanalys or dbanalys report, not a .df`},
		{"option before any statement", "  DUMP-NAME \"t\"\n", `x.df:1: DUMP-NAME "t" outside a statement`},
		{"ADD INDEX without ON", "ADD INDEX \"i\" \"T\"\n  AREA \"x\"\n", `x.df:1: ADD INDEX "i" without ON "table"`},
		{"ADD INDEX ON nothing", "ADD INDEX \"i\" ON\n", `x.df:1: ADD INDEX "i" without ON "table"`},
		{"INDEX-FIELD in a table", "ADD TABLE \"T\"\n  AREA \"x\"\n  INDEX-FIELD \"f\" ASCENDING\n", `x.df:3: INDEX-FIELD outside an ADD INDEX statement`},
		{"INDEX-FIELD in a field", "ADD FIELD \"f\" OF \"T\" AS integer\n  INDEX-FIELD \"f\"\n", `x.df:2: INDEX-FIELD outside an ADD INDEX statement`},
		{"ADD FIELD without OF", "ADD FIELD \"f\" AS integer\n", `x.df:1: ADD FIELD "f" without OF "table"`},
		{"ADD FIELD without AS", "ADD FIELD \"f\" OF \"T\"\n", `x.df:1: ADD FIELD "f" OF "T" without AS <data type>`},
		{"ADD TABLE without name", "ADD TABLE\n", `x.df:1: ADD TABLE without a table name`},
		{"bad ORDER", "ADD FIELD \"f\" OF \"T\" AS integer\n  ORDER ten\n", `x.df:2: ORDER "ten" is not a whole number`},
		{"AREA without value", "ADD TABLE \"T\"\n  AREA\n", `x.df:2: AREA needs a value`},
		{"bad MIN-VAL", "ADD SEQUENCE \"s\"\n  MIN-VAL low\n", `x.df:2: MIN-VAL "low" is not a whole number`},
		{"duplicate table", "ADD TABLE \"T\"\n\nADD TABLE \"t\"\n", `x.df:3: table "t" is already added on line 1`},
		{"duplicate field", "ADD TABLE \"T\"\n\nADD FIELD \"f\" OF \"T\" AS integer\n\nADD FIELD \"F\" OF \"T\" AS integer\n", `x.df:5: field "F" of table "T" is already added on line 3`},
		{"duplicate sequence", "ADD SEQUENCE \"s\"\n\nADD SEQUENCE \"s\"\n", `x.df:3: sequence "s" is already added on line 1`},
		{"text after the trailer", "ADD TABLE \"T\"\n\n.\nPSC\ncpstream=UTF-8\n.\n0000000015\nADD TABLE \"U\"\n", `x.df:8: unexpected "ADD TABLE \"U\"" in the trailer`},
		{"garbage in the trailer", ".\nPSC\nnot a key\n", `x.df:3: unexpected "not a key" in the trailer`},
		// Notepad's "Unicode" and a Windows PowerShell redirect write UTF-16.
		{"UTF-16LE", "\xff\xfeA\x00D\x00D\x00", `x.df:1: the file is UTF-16 (byte order mark FF FE)`},
		{"UTF-16BE", "\xfe\xff\x00A\x00D\x00D", `x.df:1: the file is UTF-16 (byte order mark FE FF)`},
		{"line numbers count lines inside strings", "ADD TABLE \"T\"\n  VALEXP \"a\nb\"\n\n  AREA \"x\"\n", `x.df:5: AREA "x" outside a statement`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := ParseDF(strings.NewReader(tt.text), "x.df")
			require.Error(t, err)
			assert.Nil(t, d, "no partial result")
			assert.True(t, strings.HasPrefix(err.Error(), tt.want), "error %q should start with %q", err, tt.want)
		})
	}
}

// A wide table switches duplicate detection from a scan to a map; both
// must find a duplicate whatever its case.
func TestParseDFDuplicateInWideTable(t *testing.T) {
	var b strings.Builder
	b.WriteString("ADD TABLE \"Wide\"\n\n")
	for i := range 40 {
		fmt.Fprintf(&b, "ADD FIELD \"F%d\" OF \"Wide\" AS integer\n\n", i)
	}
	b.WriteString("ADD FIELD \"f39\" OF \"wide\" AS integer\n")
	_, err := ParseDF(strings.NewReader(b.String()), "wide.df")
	require.EqualError(t, err, `wide.df:83: field "f39" of table "Wide" is already added on line 81`)

	d, err := ParseDF(strings.NewReader(strings.Replace(b.String(), `"f39"`, `"f40"`, 1)), "wide.df")
	require.NoError(t, err)
	assert.Len(t, d.Table("WIDE").Fields, 41)
}

func TestNewDF(t *testing.T) {
	tables := []*DFTable{
		{Name: "Customer", Area: "Data", Description: `The "best" customers`, Fields: []*DFField{
			{Name: "CustNum", Type: "integer", Label: "Cust Num", Mandatory: true},
			{Name: "Name", Type: "character", Format: "x(30)"},
			{Name: "Balance", Type: "decimal", Decimals: 2},
			{Name: "Quota", Type: "integer", Extent: 12},
			{Name: "Since", Type: "date"},
			{Name: "Photo", Type: "blob", LobArea: "Lobs"},
			{Name: "Notes", Type: "clob", LobArea: "Lobs"},
		}, Indexes: []*DFIndex{
			{Name: "CustNum", Area: "Index", Unique: true, Primary: true, Fields: []DFIndexField{{Name: "CustNum"}}},
			{Name: "NameWord", Area: "Index", Word: true, Fields: []DFIndexField{{Name: "Name"}}},
			{Name: "BalanceDesc", Area: "Index", Inactive: true, Fields: []DFIndexField{{Name: "Balance", Descending: true}, {Name: "Name", Abbreviated: true}}},
		}},
		{Name: "Order-Line", DumpName: "ordl", Fields: []*DFField{{Name: "Qty", Type: "int64"}}},
	}
	seqs := []*DFSequence{{Name: "NextCustNum", Initial: 1000, Increment: 5, Min: ptr(int64(1000))}}
	d := NewDF(tables, seqs, "UTF-8")
	out := writeDF(t, d)
	assertGolden(t, "df/newdf.golden", out)

	psc := bytes.Index(out, []byte("\nPSC\n")) + 1
	assert.True(t, bytes.HasSuffix(out, fmt.Appendf(nil, ".\n%010d\n", psc)), "trailer offset of the PSC line")
	assert.Contains(t, string(out), "ADD FIELD \"Name\" OF \"Customer\" AS character \n", "trailing blank after AS <type>")
	assert.Contains(t, string(out), "ADD INDEX \"CustNum\" ON \"Customer\" \n", "trailing blank after ON \"T\"")

	assert.Equal(t, "UTF-8", d.Codepage())
	c := d.Table("customer")
	require.NotNil(t, c)
	assert.Equal(t, "Data", c.Area)
	assert.Equal(t, `The "best" customers`, c.Description)
	assert.Equal(t, []string{"CustNum", "Name", "Balance", "Quota", "Since", "Photo", "Notes"}, fieldNames(c))
	assert.Equal(t, 30, c.Field("Balance").Order)
	assert.Equal(t, "Lobs", c.Field("Notes").LobArea)
	assert.Equal(t, tables[0].Indexes[2].Fields, c.Index("BalanceDesc").Fields)
	assert.Equal(t, "ordl", d.Table("Order-Line").DumpName)
	assert.Equal(t, "UNDEFINED", NewDF(nil, nil, "").Codepage())

	assert.PanicsWithValue(t, `openedge.NewDF: field "x" of "T" has data type ""`, func() {
		NewDF([]*DFTable{{Name: "T", Fields: []*DFField{{Name: "x"}}}}, nil, "")
	})
}

func fieldNames(t *DFTable) []string {
	var names []string
	for _, f := range t.Fields {
		names = append(names, f.Name)
	}
	return names
}

func ptr[T any](v T) *T { return &v }

// dumpDF prints the typed views, for the .typed goldens.
func dumpDF(d *DF) string {
	var b strings.Builder
	fmt.Fprintf(&b, "codepage %q\n", d.Codepage())
	for _, s := range d.Sequences() {
		fmt.Fprintf(&b, "sequence %q initial=%d increment=%d min=%s max=%s cycle=%t line=%d\n",
			s.Name, s.Initial, s.Increment, optInt(s.Min), optInt(s.Max), s.Cycle, s.Line)
	}
	for _, t := range d.Tables() {
		fmt.Fprintf(&b, "table %q area=%q dump-name=%q description=%q line=%d\n", t.Name, t.Area, t.DumpName, t.Description, t.Line)
		for _, f := range t.Fields {
			dumpField(&b, "    ", f)
		}
		for _, i := range t.Indexes {
			dumpIndex(&b, "    ", i)
		}
	}
	for _, f := range d.OrphanFields() {
		dumpField(&b, "orphan ", f)
	}
	for _, i := range d.OrphanIndexes() {
		dumpIndex(&b, "orphan ", i)
	}
	for _, c := range d.Changes() {
		keys := slices.Sorted(maps.Keys(c.Options))
		opts := make([]string, len(keys))
		for i, k := range keys {
			opts[i] = k + "=" + strconv.Quote(c.Options[k])
		}
		fmt.Fprintf(&b, "change %s %s %q table=%q to=%q as=%q primary=%t inactive=%t line=%d options=[%s]\n",
			c.Verb, c.Object, c.Name, c.Table, c.NewName, c.Type, c.Primary, c.Inactive, c.Line, strings.Join(opts, " "))
	}
	fmt.Fprintf(&b, "steps %d\n", len(d.Steps()))
	return b.String()
}

func dumpField(b *strings.Builder, indent string, f *DFField) {
	fmt.Fprintf(b, "%sfield %q of %q %s extent=%d order=%d lob-area=%q format=%q initial=%q label=%q decimals=%d mandatory=%t line=%d\n",
		indent, f.Name, f.Table, f.Type, f.Extent, f.Order, f.LobArea, f.Format, f.Initial, f.Label, f.Decimals, f.Mandatory, f.Line)
}

func dumpIndex(b *strings.Builder, indent string, i *DFIndex) {
	fmt.Fprintf(b, "%sindex %q on %q area=%q unique=%t primary=%t word=%t inactive=%t line=%d fields=%v\n",
		indent, i.Name, i.Table, i.Area, i.Unique, i.Primary, i.Word, i.Inactive, i.Line, i.Fields)
}

func optInt(p *int64) string {
	if p == nil {
		return "?"
	}
	return fmt.Sprint(*p)
}

// An option given twice on one line (the fuzzer found it: "ADD TABLE""
// AREA""AREA""") is rewritten right to left, so the second replacement
// does not land on offsets the first one moved.
func TestDFSetAreaTwiceOnOneLine(t *testing.T) {
	d, err := ParseDF(strings.NewReader("ADD TABLE \"t\" AREA \"a\" AREA \"bb\"\n"), "twice.df")
	require.NoError(t, err)
	require.NoError(t, d.SetTableArea("t", "Data Area"))
	var out bytes.Buffer
	_, err = d.WriteTo(&out)
	require.NoError(t, err)
	assert.Equal(t, "ADD TABLE \"t\" AREA \"Data Area\" AREA \"Data Area\"\n", out.String())
}
