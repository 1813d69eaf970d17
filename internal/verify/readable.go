package verify

import (
	"fmt"
	"os"

	"github.com/oedl/oedl/internal/openedge"
)

// Readable refuses a report that cannot prove anything: one with no
// application table (an empty comparison would say MATCH on nothing), and
// one whose table rows add up to less or more than an area's own
// "Summary for AREA" subtotal says (rows the parser could not read as
// tables, such as rows without their owner prefix, were left out: the
// comparison would be of a part). The error names the file and the area.
// A report of an empty database is refused too: there is nothing to
// verify a migration by.
func Readable(a *openedge.Analysis, file string) error {
	byArea := map[[2]any]int64{}
	for _, t := range a.Tables {
		byArea[[2]any{t.Area, t.AreaNum}] += t.Records
	}
	for _, ar := range a.Areas {
		if got := byArea[[2]any{ar.Name, ar.Number}]; got != ar.Records {
			return fmt.Errorf("%s: the Summary for AREA %q: %d counts %d records, its table rows %d: rows that could not be read as tables (owner.table name and 8 numbers) were left out, and a comparison of the rest would prove nothing",
				file, ar.Name, ar.Number, ar.Records, got)
		}
	}
	if a.IndexOnly() {
		return fmt.Errorf("%s: %s", file, openedge.IndexOnlyReason)
	}
	if len(NewSide(a, file).Tables) == 0 {
		return fmt.Errorf("%s: no application table in the report (%d meta-schema or SQL catalog rows): nothing to compare; a report whose rows cannot be read as owner.table rows is no proof, and neither is one of an empty database",
			file, len(a.Tables))
	}
	return nil
}

// Distinct refuses a comparison of one analysis with itself: the same file
// twice (by any name), or two files of one analysis, the same database
// analysed at the same second by the header's "Date:" (a copy, or the
// source's report given for the target's). Each would match table by
// table and say MATCH of a target nobody looked at (nu-trial8). The same
// database at another date is a real case: a target made at the source's
// path after the source was moved away. A report without a date (made by
// hand; a -csoutput file's time stamp is its date) is judged by the file
// alone.
func Distinct(before, after *openedge.Analysis, beforeFile, afterFile string) error {
	bi, berr := os.Stat(beforeFile)
	ai, aerr := os.Stat(afterFile)
	if berr == nil && aerr == nil && os.SameFile(bi, ai) {
		return fmt.Errorf("--before and --after are the same file (%s, %s): give the source's report before the migration and the target's after it", beforeFile, afterFile)
	}
	if before.Date != "" && before.Date == after.Date && before.Database == after.Database {
		return fmt.Errorf("%s and %s are one analysis: database %s, Date: %s in both headers; give the source's report before the migration and the target's after it",
			beforeFile, afterFile, before.Database, before.Date)
	}
	return nil
}
