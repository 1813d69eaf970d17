package openedge

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
)

// Column ends (0-based, exclusive) of the 11.5.1 tabanalys layout, measured
// on the sports2000 report in openedge-formats.md §1.2. Numbers are
// right-aligned on these columns; a value too wide for its column pushes the
// rest of the line right by one space, as printf-style padding would.
var (
	// Records, Size, Min, Max, Mean, Fragment count, Fragment factor, Scatter.
	tableCols = [8]int{48, 56, 62, 68, 74, 95, 102, 110}
	// Index#, Fields, Levels, Blocks, Size, % Util, Factor.
	indexCols = [7]int{32, 40, 47, 62, 70, 78, 86}
	// The index Totals line ends its Factor one column short; copied as is.
	indexTotalCols = [4]int{62, 70, 78, 85}
)

const (
	areaDashes   = "-------------------------------------------------------"
	sharedDashes = "--------------------------------------------"
	tableDashes  = "                                 -----------------------------------------------------------------------------"
	indexDashes  = "                    ------------------------------------------------------------------"

	tableHeader1 = "                                                           -Record Size (B)-           ---Fragments--- Scatter"
	tableHeader2 = "Table                                    Records    Size   Min   Max  Mean                Count Factor  Factor"
	indexHeader  = "Table                      Index  Fields Levels         Blocks    Size  % Util  Factor"

	sizeKey = "Size key:\n B = bytes\n K = kilobytes\n M = megabytes\n G = gigabytes\n T = terabytes\n"
)

