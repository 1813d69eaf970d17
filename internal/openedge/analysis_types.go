package openedge

import "strings"

// Analysis is a parsed tabanalys or dbanalys report (or the -csoutput files).
// Only what oedl needs is kept: the record block summary per table, the index
// block summary per index and the per-area subtotals.
type Analysis struct {
	Database  string // as printed after "Database:", or the -csoutput "DB name"
	BlockSize int    // "Blocksize:"; 0 when the report has no header
	Date      string // "Date:" verbatim, or the -csoutput "Time Stamp"
	Options   string // "Options:" verbatim, e.g. "tabanalys"
	Release   string // banner line "OpenEdge Release ..." verbatim, if any
	DBUID     string // "DBUID" column of the -csoutput files; "" from the report

	RecSpaceSearchDepth int // "RecSpaceSearchDepth:" (11.x+); 0 = not printed

	// InUse: the report carries (2486), "database in use - reported
	// statistics are approximations": made online, its counts prove nothing.
	InUse bool `json:",omitempty"`

	// The closing lines of the two summaries: "N RM block(s) found in the
	// database." / "P% of the RM block space is used." and the index twins.
	RMBlocks     int64
	RMUsedPct    float64
	IndexBlocks  int64
	IndexUsedPct float64

	Areas   []AreaSummary // in report order
	Tables  []TableStat   // in report order
	Indexes []IndexStat   // in report order
	// LOBs are the rows of the LOB SUMMARY sections (11.6 on), in report
	// order; nil for older releases and the -csoutput files.
	LOBs []LOBStat `json:",omitempty"`

	// DB is the rest of a dbanalys (chains, block analysis, database
	// summary, closing line), which WriteAnalysis prints when set; the
	// parser does not fill it.
	DB *DBAnalysis `json:",omitempty"`
}

// AreaSummary is the "Summary for AREA "X": N / Subtotals:" of one area.
type AreaSummary struct {
	Name    string
	Number  int
	Records int64
	Bytes   int64
}

// TableStat is one row of a RECORD BLOCK SUMMARY.
type TableStat struct {
	Area      string
	AreaNum   int
	Owner     string // "PUB"
	Name      string // table name without owner
	Partition string // optional ".partition" suffix, e.g. "Initial(Composite)"
	// Tenancy is the text after "RECORD BLOCK SUMMARY FOR " of a tenant or
	// group heading (message 16668), e.g. "TENANT t1: 2", or the "Tenancy"
	// column of -csoutput verbatim; "" for the shared tables, which is every
	// table of a database without multi-tenancy.
	Tenancy string
	Number  int // "Table #" of the -csoutput files; 0 from the report, which has none
	// Line is the line of the file that names the table (of a wrapped row,
	// the name's), for messages; 0 when not read from a file. Not part of
	// what the report says, so left out of its JSON.
	Line int `json:"-"`

	Records       int64
	Bytes         int64 // the Size column converted to bytes (powers of 1024)
	MinRecord     int64
	MaxRecord     int64
	MeanRecord    int64
	Fragments     int64
	FragFactor    float64
	ScatterFactor float64
}

// QualifiedName is owner.table (owner defaults to PUB).
func (t TableStat) QualifiedName() string {
	owner := t.Owner
	if owner == "" {
		owner = "PUB"
	}
	return owner + "." + t.Name
}

// System reports whether the row is a table every database has of its
// own: the meta-schema (PUB._File, PUB._Area, ... which the reports list
// too) or the SQL catalog (SYSPROGRESS.*). A dump/load never moves them.
func (t TableStat) System() bool {
	return strings.HasPrefix(t.Name, "_") || strings.EqualFold(t.Owner, "SYSPROGRESS")
}

// IndexStat is one row of an INDEX BLOCK SUMMARY.
type IndexStat struct {
	Area     string
	AreaNum  int
	Owner    string
	Table    string
	TableNum int    // "Table #" of the -csoutput files; 0 from the report
	Name     string // without the "(inactive)" and ":partition" suffixes
	// Partition is the ":N" suffix of a partitioned or local index, without
	// the colon ("0" for "BinNum:0"); "" when the report prints none.
	Partition string
	Number    int // may be negative for meta-schema indexes
	Fields    int
	Levels    int
	Blocks    int64
	Bytes     int64
	Util      float64 // % Util
	Factor    float64
	Inactive  bool // "(inactive)" suffix
}
