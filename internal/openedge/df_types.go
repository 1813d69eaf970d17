package openedge

// The .df model. A DF keeps every statement and every option line verbatim
// so that an unmodified file writes back byte for byte; the typed views
// below (Tables, Sequences) are what oedl reads and the Set* methods are the
// only rewrites it makes (storage areas), everything else stays untouched.

// DFTable is the typed view of an ADD TABLE statement and its fields and
// indexes (which may appear anywhere later in the file).
type DFTable struct {
	Name    string
	Area    string // "" when the statement has no AREA
	Fields  []*DFField
	Indexes []*DFIndex
	Line    int

	DumpName    string // DUMP-NAME: base name of the .d / .bd files
	Description string
	// MultiTenant is MULTITENANT yes: each tenant's rows are in its own
	// partition, whose area the tenant's definition (not the .df) gives;
	// with NO-DEFAULT-AREA the table, its indexes and LOBs have no AREA.
	MultiTenant bool `json:",omitempty"`
	// Options, when set, are the statement's option lines as a loader kept
	// them (DF.OptionLines): NewDF writes them instead of the options it
	// would generate. ParseDF leaves it nil.
	Options []string `json:",omitempty"`
}

// DFField is the typed view of an ADD FIELD statement.
type DFField struct {
	Name    string
	Table   string
	Type    string // character, integer, int64, decimal, date, datetime, datetime-tz, logical, blob, clob, raw, recid
	Extent  int
	LobArea string // LOB-AREA, for blob/clob fields
	Order   int
	Line    int

	// Display attributes, as written ("?" for INITIAL ?). NewDF fills in the
	// Data Dictionary defaults of the type for those left empty.
	Format      string
	Initial     string
	Label       string
	Description string
	Decimals    int
	Mandatory   bool
	// Options, when set, are the statement's option lines as a loader kept
	// them (DF.OptionLines): NewDF writes them instead of the options it
	// would generate. ParseDF leaves it nil.
	Options []string `json:",omitempty"`
}

// DFIndex is the typed view of an ADD INDEX statement.
type DFIndex struct {
	Name     string
	Table    string
	Area     string
	Unique   bool
	Primary  bool
	Word     bool
	Inactive bool
	Fields   []DFIndexField
	Line     int
	// Options, when set, are the index's other option lines as a loader
	// kept them (DESCRIPTION, ENCRYPTION...): NewDF writes them after the
	// AREA and flags it generates and before the INDEX-FIELD lines.
	Options []string `json:",omitempty"`
}

// DFIndexField is one INDEX-FIELD line.
type DFIndexField struct {
	Name        string
	Descending  bool
	Abbreviated bool
}

// DFSequence is the typed view of an ADD SEQUENCE statement.
type DFSequence struct {
	Name      string
	Initial   int64
	Increment int64
	Min       *int64 // nil when absent or "?"
	Max       *int64
	Cycle     bool
	Line      int
	// Options, when set, are the statement's option lines as a loader kept
	// them (DF.OptionLines): NewDF writes them instead of the options it
	// would generate. ParseDF leaves it nil.
	Options []string `json:",omitempty"`
}

// MaxNameLen is the longest name of a table, field or index, in
// characters: "1 to 32 characters" (Progress docs, OpenEdge 12.2 "Name
// limits"; the SQL identifiers' limit is the same).
const MaxNameLen = 32