// WriteAnalysis prints a in the layout of an OpenEdge 11.5.1 tabanalys report
// (with an INDEX BLOCK SUMMARY when a has indexes, as dbanalys prints it, and
// only that when a.Options is an ixanalys's), so that oesim's output goes
// through the same ParseAnalysis as the real thing. With a.DB set it is a
// whole dbanalys: chain and block analysis of each area first, the
// database summary, the database block analysis and the closing line.
//
// Areas are printed in the order of a.Areas followed by any area that only
// a table or an index names. Within an area, the shared tables come first,
// then each tenant or group heading in order of first appearance; rows
// keep their order under their heading, and indexes keep theirs. Subtotals
// and totals are computed from the rows, not taken from a.Areas. A name
// that would run into the first number column is printed alone with its
// numbers on the next line, as older releases wrap.
func WriteAnalysis(w io.Writer, a *Analysis) error {
	if a == nil {
		return fmt.Errorf("write analysis: nil report")
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	p := &analysisPrinter{w: bw, a: a}
	p.header()
	if a.DB != nil {
		p.chains(a.DB)
	}
	// An ixanalys prints only the index summary; anything else with tables
	// prints the record summary, and the index summary when there are indexes.
	indexOnly := a.IndexOnly()
	if !indexOnly {
		p.recordSummary()
	}
	if len(a.Indexes) > 0 || indexOnly {
		p.indexSummary()
	}
	if a.DB != nil {
		p.databaseSummary()
	}
	p.str("\n" + sizeKey)
	if a.DB != nil {
		p.blockAnalysis(a.DB)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write analysis: %w", err)
	}
	return nil
}

// reportAreaKey identifies an area: its name and number, as the headings print them.
type reportAreaKey struct {
	name string
	num  int
}

// reportArea is one area of the report with the rows printed under it.
type reportArea struct {
	key     reportAreaKey
	tables  []int // indexes into Analysis.Tables
	indexes []int // indexes into Analysis.Indexes
}

// groupByArea lists the areas in print order with the rows of each.
func groupByArea(a *Analysis) []*reportArea {
	var order []*reportArea
	byKey := make(map[reportAreaKey]*reportArea, len(a.Areas))
	get := func(k reportAreaKey) *reportArea {
		if ra, ok := byKey[k]; ok {
			return ra
		}
		ra := &reportArea{key: k}
		byKey[k] = ra
		order = append(order, ra)
		return ra
	}
	for _, s := range a.Areas {
		get(reportAreaKey{s.Name, s.Number})
	}
	for i := range a.Tables {
		ra := get(reportAreaKey{a.Tables[i].Area, a.Tables[i].AreaNum})
		ra.tables = append(ra.tables, i)
	}
	for i := range a.Indexes {
		ra := get(reportAreaKey{a.Indexes[i].Area, a.Indexes[i].AreaNum})
		ra.indexes = append(ra.indexes, i)
	}
	return order
}

type analysisPrinter struct {
	w    *bufio.Writer
	a    *Analysis
	line []byte // reused for every row
}

func (p *analysisPrinter) str(s string) { p.w.WriteString(s) } // errors surface at Flush

func (p *analysisPrinter) lines(ss ...string) {
	for _, s := range ss {
		p.w.WriteString(s)
		p.w.WriteByte('\n')
	}
}

func (p *analysisPrinter) blank(n int) {
	for range n {
		p.w.WriteByte('\n')
	}
}

func (p *analysisPrinter) header() {
	a := p.a
	if a.Release != "" {
		p.lines(a.Release)
		p.blank(2)
	}
	p.lines("PROGRESS Database Analysis", "")
	p.lines("Database: "+a.Database, "Blocksize: "+strconv.Itoa(a.BlockSize))
	if a.RecSpaceSearchDepth > 0 {
		p.lines("RecSpaceSearchDepth: " + strconv.Itoa(a.RecSpaceSearchDepth))
	}
	// The real report leaves a space after every option, the last included.
	p.lines("Options: "+a.Options+" ", "Date: "+a.Date)
	p.blank(2)
}

func (p *analysisPrinter) recordSummary() {
	a := p.a
	p.lines("                            RECORD BLOCK SUMMARY")
	p.blank(3)
	var all tableTotals
	for _, ra := range groupByArea(a) {
		p.lines(areaHeading("RECORD BLOCK SUMMARY FOR AREA ", ra.key), areaDashes)
		var area tableTotals
		if len(ra.tables) == 0 {
			p.blank(1)
		}
		for _, group := range groupByTenancy(a.Tables, ra.tables) {
			p.blank(2)
			if t := a.Tables[group[0]].Tenancy; t != "" {
				p.lines("RECORD BLOCK SUMMARY FOR "+t, sharedDashes)
			} else {
				p.lines("RECORD BLOCK SUMMARY FOR SHARED TABLES", sharedDashes)
			}
			p.blank(2)
			p.lines(tableHeader1, tableHeader2)
			var sub tableTotals
			for _, i := range group {
				t := &a.Tables[i]
				p.tableRow(t)
				sub.add(t)
			}
			p.blank(1)
			p.lines(tableDashes)
			p.totalsRow("Subtotals:", &sub)
			area.merge(&sub)
			p.blank(4)
		}
		p.lines(tableDashes, areaHeading("Summary for AREA ", ra.key))
		p.totalsRow("Subtotals:", &area)
		all.merge(&area)
		p.blank(3)
	}
	p.lines(tableDashes)
	p.totalsRow("Totals:", &all)
	p.blank(3)
	p.lines(strconv.FormatInt(a.RMBlocks, 10)+" RM block(s) found in the database.",
		strconv.FormatFloat(a.RMUsedPct, 'f', 2, 64)+"% of the RM block space is used.")
}

func (p *analysisPrinter) indexSummary() {
	a := p.a
	p.blank(3)
	p.lines("                              INDEX BLOCK SUMMARY")
	p.blank(2)
	var all indexTotals
	for _, ra := range groupByArea(a) {
		p.lines(areaHeading("INDEX BLOCK SUMMARY FOR AREA ", ra.key), areaDashes)
		if len(ra.indexes) == 0 {
			p.blank(3)
			continue
		}
		p.blank(2)
		p.lines("INDEX BLOCK SUMMARY FOR SHARED OBJECTS:", sharedDashes, indexHeader)
		var sub indexTotals
		prevTable := ""
		for _, i := range ra.indexes {
			ix := &a.Indexes[i]
			if tn := qualifiedTableName(ix.Owner, ix.Table, ""); tn != prevTable {
				p.lines(tn)
				prevTable = tn
			}
			p.indexRow(ix)
			sub.add(ix)
		}
		p.blank(1)
		p.lines(indexDashes)
		p.indexTotalsRow("Subtotals:", &sub, indexCols[3:])
		all.merge(&sub)
		p.blank(3)
	}
	p.lines(indexDashes)
	p.indexTotalsRow("Totals:", &all, indexTotalCols[:])
	p.blank(3)
	blocks, used := a.IndexBlocks, a.IndexUsedPct
	if blocks == 0 {
		blocks = all.blocks
	}
	if used == 0 {
		used = all.util(a.BlockSize)
	}
	p.lines(strconv.FormatInt(blocks, 10)+" index block(s) found in the database.",
		strconv.FormatFloat(used, 'f', 2, 64)+"% of the index block space is used.")
}

// groupByTenancy splits the rows of one area by heading, shared tables
// first, then each tenant or group heading in order of first appearance.
func groupByTenancy(tables []TableStat, rows []int) [][]int {
	if len(rows) == 0 {
		return nil
	}
	var groups [][]int
	pos := map[string]int{}
	if tables[rows[0]].Tenancy != "" {
		for _, i := range rows {
			if tables[i].Tenancy == "" {
				pos[""] = 0
				groups = append(groups, nil)
				break
			}
		}
	}
	for _, i := range rows {
		t := tables[i].Tenancy
		g, ok := pos[t]
		if !ok {
			g = len(groups)
			pos[t] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	return groups
}

func areaHeading(prefix string, k reportAreaKey) string {
	return prefix + `"` + k.name + `": ` + strconv.Itoa(k.num)
}

func qualifiedTableName(owner, name, partition string) string {
	if owner == "" {
		owner = "PUB"
	}
	s := owner + "." + name
	if partition != "" {
		s += "." + partition
	}
	return s
}

func (p *analysisPrinter) tableRow(t *TableStat) {
	name := qualifiedTableName(t.Owner, t.Name, t.Partition)
	b := p.line[:0]
	records := strconv.AppendInt(nil, t.Records, 10)
	if len(name)+1+len(records) > tableCols[0] {
		b = append(b, name...)
		b = append(b, '\n')
		p.w.Write(b)
		b = b[:0]
	} else {
		b = append(b, name...)
	}
	b = p.tableNumbers(b, t.Records, t.Bytes, t.MinRecord, t.MaxRecord, t.MeanRecord,
		t.Fragments, t.FragFactor, t.ScatterFactor)
	p.flushLine(b)
}

func (p *analysisPrinter) totalsRow(label string, s *tableTotals) {
	b := append(p.line[:0], label...)
	b = p.tableNumbers(b, s.records, s.bytes, s.min(), s.max, s.mean(),
		s.frags, s.fragFactor(), s.scatter())
	p.flushLine(b)
}

func (p *analysisPrinter) tableNumbers(b []byte, records, bytes, lo, hi, mean, frags int64, ff, sf float64) []byte {
	var tmp [32]byte
	b = padRightAt(b, tableCols[0], strconv.AppendInt(tmp[:0], records, 10))
	b = padRightAt(b, tableCols[1], appendSize(tmp[:0], bytes))
	b = padRightAt(b, tableCols[2], strconv.AppendInt(tmp[:0], lo, 10))
	b = padRightAt(b, tableCols[3], strconv.AppendInt(tmp[:0], hi, 10))
	b = padRightAt(b, tableCols[4], strconv.AppendInt(tmp[:0], mean, 10))
	b = padRightAt(b, tableCols[5], strconv.AppendInt(tmp[:0], frags, 10))
	b = padRightAt(b, tableCols[6], strconv.AppendFloat(tmp[:0], ff, 'f', 1, 64))
	b = padRightAt(b, tableCols[7], strconv.AppendFloat(tmp[:0], sf, 'f', 1, 64))
	return b
}

func (p *analysisPrinter) indexRow(ix *IndexStat) {
	var tmp [32]byte
	b := append(p.line[:0], "  "...)
	b = append(b, ix.Name...)
	if ix.Partition != "" {
		b = append(b, ':')
		b = append(b, ix.Partition...)
	}
	if ix.Inactive {
		b = append(b, "(inactive)"...)
	}
	num := strconv.AppendInt(tmp[:0], int64(ix.Number), 10)
	if len(b)+1+len(num) > indexCols[0] {
		b = append(b, '\n')
		p.w.Write(b)
		b = b[:0]
	}
	b = padRightAt(b, indexCols[0], num)
	b = padRightAt(b, indexCols[1], strconv.AppendInt(tmp[:0], int64(ix.Fields), 10))
	b = padRightAt(b, indexCols[2], strconv.AppendInt(tmp[:0], int64(ix.Levels), 10))
	b = padRightAt(b, indexCols[3], strconv.AppendInt(tmp[:0], ix.Blocks, 10))
	b = padRightAt(b, indexCols[4], appendSize(tmp[:0], ix.Bytes))
	b = padRightAt(b, indexCols[5], strconv.AppendFloat(tmp[:0], ix.Util, 'f', 1, 64))
	b = padRightAt(b, indexCols[6], strconv.AppendFloat(tmp[:0], ix.Factor, 'f', 1, 64))
	p.flushLine(b)
}

func (p *analysisPrinter) indexTotalsRow(label string, s *indexTotals, cols []int) {
	var tmp [32]byte
	b := append(p.line[:0], label...)
	b = padRightAt(b, cols[0], strconv.AppendInt(tmp[:0], s.blocks, 10))
	b = padRightAt(b, cols[1], appendSize(tmp[:0], s.bytes))
	b = padRightAt(b, cols[2], strconv.AppendFloat(tmp[:0], s.util(p.a.BlockSize), 'f', 1, 64))
	// The real report prints 0.0 in the Factor column of every total.
	b = padRightAt(b, cols[3], []byte("0.0"))
	p.flushLine(b)
}

func (p *analysisPrinter) flushLine(b []byte) {
	b = append(b, '\n')
	p.w.Write(b)
	p.line = b[:0]
}

// padRightAt appends field so that it ends at column end, keeping at least one
// space after what is already on the line.
func padRightAt(b []byte, end int, field []byte) []byte {
	pad := end - len(b) - len(field)
	if pad < 1 {
		pad = 1
	}
	for range pad {
		b = append(b, ' ')
	}
	return append(b, field...)
}
