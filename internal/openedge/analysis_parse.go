package openedge

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ParseAnalysis reads a tabanalys or dbanalys report (any release from 10.x
// on, see openedge-formats.md §1.3) and keeps its header, the RECORD BLOCK
// SUMMARY (tables and per-area subtotals) and the INDEX BLOCK SUMMARY.
//
// Rows are split on whitespace, never on columns. The chain, block and
// database summaries and the LOB summaries are skipped; warning lines
// ending in a message number, e.g. (2486), are tolerated. Anything that
// looks like a table or index row but does not parse is an error naming
// name:line, and so is a report that stops in the middle of a section: a
// truncated report must not pass for a database with fewer tables.
func ParseAnalysis(r io.Reader, name string) (*Analysis, error) {
	p := &analysisParser{name: name, a: &Analysis{}, areaIdx: map[reportAreaKey]int{}, summaryArea: -1}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		p.lineNo++
		if err := p.line(sc.Text()); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, p.lineNo+1, err)
	}
	p.a.Tables, p.a.Indexes = p.tables.slice(), p.indexes.slice()
	if err := p.finish(); err != nil {
		return nil, err
	}
	return p.a, nil
}

type analysisPart int

const (
	partHeader analysisPart = iota // before the first summary
	partRecord                     // RECORD BLOCK SUMMARY
	partIndex                      // INDEX BLOCK SUMMARY
	partSkip                       // chain, block or database analysis
)

type analysisParser struct {
	name   string
	lineNo int
	a      *Analysis

	part                   analysisPart
	sawRecord, sawIndex    bool
	recordTotals, ixTotals bool
	area                   reportAreaKey
	haveArea               bool
	tenancy                string
	inLOB                  bool // LOB SUMMARY inside a record area: rows ignored
	ixOwner, ixTable       string
	summaryArea            int    // index in a.Areas awaiting its Subtotals: line, or -1
	summarized             []bool // per a.Areas: "Summary for AREA" seen
	summaryLine            int
	pendingName            string // a wrapped name waiting for its numbers line
	pendingLine            int
	areaIdx                map[reportAreaKey]int
	tables                 chunked[TableStat]
	indexes                chunked[IndexStat]
	fields                 [12]string
}

func (p *analysisParser) errorf(format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", p.name, p.lineNo, fmt.Sprintf(format, args...))
}

func (p *analysisParser) line(raw string) error {
	text := strings.TrimSpace(raw)
	if text == "" {
		return nil
	}
	indented := raw[0] == ' ' || raw[0] == '\t'
	if p.pendingName != "" {
		return p.continuation(text, indented)
	}
	heading, numbered := stripMessageNumber(text)
	if done, err := p.sectionHeading(heading); done || err != nil {
		return err
	}
	if p.part == partHeader {
		return p.headerLine(heading) // 10.x appends (3868) and the like
	}
	if done, err := p.closingLine(text); done || err != nil {
		return err
	}
	if numbered || p.part == partSkip || p.inLOB {
		return nil // a warning such as (2486), or a section oedl does not use
	}
	switch p.part {
	case partRecord:
		return p.tableLine(text, indented)
	case partIndex:
		return p.indexLine(text, indented)
	}
	return nil
}

// stripMessageNumber removes the " (NNNN)" old releases append to section
// titles, e.g. "RECORD BLOCK SUMMARY (6129)", and says whether there was one.
func stripMessageNumber(s string) (string, bool) {
	if len(s) < 3 || s[len(s)-1] != ')' {
		return s, false
	}
	open := strings.LastIndexByte(s, '(')
	if open < 0 || open == len(s)-2 {
		return s, false
	}
	for i := open + 1; i < len(s)-1; i++ {
		if s[i] < '0' || s[i] > '9' {
			return s, false
		}
	}
	return strings.TrimRight(s[:open], " "), true
}

func (p *analysisParser) headerLine(text string) error {
	key, value, ok := strings.Cut(text, ":")
	value = strings.TrimSpace(value)
	switch {
	case strings.HasPrefix(text, "OpenEdge Release ") && p.a.Release == "":
		p.a.Release = text
	case !ok:
	case key == "Database":
		p.a.Database = value
	case key == "Blocksize":
		n, err := strconv.Atoi(value)
		if err != nil || n < 0 {
			return p.errorf("Blocksize %q is not a number", value)
		}
		p.a.BlockSize = n
	case key == "RecSpaceSearchDepth":
		n, err := strconv.Atoi(value)
		if err != nil || n < 0 {
			return p.errorf("RecSpaceSearchDepth %q is not a number", value)
		}
		p.a.RecSpaceSearchDepth = n
	case key == "Options":
		p.a.Options = value
	case key == "Date":
		p.a.Date = value
	}
	return nil
}

