package openedge

import "strings"

// Section headings, Subtotals: and Totals: are messages (6129 "RECORD
// BLOCK SUMMARY", 14212, 16656 "Summary for AREA", 9894 "Subtotals:", 6130
// "Totals:", ...): a message file (PROMSGS) may word them in another
// language. The English ones are read as they are; any other is told by
// its shape and by the rows after it, never by its words:
//
//   - an area heading ends with the area, `"Name": 7`; what it opens is
//     told by the first row after it: a name and 8 numbers (or a wrapped
//     name and an indented line of 8) is a table row, a name alone and an
//     indented name under it an index, anything else (block counts, the
//     database summary's 6 numbers) a section oedl skips. An area heading
//     followed at once by a line of 8 numbers is the area's summary
//     ("Summary for AREA"). With no row before the next area heading, the
//     area is empty and belongs to the summary it is in.
//   - a sub-heading (shared tables, a tenant or group) is a line of words
//     in column 0 with a line of dashes under it; a tenant's or group's
//     ends with its number.
//   - a totals line is a label ending in ':' and then only numbers, 8 in a
//     record summary and 4 in an index summary; the summary's Totals: is
//     the one followed by its block count line (3921), a whole number first.
//
// LOB sections (LOB SUMMARY FOR AREA x: N) are still found by their English
// heading: a translated one is refused at its first row.

// lookaheadRows bounds how many non-blank lines after an area heading are
// read to find its first row: the heading, dashes, a sub-heading and two
// lines of column titles come before it in every release.
const lookaheadRows = 32

type areaKind int

const (
	areaSkipped areaKind = iota // chain, block or database analysis
	areaRecord
	areaIndex
	areaSummary // "Summary for AREA": the area's Subtotals: follows
)

// areaKeyAt returns where the `"Name": N` that ends a heading starts, for a
// heading with words before it.
func areaKeyAt(h string) (int, bool) {
	if h == "" || h[len(h)-1] < '0' || h[len(h)-1] > '9' {
		return 0, false
	}
	end := strings.LastIndexByte(h, '"')
	if end <= 0 {
		return 0, false
	}
	start := strings.LastIndexByte(h[:end], '"')
	if start <= 0 || strings.TrimSpace(h[:start]) == "" {
		return 0, false
	}
	if _, ok := parseAreaKey(h[start:]); !ok {
		return 0, false
	}
	return start, true
}

// sumNumbers says how many numbers follow a label ending in ':' on a line
// that holds nothing else ("Subtotals: 24 961.0B 35 ..."), or 0, and how
// many fields the label has.
func sumNumbers(f []string) (numbers, label int) {
	j := 0
	for j < len(f) && !isNumberField(f[j]) {
		j++
	}
	if j == 0 || j == len(f) || !strings.HasSuffix(f[j-1], ":") {
		return 0, 0
	}
	// "PUB.A: 1 0.0B ..." is a table row, not a label: a row names its
	// table with its owner, and no summary's label in any language reads
	// OWNER.name (found by fuzzing: a table parsed as "A:" was written back
	// as PUB.A: and read again as a Subtotals: line).
	if j == 1 && strings.Contains(f[0], ".") {
		return 0, 0
	}
	for _, s := range f[j:] {
		if !isNumberField(s) {
			return 0, 0
		}
	}
	return len(f) - j, j
}

// isSumLine says whether a line looked ahead at is a totals line of n numbers.
func isSumLine(raw string, n int) bool {
	got, _ := sumNumbers(reportFields(raw))
	return got == n
}

// afterFields is s without its first n blank-separated fields.
func afterFields(s string, n int) string {
	i := 0
	for ; n > 0; n-- {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		for i < len(s) && s[i] != ' ' && s[i] != '\t' {
			i++
		}
	}
	return s[i:]
}

// nonBlank returns the n-th non-blank line after the current one.
func (p *analysisParser) nonBlank(n int) (raw string, ok bool) {
	for i := 0; ; i++ {
		raw, ok := p.src.peek(i)
		if !ok {
			return "", false
		}
		if strings.TrimSpace(raw) == "" {
			continue
		}
		if n == 0 {
			return raw, true
		}
		n--
	}
}

func isDashes(text string) bool {
	return strings.Trim(text, "- ") == "" && strings.Contains(text, "--")
}

// structuralHeading reads a line no English heading matched as a heading
// if its shape is one; see the comment at the top of this file.
func (p *analysisParser) structuralHeading(h string, indented bool) (bool, error) {
	if at, ok := areaKeyAt(h); ok {
		if p.summaryLOB && p.summaryLine > 0 {
			p.clearSummary()
		}
		return true, p.openArea(h, at)
	}
	if indented || p.inLOB || (p.part != partRecord && p.part != partIndex) {
		return false, nil
	}
	f := p.split(h) // a row of every table passes here: no allocation
	if n, _ := sumNumbers(f); len(f) < 2 || !isName(f[0]) || strings.IndexByte(f[0], '.') > 0 || isNumberField(f[1]) || n >= 4 {
		return false, nil // a row, a wrapped name, a totals line
	}
	if next, ok := p.nonBlank(0); !ok || !isDashes(strings.TrimSpace(next)) {
		return false, nil // column titles
	}
	if p.part == partIndex {
		p.ixOwner, p.ixTable = "", ""
		return true, nil
	}
	p.tenancy = ""
	last := f[len(f)-1]
	if allDigits(last[strings.LastIndexByte(last, ':')+1:]) { // "acme: 2", "acme:2"
		p.tenancy = h // a tenant or group: kept whole, its words untranslated
	}
	p.rows.heading(p.lineNo)
	return true, nil
}

