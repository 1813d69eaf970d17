package openedge

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// NewDF builds a .df in the layout the Data Dictionary dumps
// (openedge-formats.md §6.1; option order as in prodict/dump/_dmpdefs.p):
// sequences first, then each table followed by its fields and its indexes
// in the order given (the dictionary puts the primary index first);
// options indented by two spaces; a blank line after every statement; a
// trailing blank after `AS <type>`, `ON "T"` and each INDEX-FIELD; then the
// trailer with cpstream=codepage ("UNDEFINED" when empty). LOB fields get
// LOB-AREA / LOB-BYTES / LOB-SIZE instead of MAX-WIDTH, DECIMALS is written
// for decimals and LENGTH 0 for characters, as the dictionary does.
//
// A table, field or sequence with Options gets those lines instead of the
// generated options, an index gets them after its AREA and flags (a loader
// writing back what it read: oesim's dump_df.p).
//
// Fields without Format or Initial get the Data Dictionary defaults of their
// type; a field without Order gets 10, 20, 30... in the order given. The
// result is what ParseDF returns for those bytes, so it has the same typed
// views, Set* methods and WriteTo as a file read from disk. NewDF panics
// when a table, field, index or sequence has no name or a field no type:
// that is a bug in the caller, not bad input.
func NewDF(tables []*DFTable, seqs []*DFSequence, codepage string) *DF {
	var b bytes.Buffer
	for _, s := range seqs {
		writeSequence(&b, s)
	}
	for _, t := range tables {
		writeTable(&b, t)
	}
	for _, t := range tables {
		writeUpdates(&b, t)
	}
	if codepage == "" {
		codepage = "UNDEFINED"
	}
	// The offset is recomputed by WriteTo on the bytes it writes; the parse
	// below only needs the trailer's shape.
	fmt.Fprintf(&b, ".\nPSC\ncpstream=%s\n.\n%010d\n", codepage, 0)
	d, err := parseDF(b.Bytes(), "NewDF")
	if err != nil {
		panic(fmt.Sprintf("openedge.NewDF: invalid definitions: %v", err))
	}
	return d
}

func mustName(kind, name string) string {
	if strings.TrimSpace(name) == "" {
		panic("openedge.NewDF: " + kind + " without a name")
	}
	return dfQuote(name)
}

func writeSequence(b *bytes.Buffer, s *DFSequence) {
	fmt.Fprintf(b, "ADD SEQUENCE %s\n", mustName("sequence", s.Name))
	if s.Options != nil {
		writeOptions(b, s.Options)
		return
	}
	fmt.Fprintf(b, "  INITIAL %d\n  INCREMENT %d\n  CYCLE-ON-LIMIT %s\n", s.Initial, s.Increment, yesNo(s.Cycle))
	if s.Min != nil {
		fmt.Fprintf(b, "  MIN-VAL %d\n", *s.Min)
	}
	if s.Max != nil {
		fmt.Fprintf(b, "  MAX-VAL %d\n", *s.Max)
	}
	b.WriteString("\n")
}

func writeTable(b *bytes.Buffer, t *DFTable) {
	fmt.Fprintf(b, "ADD TABLE %s\n", mustName("table", t.Name))
	if t.Options != nil {
		writeOptions(b, t.Options)
	} else {
		writeTableOptions(b, t)
	}
	for i, f := range t.Fields {
		writeField(b, t.Name, f, i)
	}
	for _, ix := range t.Indexes {
		writeIndex(b, t.Name, ix)
	}
}

// writeOptions writes kept option lines, then the blank line that ends
// every statement.
func writeOptions(b *bytes.Buffer, lines []string) {
	writeLines(b, lines, false)
	b.WriteString("\n")
}

