package openedge

import (
	"strconv"
	"strings"
)

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

// tableLine handles a line of a record summary: a table row, a wrapped
// name, or something that is not a row (headers, dashes).
//
// A row names its table owner.table; releases and documentation samples
// that print the name alone ("Customer  83  12.1K ...") give PUB tables.
// Such a line is told from a column header ("Table  Records  Size ...") by
// its second field, a number; a name alone on its line is a wrapped row
// only when an indented numbers line follows.
func (p *analysisParser) tableLine(text string, indented bool) error {
	f := p.split(text)
	switch {
	case !indented && isName(f[0]):
		owned := strings.IndexByte(f[0], '.') > 0
		if len(f) == 1 {
			if !p.haveArea && owned {
				return p.errorf("table row %s outside an area", f[0])
			}
			p.pendingName, p.pendingLine, p.pendingMaybe = f[0], p.lineNo, !owned
			return nil
		}
		if !owned && !isNumberField(f[1]) {
			return nil // column headers, "Size key:"
		}
		if !owned && strings.HasSuffix(f[0], ":") {
			// No ABL name holds a colon: this is a header's "label: value"
			// (Blocksize:, RecSpaceSearchDepth:), which proutil prints once.
			return p.errorf("%q is a line of a report's header, inside the RECORD BLOCK SUMMARY: "+
				"a page break or a second report in this file; give the report as proutil wrote it", text)
		}
		if !p.haveArea {
			return p.errorf("table row %s outside an area", f[0])
		}
		if len(f) != 9 {
			return p.errorf("table row %s has %d numbers, want 8", f[0], len(f)-1)
		}
		return p.tableRow(f[0], p.lineNo, f[1:])
	case indented && isNumberField(f[0]):
		return p.errorf("numbers line without a table name before it")
	}
	return nil // column headers, dashes
}

// indexLine handles a line of an index summary: a table line, an index row
// or a wrapped index name.
func (p *analysisParser) indexLine(text string, indented bool) error {
	f := p.split(text)
	switch {
	case !indented && isName(f[0]):
		owned := strings.IndexByte(f[0], '.') > 0
		if !owned && len(f) > 1 {
			return nil // column headers
		}
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
		return p.indexNumbers(f[0], f[1:])
	case indented && isNumberField(f[0]):
		return p.errorf("numbers line without an index name before it")
	}
	return nil
}

// continuation is the line after a wrapped name: the numbers alone. After
// a name without owner that is not followed by numbers, the name was not a
// row and the line is read for itself.
func (p *analysisParser) continuation(raw, text string, indented bool) error {
	name, maybe := p.pendingName, p.pendingMaybe
	p.pendingName, p.pendingMaybe = "", false
	f := p.split(text)
	if !indented || !isNumberField(f[0]) {
		if maybe {
			return p.line(raw)
		}
		return p.errorf("%q (line %d) is not followed by its numbers", name, p.pendingLine)
	}
	if maybe && !p.haveArea {
		return p.errorf("table row %s outside an area", name)
	}
	if p.part == partIndex {
		return p.indexNumbers(name, f)
	}
	if len(f) != 8 {
		return p.errorf("table row %s has %d numbers, want 8", name, len(f))
	}
	return p.tableRow(name, p.pendingLine, f)
}

// indexNumbers dispatches an index name and its numbers: 7 numbers for an
// index (Index#, Fields, Levels, Blocks, Size, % Util, Factor), or 5 for a
// partition sub-line of a local index, "IntField-1:3  2  215  1.6M  98.2
// 1.0" (Levels, Blocks, Size, % Util, Factor), which takes its number and
// fields from the index row above it.
func (p *analysisParser) indexNumbers(name string, f []string) error {
	switch {
	case len(f) == 7:
		return p.indexRow(name, f)
	case len(f) == 5 && partitionSuffix(strings.TrimSuffix(name, "(inactive)")) != "":
		return p.indexPartitionRow(name, f)
	}
	return p.errorf("index row %s has %d numbers, want 7 (or 5 for a partition line)", name, len(f))
}

// partitionSuffix is the N of a "name:N" index name, or "".
func partitionSuffix(name string) string {
	if i := strings.LastIndexByte(name, ':'); i > 0 && i < len(name)-1 && allDigits(name[i+1:]) {
		return name[i+1:]
	}
	return ""
}

// splitOwner cuts "owner.rest"; a name without owner is a PUB table.
func splitOwner(s string) (owner, rest string) {
	owner, rest, ok := strings.Cut(s, ".")
	if !ok {
		return "PUB", s
	}
	return owner, rest
}

func (p *analysisParser) tableRow(name string, line int, f []string) error {
	t := TableStat{Area: p.area.name, AreaNum: p.area.num, Tenancy: p.tenancy, Line: line}
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
	p.rows.add(p.areaI, t.Records)
	return nil
}

func (p *analysisParser) indexRow(name string, f []string) error {
	ix := IndexStat{Area: p.area.name, AreaNum: p.area.num, Owner: p.ixOwner, Table: p.ixTable}
	if base, ok := strings.CutSuffix(name, "(inactive)"); ok {
		name, ix.Inactive = base, true
	}
	if part := partitionSuffix(name); part != "" {
		name, ix.Partition = name[:len(name)-len(part)-1], part
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

// indexPartitionRow reads a partition sub-line of a local index. The index
// row it belongs to must come right before it (or before its sibling
// partition lines): that is where its number and fields are.
func (p *analysisParser) indexPartitionRow(name string, f []string) error {
	inactive := false
	if base, ok := strings.CutSuffix(name, "(inactive)"); ok {
		name, inactive = base, true
	}
	part := partitionSuffix(name)
	base := name[:len(name)-len(part)-1]
	parent := p.indexes.last()
	if parent == nil || parent.Name != base || parent.Table != p.ixTable || parent.Owner != p.ixOwner {
		return p.errorf("partition line %s is not under the row of index %s", name, base)
	}
	ix := IndexStat{Area: p.area.name, AreaNum: p.area.num, Owner: p.ixOwner, Table: p.ixTable,
		Name: base, Partition: part, Number: parent.Number, Fields: parent.Fields,
		Inactive: inactive || parent.Inactive}
	n := numberReader{p: p, table: p.ixTable, row: name}
	ix.Levels = n.int("Levels", f[0])
	ix.Blocks = n.int64("Blocks", f[1])
	ix.Bytes = n.size("Size", f[2])
	ix.Util = n.float("% Util", f[3])
	ix.Factor = n.float("Factor", f[4])
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

// last is the row added last, or nil.
func (c *chunked[T]) last() *T {
	if len(c.blocks) == 0 {
		return nil
	}
	b := c.blocks[len(c.blocks)-1]
	return &b[len(b)-1]
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