func (p *analysisParser) openArea(h string, at int) error {
	switch p.classifyArea() {
	case areaSummary:
		return p.summaryHeading(h, at)
	case areaRecord:
		if p.part != partRecord {
			if err := p.enter(partRecord); err != nil {
				return err
			}
		}
		return p.areaHeading(h, at)
	case areaIndex:
		if p.part != partIndex {
			if err := p.enter(partIndex); err != nil {
				return err
			}
		}
		return p.areaHeading(h, at)
	}
	return p.enter(partSkip)
}

// classifyArea tells what the area heading on the current line opens by
// the lines after it.
func (p *analysisParser) classifyArea() areaKind {
	if next, ok := p.nonBlank(0); ok && isSumLine(next, 8) {
		return areaSummary
	}
	for n := 0; n < lookaheadRows; n++ {
		raw, ok := p.nonBlank(n)
		if !ok {
			break
		}
		text, _ := stripMessageNumber(strings.TrimSpace(raw))
		f := reportFields(text)
		if len(f) == 0 {
			continue // a message number alone on its line: nothing of a row
		}
		indented := raw[0] == ' ' || raw[0] == '\t'
		if _, area := areaKeyAt(text); area {
			// An empty area: its own summary says it is a record area.
			if after, ok := p.nonBlank(n + 1); ok && isSumLine(after, 8) {
				return areaRecord
			}
			break
		}
		if sums, _ := sumNumbers(f); sums > 0 || isNumberField(f[0]) {
			break // a totals line, a block count: no row in this area
		}
		if indented || !isName(f[0]) {
			continue // dashes, column titles
		}
		if len(f) == 9 && isNumberField(f[1]) {
			return areaRecord
		}
		if len(f) > 1 {
			if isNumberField(f[1]) {
				return areaSkipped // a row of another shape: the database summary's
			}
			continue // a sub-heading, column titles
		}
		under, ok := p.nonBlank(n + 1)
		if !ok || (under[0] != ' ' && under[0] != '\t') {
			return areaSkipped
		}
		g := reportFields(under)
		switch {
		case isName(g[0]):
			return areaIndex
		case len(g) == 8:
			return areaRecord // a wrapped table name
		}
		return areaSkipped
	}
	// No row: an empty area of the summary the report is in.
	switch p.part {
	case partRecord:
		return areaRecord
	case partIndex:
		return areaIndex
	}
	return areaSkipped
}

// closingKind tells a totals line: "Subtotals:" and "Totals:" in English,
// else a label and the summary's count of numbers, Totals: when the block
// count line (3921) follows. It returns the text after the label.
func (p *analysisParser) closingKind(text string) (kind closing, rest string, err error) {
	switch {
	case strings.HasPrefix(text, "Subtotals:"):
		return closingSubtotals, text[len("Subtotals:"):], nil
	case strings.HasPrefix(text, "Totals:"):
		return closingTotals, text[len("Totals:"):], nil
	}
	if (p.part != partRecord && p.part != partIndex) || strings.IndexByte(text, ':') < 0 {
		return closingNone, "", nil // every table row passes here: split only a line with a label
	}
	n, label := sumNumbers(p.split(text))
	rest = afterFields(text, label)
	switch {
	case n == 0:
		return closingNone, "", nil
	case p.part == partIndex && n == 4, p.part == partRecord && (!p.inLOB || p.summaryLine > 0) && n == 8:
	case p.part == partRecord && (p.inLOB || p.summaryLOB) && n == 5:
		return closingSubtotals, rest, nil // a LOB subtotal
	default:
		return closingNone, "", nil
	}
	next, ok := p.nonBlank(0)
	if !ok {
		return closingNone, "", p.errorf("%q is the last line: the block count line that follows a summary's Totals: is missing, "+
			"so it cannot be told from a Subtotals: line; the report is cut off", text)
	}
	if first := reportFields(next)[0]; next[0] != ' ' && next[0] != '\t' && allDigits(first) {
		return closingTotals, rest, nil
	}
	return closingSubtotals, rest, nil
}

type closing int

const (
	closingNone closing = iota
	closingSubtotals
	closingTotals
)

// reportFields splits a line looked ahead at as the parser splits the line
// it reads (analysisParser.split): on blanks and tabs only, so that a name
// holding another space character is one field in both.
func reportFields(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' })
}