// sectionHeading recognises the titles that start or switch a section.
func (p *analysisParser) sectionHeading(h string) (bool, error) {
	switch {
	case h == "RECORD BLOCK SUMMARY":
		return true, p.enter(partRecord)
	case h == "INDEX BLOCK SUMMARY":
		return true, p.enter(partIndex)
	case strings.HasPrefix(h, "RECORD BLOCK SUMMARY FOR AREA "):
		if p.part != partRecord {
			if err := p.enter(partRecord); err != nil {
				return true, err
			}
		}
		return true, p.areaHeading(h, len("RECORD BLOCK SUMMARY FOR AREA "))
	case strings.HasPrefix(h, "INDEX BLOCK SUMMARY FOR AREA "):
		if p.part != partIndex {
			if err := p.enter(partIndex); err != nil {
				return true, err
			}
		}
		return true, p.areaHeading(h, len("INDEX BLOCK SUMMARY FOR AREA "))
	case h == "RECORD BLOCK SUMMARY FOR SHARED TABLES":
		p.tenancy, p.inLOB = "", false
		return true, nil
	case strings.HasPrefix(h, "RECORD BLOCK SUMMARY FOR "):
		p.tenancy, p.inLOB = h[len("RECORD BLOCK SUMMARY FOR "):], false
		return true, nil
	case strings.HasPrefix(h, "INDEX BLOCK SUMMARY FOR "): // shared objects, tenant or group
		p.ixOwner, p.ixTable = "", ""
		return true, nil
	case strings.HasPrefix(h, "Summary for AREA "):
		return true, p.summaryHeading(h)
	case strings.HasPrefix(h, "LOB SUMMARY"):
		p.inLOB = true
		return true, nil
	case h == "DATABASE SUMMARY", h == "DATABASE BLOCK ANALYSIS:", h == "AREA BLOCK ANALYSIS:",
		strings.HasPrefix(h, "SUMMARY FOR AREA "), strings.HasPrefix(h, "CHAIN ANALYSIS FOR AREA "),
		strings.HasPrefix(h, `AREA "`) && strings.HasSuffix(h, "BLOCK ANALYSIS"):
		return true, p.enter(partSkip)
	}
	return false, nil
}

// enter switches section, checking that the one being left was complete.
func (p *analysisParser) enter(part analysisPart) error {
	if err := p.leave(); err != nil {
		return err
	}
	p.part = part
	p.haveArea, p.tenancy, p.inLOB = false, "", false
	p.ixOwner, p.ixTable = "", ""
	switch part {
	case partRecord:
		if p.sawRecord {
			return p.errorf("a second RECORD BLOCK SUMMARY")
		}
		p.sawRecord = true
	case partIndex:
		if p.sawIndex {
			return p.errorf("a second INDEX BLOCK SUMMARY")
		}
		p.sawIndex = true
	}
	return nil
}

func (p *analysisParser) leave() error {
	if p.summaryArea >= 0 && p.summaryLine > 0 {
		return fmt.Errorf("%s:%d: Summary for AREA has no Subtotals: line", p.name, p.summaryLine)
	}
	switch {
	case p.part == partRecord && !p.recordTotals:
		return p.errorf("RECORD BLOCK SUMMARY ends without its Totals: line")
	case p.part == partIndex && !p.ixTotals:
		return p.errorf("INDEX BLOCK SUMMARY ends without its Totals: line")
	}
	return nil
}

func (p *analysisParser) finish() error {
	if p.pendingName != "" {
		return fmt.Errorf("%s:%d: %q has no numbers line: the report is cut off", p.name, p.pendingLine, p.pendingName)
	}
	if !p.sawRecord {
		return fmt.Errorf("%s: no RECORD BLOCK SUMMARY: not a tabanalys or dbanalys report", p.name)
	}
	if err := p.leave(); err != nil {
		return fmt.Errorf("%w: the report is cut off", err)
	}
	p.sumUnsummarizedAreas()
	return nil
}

// sumUnsummarizedAreas fills the totals of areas that have no "Summary for
// AREA" block (releases before 11 print none) from their table rows.
func (p *analysisParser) sumUnsummarizedAreas() {
	for _, t := range p.a.Tables {
		i := p.areaIdx[reportAreaKey{t.Area, t.AreaNum}]
		if !p.summarized[i] {
			p.a.Areas[i].Records += t.Records
			p.a.Areas[i].Bytes += t.Bytes
		}
	}
}

