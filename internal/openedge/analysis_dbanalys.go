package openedge

import (
	"strconv"
	"strings"
)

// DBAnalysis is what a dbanalys prints around the record and index
// summaries (openedge-formats.md §1.2, the 11.5.1 sports2000 report): the
// chain and block analysis of every area at the start, the database
// summary, the database block analysis and the closing line at the end.
// oedl reads none of it (ParseAnalysis skips these sections); oesim sets it
// so that its dbanalys has the whole layout the parser meets on a real one.
type DBAnalysis struct {
	Areas    []AreaAnalysis // every area, the Control Area first
	Blocks   DBBlocks
	Complete string // date of the closing "Database analysis complete" line
}

// AreaAnalysis is the chain and block analysis of one area.
type AreaAnalysis struct {
	Name       string
	Number     int
	FreeChain  int64
	RMChain    []RMChainObject // v11+: one row per object with blocks on the RM chain
	IndexChain int64           // blocks on the index delete chain
	// The block analysis.
	Total, HighWater                     int64
	Free, Record, Index, Empty, ObjectBl int64
}

// RMChainObject is one row of the v11 RM chain table.
type RMChainObject struct {
	Blocks int64
	Type   string // "Table"
	Name   string // owner.table:number
}

// DBBlocks are the counts of the DATABASE BLOCK ANALYSIS.
type DBBlocks struct {
	Master, Area, Control, Object, Free, Sequence, Empty, Total int64
}

const chainDashes = "----------------------------------------------------------"

// chains prints the chain and block analysis of every area, as the 11.5.1
// report does before its record summary.
func (p *analysisPrinter) chains(d *DBAnalysis) {
	for _, ar := range d.Areas {
		k := reportAreaKey{ar.Name, ar.Number}
		p.lines(areaHeading("CHAIN ANALYSIS FOR AREA ", k), chainDashes, "")
		p.lines("FREE CHAIN ANALYSIS", "-------------------", "")
		p.lines(strconv.FormatInt(ar.FreeChain, 10)+" block(s) found in the free chain.", "", "")
		p.lines("RM CHAIN ANALYSIS", "---------------------------", "", "")
		p.lines("Number of          Object    Object", "Blocks             Type",
			"------------------------------------------------------------------------------------------------------")
		for _, o := range ar.RMChain {
			p.lines(padTo(strconv.FormatInt(o.Blocks, 10), 19) + padTo(o.Type, 10) + o.Name)
		}
		p.lines("", "")
		p.lines("INDEX DELETE CHAIN ANALYSIS", "---------------------------", "")
		p.lines(strconv.FormatInt(ar.IndexChain, 10)+" block(s) found in the Index Delete chain.", "", "")
		p.lines(`AREA "`+ar.Name+`": `+strconv.Itoa(ar.Number)+"  BLOCK ANALYSIS", "-------------------------------------------------", "")
		p.lines(strconv.FormatInt(ar.Total, 10)+" block(s) found in the area.", "")
		p.lines("Current high water mark: "+strconv.FormatInt(ar.HighWater, 10), "")
		for _, c := range []struct {
			n    int64
			what string
		}{{ar.Free, "free"}, {ar.Record, "record"}, {ar.Index, "index"}, {ar.Empty, "empty"}, {ar.ObjectBl, "object"}} {
			p.lines(padLeft(strconv.FormatInt(c.n, 10), 5) + " " + c.what + " block(s) found in the area")
		}
		p.lines("", "")
	}
}

// databaseSummary prints the DATABASE SUMMARY: per area, each table's
// record and index sizes and their share of the whole.
func (p *analysisPrinter) databaseSummary() {
	a := p.a
	ixBytes := map[string]int64{}
	var total, recTotal, ixTotal int64
	for _, ix := range a.Indexes {
		ixBytes[ix.Owner+"."+ix.Table] = addSizes(ixBytes[ix.Owner+"."+ix.Table], ix.Bytes)
		ixTotal = addSizes(ixTotal, ix.Bytes)
	}
	for _, t := range a.Tables {
		recTotal = addSizes(recTotal, t.Bytes)
	}
	total = max(1, addSizes(recTotal, ixTotal))
	pct := func(n int64) string { return strconv.FormatFloat(float64(n)*100/float64(total), 'f', 1, 64) }
	p.lines("", "", "                             DATABASE SUMMARY", "", "")
	for _, ra := range groupByArea(a) {
		if len(ra.tables) == 0 {
			continue
		}
		p.lines(areaHeading("SUMMARY FOR AREA ", ra.key), areaDashes, "", "")
		p.lines("SUMMARY FOR SHARED OBJECTS:", sharedDashes)
		p.lines("                             Records              Indexes            Combined",
			"NAME                        Size  Tot %         Size  Tot %         Size  Tot %")
		for _, i := range ra.tables {
			t := &a.Tables[i]
			name := qualifiedTableName(t.Owner, t.Name, t.Partition)
			ix := ixBytes[t.Owner+"."+t.Name]
			nums := padLeft(FormatSize(t.Bytes), 8) + padLeft(pct(t.Bytes), 7) + padLeft(FormatSize(ix), 13) +
				padLeft(pct(ix), 7) + padLeft(FormatSize(t.Bytes+ix), 13) + padLeft(pct(t.Bytes+ix), 7)
			if len(name) > 23 {
				p.lines(name, strings.Repeat(" ", 24)+nums)
				continue
			}
			p.lines(padTo(name, 24) + nums)
		}
		p.lines("")
	}
	p.lines("                    -----------------------------------------------------------",
		"Total                   "+padLeft(FormatSize(recTotal), 8)+padLeft(pct(recTotal), 7)+padLeft(FormatSize(ixTotal), 13)+
			padLeft(pct(ixTotal), 7)+padLeft(FormatSize(recTotal+ixTotal), 13)+padLeft("100.0", 7), "")
}

// blockAnalysis prints the DATABASE BLOCK ANALYSIS and the closing line.
func (p *analysisPrinter) blockAnalysis(d *DBAnalysis) {
	b := d.Blocks
	p.lines("", "DATABASE BLOCK ANALYSIS:", "-----------------------", "")
	for _, c := range []struct {
		n    int64
		what string
	}{{b.Master, "master"}, {b.Area, "area"}, {b.Control, "control"}, {b.Object, "object"}, {b.Free, "free"},
		{b.Sequence, "sequence"}, {b.Empty, "empty"}} {
		p.lines(strconv.FormatInt(c.n, 10)+" "+c.what+" block(s) found in the database.", "")
	}
	p.lines(strconv.FormatInt(b.Total, 10)+" total blocks found in the database.", "")
	p.lines("Database analysis complete " + d.Complete)
}

func padTo(s string, n int) string {
	if len(s) >= n {
		return s + " "
	}
	return s + strings.Repeat(" ", n-len(s))
}

func padLeft(s string, n int) string {
	if len(s) >= n {
		return " " + s
	}
	return strings.Repeat(" ", n-len(s)) + s
}