// writeLines writes the kept lines that go in the ADD statement
// (deferred false) or those the Data Dictionary writes in an UPDATE
// statement after all of them (deferred true).
func writeLines(b *bytes.Buffer, lines []string, deferred bool) {
	for _, l := range lines {
		if updateOnly[optionKeyword(l)] == deferred {
			b.WriteString(l)
			b.WriteString("\n")
		}
	}
}

// updateOnly are the options dump_df.p writes as UPDATE TABLE / FIELD /
// INDEX statements at the end of a dump rather than in the ADD statement
// (the layout of testdata/df/tde_objects_12.2.df and
// multitenant_bufferpool_11.7.df), which is where CheckSchema reads them.
var updateOnly = map[string]bool{"ENCRYPTION": true, "CIPHER-NAME": true, "BUFFER-POOL": true}

func optionKeyword(line string) string {
	w := strings.Fields(line)
	if len(w) == 0 {
		return ""
	}
	return strings.ToUpper(w[0])
}

// writeUpdates writes the UPDATE statements of a table's kept options
// that dump_df.p writes after the ADD statements: table, fields, indexes.
func writeUpdates(b *bytes.Buffer, t *DFTable) {
	update := func(head string, lines []string) {
		for _, l := range lines {
			if updateOnly[optionKeyword(l)] {
				b.WriteString(head)
				writeLines(b, lines, true)
				b.WriteString("\n")
				return
			}
		}
	}
	update(fmt.Sprintf("UPDATE TABLE %s\n", dfQuote(t.Name)), t.Options)
	for _, f := range t.Fields {
		update(fmt.Sprintf("UPDATE FIELD %s OF %s\n", dfQuote(f.Name), dfQuote(t.Name)), f.Options)
	}
	for _, ix := range t.Indexes {
		update(fmt.Sprintf("UPDATE INDEX %s OF %s\n", dfQuote(ix.Name), dfQuote(t.Name)), ix.Options)
	}
}

func writeTableOptions(b *bytes.Buffer, t *DFTable) {
	if t.Area != "" {
		fmt.Fprintf(b, "  AREA %s\n", dfQuote(t.Area))
	}
	if t.Description != "" {
		fmt.Fprintf(b, "  DESCRIPTION %s\n", dfQuote(t.Description))
	}
	dump := t.DumpName
	if dump == "" {
		dump = strings.ToLower(t.Name)
	}
	fmt.Fprintf(b, "  DUMP-NAME %s\n\n", dfQuote(dump))
}

func writeField(b *bytes.Buffer, table string, f *DFField, i int) {
	typ := strings.ToLower(strings.TrimSpace(f.Type))
	if typ == "" || strings.ContainsAny(typ, " \t\r\n\"") {
		panic(fmt.Sprintf("openedge.NewDF: field %q of %q has data type %q", f.Name, table, f.Type))
	}
	def := dfTypeDefaults(typ)
	fmt.Fprintf(b, "ADD FIELD %s OF %s AS %s \n", mustName("field", f.Name), dfQuote(table), typ)
	if f.Options != nil {
		writeOptions(b, f.Options)
		return
	}
	if f.Description != "" {
		fmt.Fprintf(b, "  DESCRIPTION %s\n", dfQuote(f.Description))
	}
	fmt.Fprintf(b, "  FORMAT %s\n", dfQuote(orDefault(f.Format, def.format)))
	if init := orDefault(f.Initial, def.initial); init == "?" {
		b.WriteString("  INITIAL ?\n")
	} else {
		fmt.Fprintf(b, "  INITIAL %s\n", dfQuote(init))
	}
	if f.Label != "" {
		fmt.Fprintf(b, "  LABEL %s\n", dfQuote(f.Label))
	}
	fmt.Fprintf(b, "  POSITION %d\n", i+2)
	if f.IsLOB() {
		if f.LobArea != "" {
			fmt.Fprintf(b, "  LOB-AREA %s\n", dfQuote(f.LobArea))
		}
		b.WriteString("  LOB-BYTES 104857600\n  LOB-SIZE 100M\n")
		if typ == "clob" {
			b.WriteString("  CLOB-CODEPAGE \"UTF-8\"\n  CLOB-COLLATION \"BASIC\"\n  CLOB-TYPE 2\n")
		}
	} else {
		width := def.width
		if n, ok := charFormatWidth(orDefault(f.Format, def.format)); ok && typ == "character" {
			width = 2 * n // the Data Dictionary's SQL width: twice the display width
		}
		if f.Extent > 0 {
			width *= f.Extent
		}
		fmt.Fprintf(b, "  MAX-WIDTH %d\n", width)
	}
	if f.Extent > 0 {
		fmt.Fprintf(b, "  EXTENT %d\n", f.Extent)
	}
	if typ == "decimal" {
		fmt.Fprintf(b, "  DECIMALS %d\n", f.Decimals)
	}
	if typ == "character" {
		b.WriteString("  LENGTH 0\n")
	}
	order := f.Order
	if order == 0 {
		order = (i + 1) * 10
	}
	fmt.Fprintf(b, "  ORDER %d\n", order)
	if f.Mandatory {
		b.WriteString("  MANDATORY\n")
	}
	b.WriteString("\n")
}

