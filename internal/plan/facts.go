package plan

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/oedl/oedl/internal/openedge"
)

// Input is what Make plans from: the source's tabanalys (or dbanalys)
// report and, when known, its .df.
type Input struct {
	Analysis     *openedge.Analysis
	AnalysisName string // path of the report, for messages and plan.json
	// DFTables is the typed view of the source .df (DF.Tables()); nil
	// when there is no .df. Make reads names, indexes and LOB fields from
	// it; WriteDir rewrites the .df itself.
	DFTables []*openedge.DFTable
	// DFSequences are the .df's sequences (DF.Sequences()): only their
	// names are checked (names with control characters are refused).
	DFSequences []*openedge.DFSequence
	DFName      string
	// AlternatePool is what the .df assigns to the Alternate Buffer Pool
	// (DF.AlternatePool): target.pf sizes -B2 for it.
	AlternatePool []openedge.AlternatePoolObject
}

// table is everything the plan knows about one application table.
type table struct {
	owner, name string
	qname       string // owner.name
	key         string // lower-cased qname: OpenEdge names are case-insensitive
	records     int64
	bytes       int64
	mean        int64
	sourceArea  string
	indexes     int
	wordIndexes int
	indexBytes  int64
	lobFields   []string // blob/clob fields, from the .df
	lobBytes    int64    // their LOBs' bytes, from the report's LOB SUMMARY (11.6 on)
	df          *openedge.DFTable
}

func (t *table) qualified() string { return t.qname }

// isSystemTable tells the tables every empty database already has: the
// metaschema (_File, _Field, ... and the VSTs) and the SQL catalog
// (SYSPROGRESS.SYSTABLES, ...). A dump/load never moves them.
func isSystemTable(owner, name string) bool {
	return strings.HasPrefix(name, "_") || strings.EqualFold(owner, "SYSPROGRESS")
}