// parseAreaKey reads `"Name": 7` or the older `"Name" : 7`.
func parseAreaKey(s string) (reportAreaKey, bool) {
	if len(s) < 2 || s[0] != '"' {
		return reportAreaKey{}, false
	}
	end := strings.LastIndexByte(s, '"')
	if end == 0 {
		return reportAreaKey{}, false
	}
	rest := strings.TrimSpace(s[end+1:])
	if !strings.HasPrefix(rest, ":") {
		return reportAreaKey{}, false
	}
	num, err := strconv.Atoi(strings.TrimSpace(rest[1:]))
	if err != nil || num < 0 {
		return reportAreaKey{}, false
	}
	return reportAreaKey{name: s[1:end], num: num}, true
}

func (p *analysisParser) areaHeading(h string, at int) error {
	k, ok := parseAreaKey(h[at:])
	if !ok {
		return p.errorf("malformed area heading %q (want AREA \"name\": number)", h)
	}
	p.area, p.haveArea = k, true
	p.tenancy, p.inLOB = "", false
	p.ixOwner, p.ixTable = "", ""
	p.areaIndex(k)
	return nil
}

func (p *analysisParser) areaIndex(k reportAreaKey) int {
	if i, ok := p.areaIdx[k]; ok {
		return i
	}
	p.a.Areas = append(p.a.Areas, AreaSummary{Name: k.name, Number: k.num})
	p.summarized = append(p.summarized, false)
	p.areaIdx[k] = len(p.a.Areas) - 1
	return len(p.a.Areas) - 1
}

func (p *analysisParser) summaryHeading(h string) error {
	if p.part != partRecord {
		return p.errorf("%q outside the RECORD BLOCK SUMMARY", h)
	}
	if p.summaryLine > 0 {
		return fmt.Errorf("%s:%d: Summary for AREA has no Subtotals: line", p.name, p.summaryLine)
	}
	k, ok := parseAreaKey(h[len("Summary for AREA "):])
	if !ok {
		return p.errorf("malformed area heading %q (want AREA \"name\": number)", h)
	}
	p.summaryArea, p.summaryLine = p.areaIndex(k), p.lineNo
	p.inLOB = false
	return nil
}

// closingLine handles Subtotals:/Totals: and the block count lines.
func (p *analysisParser) closingLine(text string) (bool, error) {
	switch {
	case strings.HasPrefix(text, "Subtotals:"):
		if p.summaryLine == 0 || p.part != partRecord {
			return true, nil // a per-heading subtotal: recomputable, not kept
		}
		f := p.split(text[len("Subtotals:"):])
		if len(f) != 8 {
			return true, p.errorf("area Subtotals: has %d numbers, want 8", len(f))
		}
		records, err := p.int64Field("Records", f[0])
		if err != nil {
			return true, err
		}
		bytes, err := p.sizeField("Size", f[1])
		if err != nil {
			return true, err
		}
		s := &p.a.Areas[p.summaryArea]
		s.Records, s.Bytes = records, bytes
		p.summarized[p.summaryArea] = true
		p.summaryArea, p.summaryLine = -1, 0
		return true, nil
	case strings.HasPrefix(text, "Totals:"):
		if p.summaryLine > 0 {
			return true, fmt.Errorf("%s:%d: Summary for AREA has no Subtotals: line", p.name, p.summaryLine)
		}
		switch p.part {
		case partRecord:
			p.recordTotals = true
		case partIndex:
			p.ixTotals = true
		}
		// What follows the totals (block counts, the size key) has no rows.
		p.part, p.haveArea = partSkip, false
		return true, nil
	case strings.HasSuffix(text, " RM block(s) found in the database."):
		n, err := p.int64Field("RM block count", strings.TrimSuffix(text, " RM block(s) found in the database."))
		p.a.RMBlocks = n
		return true, err
	case strings.HasSuffix(text, " index block(s) found in the database."):
		n, err := p.int64Field("index block count", strings.TrimSuffix(text, " index block(s) found in the database."))
		p.a.IndexBlocks = n
		return true, err
	case strings.HasSuffix(text, "% of the RM block space is used."):
		f, err := p.floatField("RM block use", strings.TrimSuffix(text, "% of the RM block space is used."))
		p.a.RMUsedPct = f
		return true, err
	case strings.HasSuffix(text, "% of the index block space is used."):
		f, err := p.floatField("index block use", strings.TrimSuffix(text, "% of the index block space is used."))
		p.a.IndexUsedPct = f
		return true, err
	}
	return false, nil
}

