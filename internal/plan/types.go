package plan

// Plan is what `oedl plan` decides and writes as plan.json; `oedl run` and
// `oedl estimate` read it back. It is self-contained: the target structure,
// where every table goes and why, and the tuned parameters, so that a run
// can be resumed or audited from the work directory alone.
type Plan struct {
	Version int `json:"version"` // PlanVersion

	Source    Source  `json:"source"`
	BlockSize int     `json:"block_size"` // target database block size, bytes
	Machine   Machine `json:"machine"`    // the target machine the parameters were derived for

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
	Tabanalys string `json:"tabanalys,omitempty"` // path of the report the plan read
	DF        string `json:"df,omitempty"`        // path of the source .df, if any
	BlockSize int    `json:"block_size"`          // source block size, from the report
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
	Table      string    `json:"table"` // owner.table, e.g. PUB.customer
	Owner      string    `json:"owner"`
	Name       string    `json:"name"`
	Records    int64     `json:"records"`
	Bytes      int64     `json:"bytes"`
	MeanRecord int64     `json:"mean_record"`
	Indexes    int       `json:"indexes"`     // number of indexes (from the .df or the index summary)
	IndexBytes int64     `json:"index_bytes"` // index bytes in the source, when known
	LOBBytes   int64     `json:"lob_bytes,omitempty"`
	SourceArea string    `json:"source_area"`
	Class      SizeClass `json:"class"`
	RPB        int       `json:"rpb"`
	BPC        int       `json:"bpc"`
	DataArea   string    `json:"data_area"`
	IndexArea  string    `json:"index_area"`
	LOBArea    string    `json:"lob_area,omitempty"`
	Reason     string    `json:"reason"`
}

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

// Param is one startup parameter line of target.pf.
type Param struct {
	Name   string `json:"name"`  // "-B"
	Value  string `json:"value"` // "262144"; "" for a switch
	Reason string `json:"reason"`
}

// BI holds the before-image settings applied after the load.
type BI struct {
	BlockSizeKB   int `json:"block_size_kb"`   // truncate bi -biblocksize
	ClusterSizeKB int `json:"cluster_size_kb"` // truncate bi -bi
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
}