// collect merges the report and the .df into one record per application
// table, largest first, and checks that both name the same tables. skipped
// counts the system tables left out.
func collect(in Input) (tables []*table, skipped int, err error) {
	if in.Analysis == nil {
		return nil, 0, errors.New("no tabanalys report")
	}
	name := in.AnalysisName
	if name == "" {
		name = "tabanalys"
	}
	byKey := map[string]*table{}
	tenancy := map[string][]string{}    // qualified name -> its tenant and group headings
	partitions := map[string][]string{} // qualified name -> its partitions
	var tenantTables, partitioned, notUTF8, tooLong, controls []string
	for _, r := range in.Analysis.Tables {
		owner := ownerOf(r.Owner)
		if isSystemTable(owner, r.Name) {
			skipped++
			continue
		}
		if c, ok := controlIn(owner, r.Name, r.Area); ok {
			controls = append(controls, fmt.Sprintf("%s:%d: table %q of area %q holds the control character %U", name, r.Line, owner+"."+r.Name, r.Area, c))
			continue
		}
		if !utf8.ValidString(owner) || !utf8.ValidString(r.Name) {
			notUTF8 = append(notUTF8, fmt.Sprintf("%s: table %q is not UTF-8", name, owner+"."+r.Name))
			continue
		}
		if n := utf8.RuneCountInString(r.Name); n > openedge.MaxNameLen {
			tooLong = append(tooLong, fmt.Sprintf("%s:%d: table %s: its name has %d characters, OpenEdge's limit is %d",
				name, r.Line, owner+"."+r.Name, n, openedge.MaxNameLen))
			continue
		}
		if r.Partition != "" && r.Tenancy == "" {
			q := owner + "." + r.Name
			if partitions[q] == nil {
				partitioned = append(partitioned, q)
			}
			partitions[q] = append(partitions[q], r.Partition)
			continue
		}
		if r.Tenancy != "" {
			q := owner + "." + r.Name
			if tenancy[q] == nil {
				tenantTables = append(tenantTables, q)
			}
			tenancy[q] = append(tenancy[q], r.Tenancy)
			continue
		}
		if r.Records < 0 || r.Bytes < 0 {
			return nil, 0, fmt.Errorf("%s: table %s.%s: negative record count or size", name, owner, r.Name)
		}
		key := strings.ToLower(owner + "." + r.Name)
		t := byKey[key]
		if t == nil {
			t = &table{owner: owner, name: r.Name, qname: owner + "." + r.Name, key: key, sourceArea: r.Area, mean: r.MeanRecord}
			byKey[key] = t
			tables = append(tables, t)
		} else {
			// The same table again (a report listing it under two
			// headings): the mean is recomputed from the sums below.
			t.mean = 0
		}
		t.records += r.Records
		t.bytes += r.Bytes
	}
	if in.DFTables != nil {
		controls = append(controls, openedge.ControlNames(dfNameOf(in), in.DFTables, in.DFSequences)...)
	}
	if len(controls) > 0 {
		return nil, 0, errors.New(joinProblems(controls).Error() + "\n" + noControlNames)
	}
	if len(notUTF8) > 0 {
		return nil, 0, errors.New(joinProblems(notUTF8).Error() + "\n" + utf8NamesOnly)
	}
	if len(tooLong) > 0 {
		return nil, 0, errors.New(joinProblems(tooLong).Error() + "\n" + namesWithinLimit)
	}
	if len(partitioned) > 0 {
		var problems []string
		for _, q := range partitioned {
			problems = append(problems, fmt.Sprintf("%s: table %s has partitions (%s)", name, q, strings.Join(partitions[q], ", ")))
		}
		return nil, 0, errors.New(joinProblems(problems).Error() + "\n" + unpartitionedOnly)
	}
	if len(tenantTables) > 0 {
		var problems []string
		for _, q := range tenantTables {
			problems = append(problems, fmt.Sprintf("%s: table %s has rows of tenants or groups (%s)", name, q, strings.Join(tenancy[q], ", ")))
		}
		return nil, 0, errors.New(joinProblems(problems).Error() + "\n" + singleTenantOnly)
	}
	if len(tables) == 0 && in.Analysis.IndexOnly() {
		return nil, 0, fmt.Errorf("%s: %s", name, openedge.IndexOnlyReason)
	}
	if len(tables) == 0 {
		return nil, skipped, fmt.Errorf("%s: no application tables (only %d system tables)", name, skipped)
	}
	for _, t := range tables {
		if t.mean == 0 && t.records > 0 {
			t.mean = (t.bytes + t.records/2) / t.records
		}
	}
	indexNames := map[string]map[string]bool{}
	for _, ix := range in.Analysis.Indexes {
		owner := ownerOf(ix.Owner)
		t := byKey[strings.ToLower(owner+"."+ix.Table)]
		if t == nil {
			continue // a system table's index, or a table the record summary does not list
		}
		t.indexBytes += ix.Bytes
		if indexNames[t.key] == nil {
			indexNames[t.key] = map[string]bool{}
		}
		// Partitioned indexes appear once per partition ("name:3").
		base, _, _ := strings.Cut(ix.Name, ":")
		indexNames[t.key][strings.ToLower(base)] = true
	}
	for _, t := range tables {
		t.indexes = len(indexNames[t.key])
	}
	for _, l := range in.Analysis.LOBs {
		owner := ownerOf(l.Owner)
		if t := byKey[strings.ToLower(owner+"."+l.Table)]; t != nil {
			t.lobBytes += l.Bytes
		}
	}
	if in.DFTables != nil {
		if err := matchDF(tables, in, name); err != nil {
			return nil, 0, err
		}
	}
	sort.SliceStable(tables, func(i, j int) bool {
		if tables[i].bytes != tables[j].bytes {
			return tables[i].bytes > tables[j].bytes
		}
		return tables[i].qualified() < tables[j].qualified()
	})
	return tables, skipped, nil
}

// matchDF attaches each table's .df definition and fails when the report
// and the .df disagree on which tables exist: a plan for one of them would
// leave the other's tables without a home (or load a .df that does not
// match the dump).
func matchDF(tables []*table, in Input, reportName string) error {
	dfName := dfNameOf(in)
	byName := map[string]*openedge.DFTable{}
	for _, d := range in.DFTables {
		byName[strings.ToLower(d.Name)] = d
	}
	var problems []string
	var multiTenant []string // first: the reason the plan cannot be made at all
	seen := map[*openedge.DFTable]bool{}
	missing := 0
	for _, t := range tables {
		d := byName[strings.ToLower(t.name)]
		if d == nil {
			problems = append(problems, fmt.Sprintf("%s: table %s is not in the .df %s", reportName, t.qualified(), dfName))
			missing++
			continue
		}
		seen[d] = true
		if d.MultiTenant {
			multiTenant = append(multiTenant, fmt.Sprintf("%s:%d: table %q is MULTITENANT", dfName, d.Line, d.Name))
			continue
		}
		t.df = d
		t.indexes = len(d.Indexes)
		for _, ix := range d.Indexes {
			if ix.Word {
				t.wordIndexes++
			}
		}
		for _, f := range d.Fields {
			if isLOB(f.Type) {
				t.lobFields = append(t.lobFields, f.Name)
			}
		}
	}
	for _, d := range in.DFTables {
		if !seen[d] && !isSystemTable("PUB", d.Name) {
			problems = append(problems, fmt.Sprintf("%s:%d: table %q is not in the tabanalys report %s", dfName, d.Line, d.Name, reportName))
		}
	}
	if missing > 0 {
		// First, so that the list's cut never hides it: what to give instead.
		problems = append([]string{fmt.Sprintf(dfMissesTables, dfName, missing, len(tables))}, problems...)
	}
	err := joinProblems(append(multiTenant, problems...))
	if len(multiTenant) > 0 {
		return errors.New(err.Error() + "\n" + singleTenantOnly)
	}
	return err
}

