package plan

import "github.com/oedl/oedl/internal/openedge"

// Plan is what `oedl plan` decides and writes as plan.json; `oedl run` and
// `oedl estimate` read it back. It is self-contained: the target structure,
// where every table goes and why, and the tuned parameters, so that a run
// can be resumed or audited from the work directory alone.
type Plan struct {
	Version int `json:"version"` // PlanVersion

	Source    Source  `json:"source"`
	BlockSize int     `json:"block_size"` // target database block size, bytes
	Machine   Machine `json:"machine"`    // the target machine the parameters were derived for

	// Target is the target database path the extents were laid out for
	// ("" when the plan was made without --target: the .st then names
	// directories relative to where prostrct create runs).
	Target string `json:"target,omitempty"`
	// Policy records the thresholds and layout options the plan applied,
	// so that a reader of plan.json can tell why a table got its class.
	Policy Policy `json:"policy"`
	// Schema, AI: the extents of the Schema Area (metaschema only) and of
	// the after-image areas, for writing target.st from the plan alone.
	Schema []Extent `json:"schema_extents,omitempty"`
	AI     []Extent `json:"ai_extents,omitempty"`
	// Processes are the helper processes to start beside the broker
	// (proapw, probiw, proaiw): target.pf cannot start them.
	Processes []Param `json:"processes,omitempty"`
	// Skipped counts source tables the plan leaves alone: metaschema
	// (_File, ...) and SQL catalog (SYSPROGRESS.*) tables, which every
	// empty database already has.
	Skipped int `json:"skipped_system_tables,omitempty"`

	// LargeFiles: the target needs large files (an extent of 2 GiB or
	// more, from --max-extent above 2GB). Without it every extent stays
	// below 2 GiB, which any release and license takes (docs/decisions.md,
	// "Extents under 2 GiB unless the DBA asks").
	LargeFiles bool `json:"large_files,omitempty"`

	Areas  []Area      `json:"areas"`  // target storage areas, area-number order
	Tables []Placement `json:"tables"` // every table of the source, largest first

	Idxbuild Idxbuild `json:"idxbuild"`
	Startup  []Param  `json:"startup"` // target.pf lines
	BI       BI       `json:"bi"`

	Totals Totals `json:"totals"`
}

// PlanVersion is bumped when plan.json changes incompatibly.
const PlanVersion = 1

// Source describes where the plan's facts came from.
type Source struct {
	Database  string `json:"database"`            // as named in the tabanalys header or --source
	Path      string `json:"path,omitempty"`      // the database's absolute path, with --source
	Tabanalys string `json:"tabanalys,omitempty"` // path of the report the plan read
	DF        string `json:"df,omitempty"`        // path of the source .df, if any
	BlockSize int    `json:"block_size"`          // source block size, from the report
	// IndexSummary tells whether the report had an INDEX BLOCK SUMMARY
	// (dbanalys): without one, index sizes are unknown and read as 0.
	IndexSummary bool `json:"index_summary,omitempty"`
	// LOBSummary tells whether the report had LOB SUMMARY rows (11.6 on):
	// then each table's lob_bytes and the LOB area's size are known.
	LOBSummary bool `json:"lob_summary,omitempty"`
	// Approximate: the report carried (2486), "database in use - reported
	// statistics are approximations" (made while the source was in use):
	// its sizes and counts, and the extents sized from them, are
	// approximations, which placement.md says beside them.
	Approximate bool `json:"approximate,omitempty"`
}

// Machine is the hardware the tuned parameters are derived for.
type Machine struct {
	Cores       int   `json:"cores"`
	MemoryBytes int64 `json:"memory_bytes"`
}

// AreaKind tells what an area holds.
type AreaKind string

const (
	AreaData  AreaKind = "data"
	AreaIndex AreaKind = "index"
	AreaLOB   AreaKind = "lob"
)

// Area is one target storage area.
type Area struct {
	Name    string   `json:"name"`
	Number  int      `json:"number"`
	Kind    AreaKind `json:"kind"`
	RPB     int      `json:"rpb"`
	BPC     int      `json:"bpc"`
	Extents []Extent `json:"extents"`
	Tables  []string `json:"tables"` // owner.table of the objects placed here
	Bytes   int64    `json:"bytes"`  // data (or index) bytes expected in the area
	Reason  string   `json:"reason"`
}

// Extent is one extent of a target area.
type Extent struct {
	Path   string `json:"path"` // directory or file path as written in target.st
	Fixed  bool   `json:"fixed"`
	SizeKB int64  `json:"size_kb,omitempty"`
}

// SizeClass is the placement class of a table.
type SizeClass string

const (
	ClassEmpty  SizeClass = "empty"
	ClassSmall  SizeClass = "small"
	ClassMedium SizeClass = "medium"
	ClassLarge  SizeClass = "large"
)