// isName says whether a field can start a table or index name: ABL names
// start with a letter or an underscore (meta-schema), numbers never do.
func isName(s string) bool {
	c := s[0]
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// isNumberField says whether a field starts like a number ("12", "-1604").
func isNumberField(s string) bool {
	c := s[0]
	if c == '-' && len(s) > 1 {
		c = s[1]
	}
	return c >= '0' && c <= '9'
}

func (p *analysisParser) tableLine(text string, indented bool) error {
	f := p.split(text)
	switch {
	case !indented && isName(f[0]) && strings.IndexByte(f[0], '.') > 0:
		if !p.haveArea {
			return p.errorf("table row %s outside an area", f[0])
		}
		if len(f) == 1 {
			p.pendingName, p.pendingLine = f[0], p.lineNo
			return nil
		}
		if len(f) != 9 {
			return p.errorf("table row %s has %d numbers, want 8", f[0], len(f)-1)
		}
		return p.tableRow(f[0], f[1:])
	case indented && isNumberField(f[0]):
		return p.errorf("numbers line without a table name before it")
	}
	return nil // column headers, dashes
}

func (p *analysisParser) indexLine(text string, indented bool) error {
	f := p.split(text)
	switch {
	case !indented && isName(f[0]) && strings.IndexByte(f[0], '.') > 0:
		if !p.haveArea {
			return p.errorf("table %s outside an area", f[0])
		}
		if len(f) != 1 {
			return p.errorf("index table line %s has %d extra fields", f[0], len(f)-1)
		}
		p.ixOwner, p.ixTable = splitOwner(f[0])
		return nil
	case indented && isName(f[0]):
		if p.ixTable == "" {
			return p.errorf("index %s before its table line", f[0])
		}
		if len(f) == 1 {
			p.pendingName, p.pendingLine = f[0], p.lineNo
			return nil
		}
		if len(f) != 8 {
			return p.errorf("index row %s has %d numbers, want 7", f[0], len(f)-1)
		}
		return p.indexRow(f[0], f[1:])
	case indented && isNumberField(f[0]):
		return p.errorf("numbers line without an index name before it")
	}
	return nil
}

// continuation is the line after a wrapped name: the numbers alone.
func (p *analysisParser) continuation(text string, indented bool) error {
	name := p.pendingName
	p.pendingName = ""
	f := p.split(text)
	if !indented || !isNumberField(f[0]) {
		return p.errorf("%q (line %d) is not followed by its numbers", name, p.pendingLine)
	}
	if p.part == partIndex {
		if len(f) != 7 {
			return p.errorf("index row %s has %d numbers, want 7", name, len(f))
		}
		return p.indexRow(name, f)
	}
	if len(f) != 8 {
		return p.errorf("table row %s has %d numbers, want 8", name, len(f))
	}
	return p.tableRow(name, f)
}

func splitOwner(s string) (owner, rest string) {
	owner, rest, _ = strings.Cut(s, ".")
	return owner, rest
}

func (p *analysisParser) tableRow(name string, f []string) error {
	t := TableStat{Area: p.area.name, AreaNum: p.area.num, Tenancy: p.tenancy}
	var rest string
	t.Owner, rest = splitOwner(name)
	t.Name, t.Partition, _ = strings.Cut(rest, ".")
	if t.Name == "" {
		return p.errorf("table row %q has no table name", name)
	}
	n := numberReader{p: p, row: name}
	t.Records = n.int64("Records", f[0])
	t.Bytes = n.size("Size", f[1])
	t.MinRecord = n.int64("Min", f[2])
	t.MaxRecord = n.int64("Max", f[3])
	t.MeanRecord = n.int64("Mean", f[4])
	t.Fragments = n.int64("fragment Count", f[5])
	t.FragFactor = n.float("fragment Factor", f[6])
	t.ScatterFactor = n.float("Scatter Factor", f[7])
	if n.err != nil {
		return n.err
	}
	p.tables.add(t)
	return nil
}

func (p *analysisParser) indexRow(name string, f []string) error {
	ix := IndexStat{Area: p.area.name, AreaNum: p.area.num, Owner: p.ixOwner, Table: p.ixTable}
	if base, ok := strings.CutSuffix(name, "(inactive)"); ok {
		name, ix.Inactive = base, true
	}
	if i := strings.LastIndexByte(name, ':'); i > 0 && i < len(name)-1 && allDigits(name[i+1:]) {
		name, ix.Partition = name[:i], name[i+1:]
	}
	ix.Name = name
	n := numberReader{p: p, table: p.ixTable, row: name}
	ix.Number = n.int("Index", f[0])
	ix.Fields = n.int("Fields", f[1])
	ix.Levels = n.int("Levels", f[2])
	ix.Blocks = n.int64("Blocks", f[3])
	ix.Bytes = n.size("Size", f[4])
	ix.Util = n.float("% Util", f[5])
	ix.Factor = n.float("Factor", f[6])
	if n.err != nil {
		return n.err
	}
	p.indexes.add(ix)
	return nil
}

// numberReader converts the numbers of one row, keeping the first error.
// The row's name goes into the error only when there is one: building
// "PUB.Customer Records" for every field was most of the parser's garbage.
type numberReader struct {
	p          *analysisParser
	table, row string
	err        error
}

func (n *numberReader) fail(col, s, want string) {
	if n.err != nil {
		return
	}
	row := n.row
	if n.table != "" {
		row = n.table + "." + row
	}
	n.err = n.p.errorf("%s %s %q is not %s", row, col, s, want)
}

func (n *numberReader) int64(col, s string) int64 {
	v, ok := parseWhole(s)
	if !ok {
		n.fail(col, s, "a whole number")
	}
	return v
}

func (n *numberReader) int(col, s string) int {
	v := n.int64(col, s)
	if int64(int(v)) != v {
		n.fail(col, s, "a number in range")
	}
	return int(v)
}

func (n *numberReader) float(col, s string) float64 {
	v, ok := parseDecimal(s)
	if !ok {
		n.fail(col, s, "a decimal number")
	}
	return v
}

func (n *numberReader) size(col, s string) int64 {
	v, err := ParseSize(s)
	if err != nil && n.err == nil {
		row := n.row
		if n.table != "" {
			row = n.table + "." + row
		}
		n.err = n.p.errorf("%s %s: %v", row, col, err)
	}
	return v
}

// parseWhole is strconv.ParseInt for what the reports print: an optional
// minus and decimal digits, nothing else.
func parseWhole(s string) (int64, bool) {
	if !allDigits(strings.TrimPrefix(s, "-")) {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil
}

// parseDecimal accepts an optional minus, digits and at most one point;
// strconv.ParseFloat alone would also take "NaN", "Inf" and "1e9".
func parseDecimal(s string) (float64, bool) {
	if !isUnsignedDecimal(strings.TrimPrefix(s, "-")) {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// split is strings.Fields into a reused array: a report line never has
// more than a dozen fields, and the big reports have a million lines.
func (p *analysisParser) split(s string) []string {
	f := p.fields[:0]
	for i := 0; i < len(s); {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		start := i
		for i < len(s) && s[i] != ' ' && s[i] != '\t' {
			i++
		}
		if start == i {
			break
		}
		if len(f) == cap(f) {
			return append(f, s[start:]) // too many fields: callers reject the count
		}
		f = append(f, s[start:i])
	}
	return f
}

func (p *analysisParser) int64Field(what, s string) (int64, error) {
	v, ok := parseWhole(s)
	if !ok {
		return 0, p.errorf("%s %q is not a whole number", what, s)
	}
	return v, nil
}

func (p *analysisParser) floatField(what, s string) (float64, error) {
	v, ok := parseDecimal(s)
	if !ok {
		return 0, p.errorf("%s %q is not a decimal number", what, s)
	}
	return v, nil
}

func (p *analysisParser) sizeField(what, s string) (int64, error) {
	n, err := ParseSize(s)
	if err != nil {
		return 0, p.errorf("%s: %v", what, err)
	}
	return n, nil
}

// chunked collects rows in fixed-size blocks and copies them once into a
// slice of the exact length at the end. Growing one slice by append would
// allocate about five times the final size on the way (Go grows large
// slices by 1.25x), which dominated the parser's memory on big reports.
type chunked[T any] struct {
	blocks [][]T
	n      int
}

// maxChunkRows bounds a block; blocks start small so that a ten-table
// report does not reserve thousands of rows.
const maxChunkRows = 4096

func (c *chunked[T]) add(v T) {
	if len(c.blocks) == 0 || len(c.blocks[len(c.blocks)-1]) == cap(c.blocks[len(c.blocks)-1]) {
		c.blocks = append(c.blocks, make([]T, 0, min(maxChunkRows, max(16, c.n))))
	}
	last := &c.blocks[len(c.blocks)-1]
	*last = append(*last, v)
	c.n++
}

func (c *chunked[T]) slice() []T {
	if c.n == 0 {
		return nil
	}
	out := make([]T, 0, c.n)
	for _, b := range c.blocks {
		out = append(out, b...)
	}
	c.blocks = nil
	return out
}