// dfNameOf is the .df's name in messages.
func dfNameOf(in Input) string {
	if in.DFName == "" {
		return ".df"
	}
	return in.DFName
}

// controlIn is the first control character of any of names
// (openedge.ControlIn).
func controlIn(names ...string) (rune, bool) {
	for _, n := range names {
		if r, ok := openedge.ControlIn(n); ok {
			return r, true
		}
	}
	return 0, false
}

// noControlNames is why a name holding a control character is refused
// (safety trial 13): no OpenEdge name holds one, and oedl writes names to
// the DBA's terminal and into files a person reads or runs, where an ESC is
// a command to the terminal and a CR or a direction override shows another
// name than the one acted on.
const noControlNames = "refused: no OpenEdge name holds a control character (Progress docs, \"Name limits\": letters, digits and # $ % & - _), and oedl prints names to the terminal and into tablemove.sh, placement.md and the run's reports, where one is a command to the terminal; give proutil's report and dump_df.p's .df of the database unedited"

// dfMissesTables says what --df must be when it lacks tables the report
// counts: an incremental .df (UPDATE statements, a few ADDs) or the dump of
// some tables only gave one "not in the .df" line per table and no advice
// (nu-trial8).
const dfMissesTables = "%s: %d of the report's %d tables are not in this .df: give the source's full definitions " +
	"(Data Dictionary: Admin > Dump Data and Definitions > Data Definitions (.df file), ALL tables), " +
	"not an incremental .df or the definitions of some tables"

// utf8NamesOnly is why a table name whose bytes are not UTF-8 (a name
// with accents in an ISO8859-1, 1252 or 850 database, as the report
// prints it) is refused: plan.json and the journal hold names as JSON
// text, which would turn those bytes into U+FFFD, and oedl run would then
// dump and verify a table of another name inside the window.
const utf8NamesOnly = "refused: oedl keeps table names as UTF-8 text (plan.json, the journal) and gives them to proutil from there, so these bytes would reach it changed; rename the tables to ASCII names before the migration"

// namesWithinLimit is why a table name longer than OpenEdge's 32
// characters is refused: no OpenEdge database holds one (the Data
// Dictionary and SQL refuse it), so the report was edited or is not
// proutil's, and a target.df naming it would fail in load_df.p inside the
// window.
const namesWithinLimit = "refused: no OpenEdge table name is longer than 32 characters (Progress docs, \"Name limits\"): " +
	"the report is not the one proutil wrote for this database; give proutil's report unedited"

// unpartitionedOnly is why a partitioned table (table partitioning, 11.4
// on: rows "PUB.stock.Initial(Composite)", "PUB.cust-list.list1") is
// refused: the partition policies and their areas are not in the .df, so
// the target's table would have none, and verify compares the source's
// partitions with tables the target does not partition: the run would fail
// at its very end.
const unpartitionedOnly = "refused: oedl moves unpartitioned tables only (partition policies and their areas are not in the .df, so the target's tables would have none, and the verification compares partitions)"

// singleTenantOnly is why a multi-tenant table is refused. The tenants,
// their partitions' areas and the tenant groups are not in the .df (Data
// Administration defines them), and a binary dump or load moves one
// tenant's partition at a time (-tenant); a plan that merged the tenants'
// rows into one table would place data no target tenant could receive.
const singleTenantOnly = "refused: oedl moves single-tenant databases only (tenants and their areas are not in the .df; each tenant's partition is dumped and loaded on its own)"

func isLOB(typ string) bool {
	return strings.EqualFold(typ, "blob") || strings.EqualFold(typ, "clob")
}

// joinProblems reports every mismatch up to a screenful, so that a user
// fixes them in one go rather than one per run.
func joinProblems(problems []string) error {
	const show = 10
	switch {
	case len(problems) == 0:
		return nil
	case len(problems) > show:
		extra := len(problems) - show
		problems = append(problems[:show:show], fmt.Sprintf("... and %d more", extra))
	}
	return errors.New(strings.Join(problems, "\n"))
}
