package gen

import (
	"fmt"
	"iter"
	"slices"

	"github.com/oedl/oedl/internal/openedge"
)

// Row is one record, values in field order:
//
//	int64       integer, int64, recid
//	string      character, clob
//	float64     decimal
//	bool        logical
//	time.Time   date (midnight UTC), datetime (UTC)
//	[]byte      blob, raw
//	[]any       a field with an EXTENT, one element per extent entry
//	nil         the unknown value (?)
//
// A Row is freshly allocated for every record: the consumer may keep it.
type Row []any

// Sequence is one database sequence and the value it had when the "before"
// database was dumped.
type Sequence struct {
	Name    string
	Current int64
}

// Table is one generated table.
type Table struct {
	Owner, Name, Area string // Area: the "before" area of the records
	Number            int    // _File-Number, 1.., unique
	// Def holds the fields (Type as in a .df) and indexes; the first index
	// has Primary=true and is unique.
	Def      *openedge.DFTable
	Records  int64
	MeanSize int // mean encoded record size aimed at, in bytes (see EncodedSize)
	// Rows yields the Records rows, deterministic by seed; every call starts
	// again from the first row. Rows come roughly in primary-key order with
	// local disorder, as records created over time are stored.
	Rows iter.Seq[Row]

	lastKey int64 // the highest value of the first primary-key part
}

// QualifiedName is owner.name, as tabanalys prints it.
func (t *Table) QualifiedName() string { return t.Owner + "." + t.Name }

// Database is a generated database: its "before" structure, its schema and
// the generators of its rows.
type Database struct {
	Name      string
	BlockSize int
	Codepage  string
	Structure *openedge.Structure // the "before" layout (.st)
	STText    string              // the .st text Structure was parsed from
	DF        *openedge.DF        // the schema as a .df; every Table.Def is one of its tables
	Sequences []Sequence
	Tables    []*Table
	Security  openedge.Security // users, SQL grants and views (security.go)
}

// Table finds a table by name, with or without owner, case-insensitively.
func (d *Database) Table(name string) *Table {
	for _, t := range d.Tables {
		if equalFoldName(t, name) {
			return t
		}
	}
	return nil
}

// Bytes is the sum over tables of Records × MeanSize: what the database is
// scaled to.
func (d *Database) Bytes() int64 {
	var n int64
	for _, t := range d.Tables {
		n += t.Records * int64(t.MeanSize)
	}
	return n
}

type profile struct {
	name  string
	build func(scale int64, seed uint64) (*Database, error)
}

var profiles = []profile{
	{"erp", buildERP},
	{"seed003", buildSeed003},
	{"sports", buildSports},
	{"wide", buildWide},
}

// Profiles lists the profile names Generate accepts.
func Profiles() []string {
	names := make([]string, len(profiles))
	for i, p := range profiles {
		names[i] = p.name
	}
	slices.Sort(names)
	return names
}

// Generate builds the database of a profile scaled so that its records add
// up to about scale bytes (encoded as EncodedSize counts them). The schema,
// the structure and the record counts depend on profile and scale only; the
// values of the rows depend on seed too, so two seeds give two databases
// with the same shape and different data.
func Generate(profile string, scale int64, seed int64) (*Database, error) {
	if scale < 0 {
		return nil, fmt.Errorf("gen: scale %d is negative", scale)
	}
	for _, p := range profiles {
		if p.name == profile {
			return p.build(scale, uint64(seed))
		}
	}
	return nil, fmt.Errorf("gen: unknown profile %q (profiles: %v)", profile, Profiles())
}
