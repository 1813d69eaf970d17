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
// SUMMARY (tables and per-area subtotals) and the INDEX BLOCK SUMMARY. A
// report without a RECORD BLOCK SUMMARY is an error, unless its Options
// line says it is an ixanalys and it has an INDEX BLOCK SUMMARY.
//
// Rows are split on whitespace, never on columns. The chain, block and
// database summaries are skipped, the LOB summaries' rows kept in LOBs; warning lines
// ending in a message number, e.g. (2486), are tolerated. Anything that
// looks like a table or index row but does not parse is an error naming
// name:line, and so is a report that stops in the middle of a section: a
// truncated report must not pass for a database with fewer tables.
func ParseAnalysis(r io.Reader, name string) (*Analysis, error) {
	p := &analysisParser{name: name, a: &Analysis{}, areaIdx: map[reportAreaKey]int{}, summaryArea: -1}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	p.src = &lineSource{sc: sc}
	for {
		raw, ok := p.src.next()
		if !ok {
			break
		}
		p.lineNo++
		if err := p.line(raw); err != nil {
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
	src    *lineSource
	a      *Analysis

	part                   analysisPart
	sawRecord, sawIndex    bool
	recordTotals, ixTotals bool
	area                   reportAreaKey
	areaI                  int // index of area in a.Areas
	haveArea               bool
	rows                   rowCounts // the table rows' records, checked against Subtotals: and Totals:
	tenancy                string
	inLOB                  bool // in a LOB SUMMARY: its rows go to a.LOBs
	lob                    lobState
	summaryLOB             bool // the awaited "Summary for AREA" follows a LOB section: its Subtotals: may be the LOB one, or missing
	ixOwner, ixTable       string
	summaryArea            int    // index in a.Areas awaiting its Subtotals: line, or -1
	summarized             []bool // per a.Areas: "Summary for AREA" seen
	summaryLine            int
	headerValues           int      // "label: value" lines of the header read so far
	sawOptions             bool     // the header's options line was read (it may be empty)
	blockCount             *int64   // the summary's block count, its line due next after Totals: (3921)
	blockUse               *float64 // the summary's block space use, its line due after the count (3922)
	pendingName            string   // a wrapped name waiting for its numbers line
	pendingLine            int
	pendingMaybe           bool   // the pending name has no owner: a row only if numbers follow
	dfLine                 int    // first line that is a .df's ADD statement, before any summary
	dfText                 string // its text, for the error
	areaIdx                map[reportAreaKey]int
	tables                 chunked[TableStat]
	indexes                chunked[IndexStat]
	fields                 [12]string
}

func (p *analysisParser) errorf(format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", p.name, p.lineNo, fmt.Sprintf(format, args...))
}

func (p *analysisParser) line(raw string) error {
	raw = stripLineTime(raw)
	text := strings.TrimSpace(raw)
	if text == "" {
		return nil
	}
	indented := raw[0] == ' ' || raw[0] == '\t'
	if p.pendingName != "" {
		return p.continuation(raw, text, indented)
	}
	heading, numbered := stripMessageNumber(text)
	if numbered && strings.HasSuffix(text, inUseSuffix) {
		p.a.InUse = true
	}
	if p.summaryLOB && p.summaryLine > 0 && isHeading(heading) {
		p.clearSummary() // the summary closing a LOB section had no Subtotals:
	}
	if done, err := p.sectionHeading(heading); done || err != nil {
		return err
	}
	if done, err := p.structuralHeading(heading, indented); done || err != nil {
		return err
	}
	if p.part == partHeader {
		if p.dfLine == 0 && isDFStatementLine(raw) {
			p.dfLine, p.dfText = p.lineNo, text
		}
		return p.headerLine(heading) // 10.x appends (3868) and the like
	}
	if done, err := p.closingLine(text); done || err != nil {
		return err
	}
	if numbered || p.part == partSkip {
		return nil // a warning such as (2486), or a section oedl does not use
	}
	if p.inLOB {
		return p.lobLine(text)
	}
	switch p.part {
	case partRecord:
		return p.tableLine(text, indented)
	case partIndex:
		return p.indexLine(text, indented)
	}
	return nil
}

// isDFStatementLine tells a .df's ADD statement (`ADD TABLE "Customer"`,
// in column 0 as the Data Dictionary writes it) given for a report, so that
// the error says which file was swapped for which.
func isDFStatementLine(raw string) bool {
	for _, p := range [...]string{"ADD TABLE ", "ADD SEQUENCE ", "ADD FIELD ", "ADD INDEX "} {
		if strings.HasPrefix(raw, p) {
			return true
		}
	}
	return false
}

// stripLineTime removes the "HH:MM:SS " a capturing script puts before
// each line of a report ("17:02:34 CHAIN ANALYSIS FOR AREA ...", the form
// George Potemkin's dbanalys loader takes), keeping the indentation after
// it, which tells index rows from their table lines. No line of a report
// starts with a time, so a line that does is such a capture's.
func stripLineTime(raw string) string {
	if len(raw) < 8 || raw[2] != ':' || raw[5] != ':' {
		return raw
	}
	for _, i := range [...]int{0, 1, 3, 4, 6, 7} {
		if raw[i] < '0' || raw[i] > '9' {
			return raw
		}
	}
	switch {
	case len(raw) == 8:
		return ""
	case raw[8] == ' ':
		return raw[9:]
	case raw[8] == '\r':
		return raw[8:]
	}
	return raw
}

// stripMessageNumber removes the " (NNNN)" old releases append to section
// titles, e.g. "RECORD BLOCK SUMMARY (6129)", and says whether there was one.
// inUseSuffix ends the warning of an analysis run online (KB P122741).
var inUseSuffix = fmt.Sprintf("(%d)", MsgOnlineAnalysis)

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

// headerLine reads the report's header by its layout, never its labels,
// which are messages a message file words (3868 "Database:", 8361
// "Blocksize:", 14178 "RecSpaceSearchDepth:", 3869 "Options:", 3870
// "Date:"): after the "OpenEdge Release" line, the "label: value" lines
// come in that order, RecSpaceSearchDepth only from 11.x on (a whole
// number where 10.x has the options).
func (p *analysisParser) headerLine(text string) error {
	if strings.HasPrefix(text, "OpenEdge Release ") && p.a.Release == "" {
		p.a.Release = text
		return nil
	}
	_, value, ok := strings.Cut(text, ":")
	if !ok {
		return nil
	}
	value = strings.TrimSpace(value)
	p.headerValues++
	switch {
	case p.headerValues == 1:
		p.a.Database = value
	case p.headerValues == 2:
		n, err := strconv.Atoi(value)
		if err != nil || n < 0 {
			return p.errorf("the block size (the header's second value) %q is not a number", value)
		}
		p.a.BlockSize = n
	case p.headerValues == 3 && allDigits(value) && value != "":
		n, err := strconv.Atoi(value)
		if err != nil {
			return p.errorf("RecSpaceSearchDepth %q is not a number", value)
		}
		p.a.RecSpaceSearchDepth = n
	case p.a.Options == "" && !p.sawOptions:
		p.a.Options, p.sawOptions = value, true
	case p.a.Date == "":
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
		p.rows.heading(p.lineNo)
		return true, nil
	case strings.HasPrefix(h, "RECORD BLOCK SUMMARY FOR "):
		p.tenancy, p.inLOB = h[len("RECORD BLOCK SUMMARY FOR "):], false
		p.rows.heading(p.lineNo)
		return true, nil
	case strings.HasPrefix(h, "INDEX BLOCK SUMMARY FOR "): // shared objects, tenant or group
		p.ixOwner, p.ixTable = "", ""
		return true, nil
	case strings.HasPrefix(h, "Summary for AREA "):
		return true, p.summaryHeading(h, len("Summary for AREA "))
	case strings.HasPrefix(h, "LOB SUMMARY"):
		return true, p.lobHeading(h)
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

func (p *analysisParser) clearSummary() {
	p.summaryArea, p.summaryLine, p.summaryLOB = -1, 0, false
}

// isHeading says whether a line is a section or area title: what ends an
// awaited Subtotals: line.
func isHeading(h string) bool {
	for _, prefix := range []string{"RECORD BLOCK SUMMARY", "INDEX BLOCK SUMMARY", "LOB SUMMARY", "Summary for AREA ",
		"SUMMARY FOR AREA ", "CHAIN ANALYSIS FOR AREA ", "DATABASE ", "AREA "} {
		if strings.HasPrefix(h, prefix) {
			return true
		}
	}
	return false
}

func (p *analysisParser) leave() error {
	if p.summaryLOB {
		p.clearSummary()
	}
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
	if !p.sawRecord && !(p.sawIndex && IndexOnlyOptions(p.a.Options)) {
		if p.dfLine > 0 {
			return fmt.Errorf("%s: no RECORD BLOCK SUMMARY: line %d (%s) is a .df statement: this is a .df, not a tabanalys or dbanalys report", p.name, p.dfLine, p.dfText)
		}
		return fmt.Errorf("%s: no RECORD BLOCK SUMMARY: not a tabanalys or dbanalys report", p.name)
	}
	if err := p.leave(); err != nil {
		return fmt.Errorf("%w: the report is cut off", err)
	}
	p.sumUnsummarizedAreas()
	return nil
}

// IndexOnly reports whether the report is an ixanalys (idxanalys): index
// rows and no table row, so no record counts to plan or verify by.
func (a *Analysis) IndexOnly() bool {
	return IndexOnlyOptions(a.Options) && len(a.Tables) == 0
}

// IndexOnlyReason is why an ixanalys cannot stand for a tabanalys: a DBA who
// ran the wrong qualifier is told which one to run.
const IndexOnlyReason = "an index analysis (Options: ixanalys) counts no records: give the report of proutil -C tabanalys or dbanalys"

// IndexOnlyOptions reports whether an "Options:" line is that of an
// ixanalys (idxanalys), which prints no RECORD BLOCK SUMMARY.
func IndexOnlyOptions(options string) bool {
	ix, tab := false, false
	for _, o := range strings.Fields(options) {
		switch strings.ToLower(o) {
		case "ixanalys", "idxanalys":
			ix = true
		case "tabanalys":
			tab = true
		}
	}
	return ix && !tab
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
	p.areaI = p.areaIndex(k)
	p.rows.heading(p.lineNo)
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

func (p *analysisParser) summaryHeading(h string, at int) error {
	k, ok := parseAreaKey(h[at:])
	if !ok {
		return p.errorf("malformed area heading %q (want AREA \"name\": number)", h)
	}
	if p.summaryLine > 0 && !p.summaryLOB {
		return fmt.Errorf("%s:%d: Summary for AREA has no Subtotals: line", p.name, p.summaryLine)
	}
	if p.inLOB {
		// After a LOB section the summary is the area's record summary (8
		// numbers) or the LOB one (5: LOBs, Size, Min, Max, Mean), which
		// may also come without a Subtotals: line; its Subtotals: decides.
		if p.part != partRecord {
			return nil
		}
		p.summaryArea, p.summaryLine, p.summaryLOB = p.areaIndex(k), p.lineNo, true
		return nil
	}
	if p.part != partRecord {
		return p.errorf("%q outside the RECORD BLOCK SUMMARY", h)
	}
	p.summaryArea, p.summaryLine, p.summaryLOB = p.areaIndex(k), p.lineNo, false
	p.inLOB = false
	return nil
}

// closingLine handles Subtotals:/Totals: and the block count lines.
func (p *analysisParser) closingLine(text string) (bool, error) {
	kind, rest, err := p.closingKind(text)
	if err != nil {
		return true, err
	}
	switch {
	case kind == closingSubtotals:
		f := p.split(rest)
		if p.summaryLine == 0 || p.part != partRecord {
			// A per-heading subtotal: recomputable, not kept, but checked.
			if p.part != partRecord || p.inLOB {
				return true, nil
			}
			if len(f) != 8 {
				return true, p.errorf("Subtotals: has %d numbers, want 8", len(f))
			}
			return true, p.checkSubtotal(f[0])
		}
		if p.summaryLOB && len(f) == 5 {
			p.clearSummary() // the LOB totals: the area's records are summed from its rows
			return true, nil
		}
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
		if err := p.checkAreaSummary(p.summaryArea, records); err != nil {
			return true, err
		}
		s := &p.a.Areas[p.summaryArea]
		s.Records, s.Bytes = records, bytes
		p.summarized[p.summaryArea] = true
		p.clearSummary()
		return true, nil
	case kind == closingTotals:
		if p.summaryLine > 0 && !p.summaryLOB {
			return true, fmt.Errorf("%s:%d: Summary for AREA has no Subtotals: line", p.name, p.summaryLine)
		}
		p.clearSummary()
		switch p.part {
		case partRecord:
			p.blockCount, p.blockUse = &p.a.RMBlocks, &p.a.RMUsedPct
			f := p.split(rest)
			if len(f) == 0 {
				return true, p.errorf("Totals: has no numbers")
			}
			if err := p.checkTotals(f[0]); err != nil {
				return true, err
			}
			p.recordTotals = true
		case partIndex:
			p.blockCount, p.blockUse = &p.a.IndexBlocks, &p.a.IndexUsedPct
			p.ixTotals = true
		}
		// What follows the totals (block counts, the size key) has no rows.
		p.part, p.haveArea = partSkip, false
		return true, nil
	case p.blockCount != nil || p.blockUse != nil:
		return p.blockLine(text)
	}
	return false, nil
}

// blockLine reads the lines that follow a summary's Totals:, its block
// count ("1103 RM block(s) found in the database.", 3921) and then its
// block space use ("52.35% of the RM block space is used.", 3922). They
// are messages, worded by the message file (PROMSGS): they are read by
// their place and their first word, a whole number then a percentage,
// never by their words. A line that is neither ends the wait, and is not
// one of them.
func (p *analysisParser) blockLine(text string) (bool, error) {
	first, _, _ := strings.Cut(text, " ")
	if p.blockCount != nil && allDigits(first) {
		n, err := p.int64Field("block count", first)
		*p.blockCount, p.blockCount = n, nil
		return true, err
	}
	if pct, ok := strings.CutSuffix(first, "%"); ok && p.blockUse != nil {
		f, err := p.floatField("block space use", pct)
		*p.blockUse, p.blockCount, p.blockUse = f, nil, nil
		return true, err
	}
	p.blockCount, p.blockUse = nil, nil
	return false, nil
}