// Placement is where one table goes and why.
type Placement struct {
	Table      string `json:"table"` // owner.table, e.g. PUB.customer
	Owner      string `json:"owner"`
	Name       string `json:"name"`
	Records    int64  `json:"records"`
	Bytes      int64  `json:"bytes"`
	MeanRecord int64  `json:"mean_record"`
	Indexes    int    `json:"indexes"`     // number of indexes (from the .df or the index summary)
	IndexBytes int64  `json:"index_bytes"` // index bytes in the source, when known
	// WordIndexes is how many of Indexes are WORD indexes (from the .df):
	// they hold a key per word of their field, not one per record, so a
	// rebuild sorts many times the keys the index count says.
	WordIndexes int       `json:"word_indexes,omitempty"`
	LOBBytes    int64     `json:"lob_bytes,omitempty"`
	SourceArea  string    `json:"source_area"`
	Class       SizeClass `json:"class"`
	RPB         int       `json:"rpb"`
	BPC         int       `json:"bpc"`
	DataArea    string    `json:"data_area"`
	IndexArea   string    `json:"index_area"`
	LOBArea     string    `json:"lob_area,omitempty"`
	Reason      string    `json:"reason"`
}

// DumpBytes is what the table's binary dump holds and its load reads: its
// records and its LOBs. PROUTIL DUMP writes a table's BLOB and CLOB values
// into its .bd files with the records (Progress, "Format of a binary dump
// file"), so a table of 16 KB of records and 611 MiB of LOBs dumps and
// loads 611 MiB: priced as its records alone it looked like a tiny table
// (a start-up, batched with the other small ones). Bytes stays the
// records' size: it sizes the data area and what tabanalys counts.
func (t Placement) DumpBytes() int64 { return t.Bytes + t.LOBBytes }

// Idxbuild holds the tuned proutil idxbuild parameters and why.
type Idxbuild struct {
	TB              int    `json:"tb"`
	TM              int    `json:"tm"`
	TMB             int    `json:"tmb"`
	SG              int    `json:"sg"`
	TF              int    `json:"tf"`
	B               int    `json:"b"`
	Threadnum       int    `json:"threadnum"`
	Mergethreads    int    `json:"mergethreads"`
	Datascanthreads int    `json:"datascanthreads"`
	Pfactor         int    `json:"pfactor,omitempty"`
	Reason          string `json:"reason"`
}

// Params are the idxbuild parameters as the utility's flags. oedl run and
// oedl calibrate both build their idxbuild command from them, so that the
// calibration times the rebuild the run will do.
func (p Idxbuild) Params() openedge.IdxbuildParams {
	return openedge.IdxbuildParams{SG: p.SG, TB: p.TB, TM: p.TM, TMB: p.TMB, B: p.B, TF: p.TF,
		Threadnum: p.Threadnum, Mergethreads: p.Mergethreads, Datascanthreads: p.Datascanthreads, Pfactor: p.Pfactor}
}

// Command is the idxbuild command of db with these parameters, as
// target.pf and placement.md print it (oedl run adds its sort directory
// and -rusage).
func (p Idxbuild) Command(db string) []string {
	return openedge.IdxbuildArgs(db, openedge.IdxbuildAll(), p.Params())
}

// Param is one startup parameter line of target.pf.
type Param struct {
	Name   string `json:"name"`  // "-B"
	Value  string `json:"value"` // "262144"; "" for a switch
	Reason string `json:"reason"`
}

// BI holds the before-image settings applied after the load.
type BI struct {
	BlockSizeKB   int      `json:"block_size_kb"`   // truncate bi -biblocksize
	ClusterSizeKB int      `json:"cluster_size_kb"` // truncate bi -bi
	Extents       []Extent `json:"extents,omitempty"`
	Reason        string   `json:"reason,omitempty"`
}

// Policy is the set of rules a plan was made with.
type Policy struct {
	LargeBytes     int64    `json:"large_bytes"`      // a table this large gets its own area
	TopN           int      `json:"top_n,omitempty"`  // and so do the N largest tables
	MediumBytes    int64    `json:"medium_bytes"`     // from here up, medium pools (BPC 64)
	HeadroomPct    int      `json:"headroom_pct"`     // growth added to fixed extents
	MaxExtentBytes int64    `json:"max_extent_bytes"` // largest fixed extent
	BlockOverhead  int      `json:"block_overhead"`   // H in RPB = (B - H) / (mean + 2)
	DataDirs       []string `json:"data_dirs"`
	BIDir          string   `json:"bi_dir"`
	AIDirs         []string `json:"ai_dirs,omitempty"`
}

// Totals sums the plan.
type Totals struct {
	Tables     int   `json:"tables"`
	Records    int64 `json:"records"`
	Bytes      int64 `json:"bytes"`
	IndexBytes int64 `json:"index_bytes"`
	DataAreas  int   `json:"data_areas"`
	IndexAreas int   `json:"index_areas"`
	LOBAreas   int   `json:"lob_areas"`
	// FixedBytes is the disk the fixed extents take (data, index and BI)
	// as soon as prostrct create runs: the space a preflight must find.
	FixedBytes int64 `json:"fixed_bytes"`
}