func writeIndex(b *bytes.Buffer, table string, ix *DFIndex) {
	fmt.Fprintf(b, "ADD INDEX %s ON %s \n", mustName("index", ix.Name), dfQuote(table))
	if ix.Area != "" {
		fmt.Fprintf(b, "  AREA %s\n", dfQuote(ix.Area))
	}
	for _, flag := range []struct {
		on bool
		kw string
	}{{ix.Unique, "UNIQUE"}, {ix.Inactive, "INACTIVE"}, {ix.Primary, "PRIMARY"}, {ix.Word, "WORD"}} {
		if flag.on {
			fmt.Fprintf(b, "  %s\n", flag.kw)
		}
	}
	writeLines(b, ix.Options, false)
	for _, f := range ix.Fields {
		dir := "ASCENDING"
		if f.Descending {
			dir = "DESCENDING"
		}
		fmt.Fprintf(b, "  INDEX-FIELD %s %s ", dfQuote(f.Name), dir)
		if f.Abbreviated {
			b.WriteString("ABBREVIATED ")
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

// dfTypeDefault is what the Data Dictionary proposes for a new field.
type dfTypeDefault struct {
	format, initial string
	width           int // MAX-WIDTH for SQL
}

func dfTypeDefaults(typ string) dfTypeDefault {
	switch typ {
	case "character":
		return dfTypeDefault{"x(8)", "", 16}
	case "integer":
		return dfTypeDefault{"->,>>>,>>9", "0", 4}
	case "int64":
		return dfTypeDefault{"->,>>>,>>9", "0", 8}
	case "decimal":
		return dfTypeDefault{"->>,>>9.99", "0", 17}
	case "logical":
		return dfTypeDefault{"yes/no", "no", 1}
	case "date":
		return dfTypeDefault{"99/99/99", "?", 4}
	case "datetime":
		return dfTypeDefault{"99/99/9999 HH:MM:SS.SSS", "?", 8}
	case "datetime-tz":
		return dfTypeDefault{"99/99/9999 HH:MM:SS.SSS+HH:MM", "?", 12}
	case "recid":
		return dfTypeDefault{">>>>>>9", "?", 4}
	}
	return dfTypeDefault{"x(8)", "?", 16} // blob, clob, raw and anything newer
}

// charFormatWidth reads N from a character format "x(N)".
func charFormatWidth(format string) (int, bool) {
	inner, ok := strings.CutPrefix(strings.ToLower(format), "x(")
	if !ok {
		return 0, false
	}
	inner, ok = strings.CutSuffix(inner, ")")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(inner)
	return n, err == nil && n > 0
}

func orDefault(v, def string) string {
	if v != "" {
		return v
	}
	return def
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
