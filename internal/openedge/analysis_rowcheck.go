package openedge

import "strconv"

// rowCounts adds up the records of the table rows read in the RECORD BLOCK
// SUMMARY, so that every Subtotals: and Totals: line the report prints is
// checked against the rows above it. The report computes those lines from
// the same counters as its rows (one pass over the database, online or
// not), so a difference means a row oedl did not read as one: a layout it
// does not know, an owner or name it took for something else. Without the
// check that table would be missing from the plan and from verify, which
// compares the same report's tables before and after, without a word.
type rowCounts struct {
	sinceHeading int64 // rows since the last area, shared-tables or tenant heading
	headingLine  int
	area         []int64 // per Analysis.Areas
	total        int64
}

func (c *rowCounts) heading(line int) { c.sinceHeading, c.headingLine = 0, line }

func (c *rowCounts) add(area int, records int64) {
	for len(c.area) <= area {
		c.area = append(c.area, 0)
	}
	c.sinceHeading += records
	c.area[area] += records
	c.total += records
}

func (c *rowCounts) inArea(area int) int64 {
	if area < len(c.area) {
		return c.area[area]
	}
	return 0
}

// checkSubtotal compares a Subtotals: line's records with the rows since
// the heading it closes.
func (p *analysisParser) checkSubtotal(field string) error {
	records, err := p.int64Field("Subtotals: Records", field)
	if err != nil {
		return err
	}
	if got := p.rows.sinceHeading; got != records {
		return p.rowsMismatch("Subtotals:", records, got, p.rows.headingLine)
	}
	return nil
}

// checkAreaSummary compares an area's "Summary for AREA" Subtotals: with
// all the rows of that area.
func (p *analysisParser) checkAreaSummary(area int, records int64) error {
	if got := p.rows.inArea(area); got != records {
		a := p.a.Areas[area]
		return p.errorf("Subtotals: of area %q: %d says %d records, the table rows of the area add up to %d: %s",
			a.Name, a.Number, records, got, rowNotRead)
	}
	return nil
}

// checkTotals compares the record summary's Totals: line with every row.
func (p *analysisParser) checkTotals(field string) error {
	records, err := p.int64Field("Totals: Records", field)
	if err != nil {
		return err
	}
	if got := p.rows.total; got != records {
		return p.rowsMismatch("Totals:", records, got, 0)
	}
	return nil
}

const rowNotRead = "a line of the report is a table row oedl did not read as one (a layout it does not know); " +
	"that table would be missing from the plan and from verify. Give the -csoutput DB.tab.txt instead, or report the layout"

func (p *analysisParser) rowsMismatch(what string, says, got int64, since int) error {
	from := "in the report"
	if since > 0 {
		from = "since the heading on line " + strconv.Itoa(since)
	}
	return p.errorf("%s says %d records, the table rows %s add up to %d: %s", what, says, from, got, rowNotRead)
}
