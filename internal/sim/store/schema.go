package store

import (
	"encoding/binary"
	"hash/crc32"
	"strings"

	"github.com/oedl/oedl/internal/openedge"
)

// Table is one table of the schema (_File).
type Table struct {
	Number  int      `json:"number"`
	Owner   string   `json:"owner"` // "PUB"
	Name    string   `json:"name"`
	Area    int      `json:"area"` // area number holding its records
	CRC     uint32   `json:"crc"`  // schema CRC, compared by the binary load
	Fields  []Field  `json:"fields"`
	Indexes []*Index `json:"indexes"`
	// Options are the option lines of the .df statement that defined it,
	// as load_df.p read them (openedge.DF.OptionLines, with the UPDATE
	// statements since merged in), for dump_df.p to write back; nil for an
	// object made otherwise (oesim gen), written with the Data
	// Dictionary's defaults.
	Options []string `json:"options,omitempty"`
}

// Field is one field (_Field); records hold them in this order.
type Field struct {
	Name    string   `json:"name"`
	Type    string   `json:"type"`
	Extent  int      `json:"extent,omitempty"`
	Order   int      `json:"order"`
	LobArea int      `json:"lobArea,omitempty"`
	Options []string `json:"options,omitempty"` // as Table.Options
}

// Index is one index (_Index). Active is false after a load without
// "build indexes" until idxbuild rebuilds it.
type Index struct {
	Number  int          `json:"number"`
	Name    string       `json:"name"`
	Area    int          `json:"area"`
	Unique  bool         `json:"unique,omitempty"`
	Primary bool         `json:"primary,omitempty"`
	Word    bool         `json:"word,omitempty"`
	Active  bool         `json:"active"`
	Fields  []IndexField `json:"fields"`
	Options []string     `json:"options,omitempty"` // as Table.Options
}

// IndexField is one component of an index; Pos is the field's position in
// the record. Abbreviated (the last character component of an index, for
// abbreviated FIND) is kept only to be written back by dump_df.p: oesim's
// key order does not depend on it.
type IndexField struct {
	Name        string `json:"name"`
	Pos         int    `json:"pos"`
	Descending  bool   `json:"desc,omitempty"`
	Abbreviated bool   `json:"abbr,omitempty"`
}

// Sequence is one sequence with its current value.
type Sequence struct {
	Name      string   `json:"name"`
	Initial   int64    `json:"initial"`
	Increment int64    `json:"increment"`
	Min       *int64   `json:"min,omitempty"`
	Max       *int64   `json:"max,omitempty"`
	Cycle     bool     `json:"cycle,omitempty"`
	Current   int64    `json:"current"`
	Options   []string `json:"options,omitempty"` // as Table.Options
}

// QualifiedName is owner.name.
func (t *Table) QualifiedName() string { return t.Owner + "." + t.Name }

// DumpFileBase is the .bd base name: table for PUB, owner_table otherwise,
// never a path out of the dump directory (openedge.DumpFileBase).
func (t *Table) DumpFileBase() string { return openedge.DumpFileBase(t.Owner, t.Name) }

// PrimaryIndex is the primary index, else the first non-word index, else nil.
func (t *Table) PrimaryIndex() *Index {
	for _, ix := range t.Indexes {
		if ix.Primary {
			return ix
		}
	}
	for _, ix := range t.Indexes {
		if !ix.Word {
			return ix
		}
	}
	return nil
}

// IndexByNumber finds one of the table's indexes.
func (t *Table) IndexByNumber(n int) *Index {
	for _, ix := range t.Indexes {
		if ix.Number == n {
			return ix
		}
	}
	return nil
}

// FieldPos is the position of a field (case-insensitive), or -1.
func (t *Table) FieldPos(name string) int {
	for i, f := range t.Fields {
		if strings.EqualFold(f.Name, name) {
			return i
		}
	}
	return -1
}

// ComputeCRC is the schema CRC of a table: CRC-32C over its name, its fields
// (name, type, extent, order) and its indexes (name, flags, components),
// all case-folded. Storage areas are left out, exactly so that a table
// moved to another area keeps its CRC and its dump still loads.
func (t *Table) ComputeCRC() uint32 {
	var b []byte
	put := func(s string) { b = append(append(b, strings.ToLower(s)...), 0) }
	putN := func(n int) { b = binary.AppendVarint(b, int64(n)) }
	put(t.Name)
	for _, f := range t.Fields {
		put(f.Name)
		put(f.Type)
		putN(f.Extent)
		putN(f.Order)
	}
	for _, ix := range t.Indexes {
		put(ix.Name)
		flags := 0
		if ix.Unique {
			flags |= 1
		}
		if ix.Primary {
			flags |= 2
		}
		if ix.Word {
			flags |= 4
		}
		putN(flags)
		for _, c := range ix.Fields {
			put(c.Name)
			if c.Descending {
				putN(1)
			} else {
				putN(0)
			}
		}
	}
	return crc32.Checksum(b, castagnoli)
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Checksum is the CRC-32C used for records and headers.
func Checksum(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// TableFromDF builds a schema table from a .df table. areaOf maps an area
// name to its number (the caller decides what an unknown area means).
// Numbers are assigned by the caller.
func TableFromDF(d *openedge.DFTable, areaOf func(name string) (int, error)) (*Table, error) {
	t := &Table{Owner: "PUB", Name: d.Name}
	var err error
	if t.Area, err = areaOf(d.Area); err != nil {
		return nil, err
	}
	for _, f := range d.Fields {
		fld := Field{Name: f.Name, Type: strings.ToLower(f.Type), Extent: f.Extent, Order: f.Order}
		if f.LobArea != "" {
			if fld.LobArea, err = areaOf(f.LobArea); err != nil {
				return nil, err
			}
		}
		t.Fields = append(t.Fields, fld)
	}
	for _, di := range d.Indexes {
		ix := &Index{Name: di.Name, Unique: di.Unique, Primary: di.Primary, Word: di.Word, Active: !di.Inactive}
		if ix.Area, err = areaOf(di.Area); err != nil {
			return nil, err
		}
		for _, c := range di.Fields {
			pos := t.FieldPos(c.Name)
			if pos < 0 {
				return nil, &SchemaError{Table: d.Name, Msg: "index " + di.Name + " names unknown field " + c.Name}
			}
			ix.Fields = append(ix.Fields, IndexField{Name: t.Fields[pos].Name, Pos: pos, Descending: c.Descending,
				Abbreviated: c.Abbreviated})
		}
		t.Indexes = append(t.Indexes, ix)
	}
	t.CRC = t.ComputeCRC()
	return t, nil
}

// SchemaError is a schema inconsistency in a .df being loaded.
type SchemaError struct{ Table, Msg string }

func (e *SchemaError) Error() string { return "table " + e.Table + ": " + e.Msg }

// ToDF is the inverse of TableFromDF, for dump_df.p. areaName maps an area
// number back to its name.
func (t *Table) ToDF(areaName func(int) string) *openedge.DFTable {
	d := &openedge.DFTable{Name: t.Name, Area: areaName(t.Area), Options: t.Options}
	// A multi-tenant table with NO-DEFAULT-AREA has no area in the .df,
	// nor have its indexes and LOBs: its tenants' partitions have them.
	noArea := hasOption(t.Options, "NO-DEFAULT-AREA")
	if t.Options != nil && !noArea {
		// A table moved by tablemove is written in its new area.
		d.Options = withOption(t.Options, "AREA", d.Area)
	}
	for _, f := range t.Fields {
		df := &openedge.DFField{Name: f.Name, Table: t.Name, Type: f.Type, Extent: f.Extent, Order: f.Order,
			Options: f.Options}
		if f.LobArea != 0 {
			df.LobArea = areaName(f.LobArea)
			if f.Options != nil && !noArea {
				df.Options = withOption(f.Options, "LOB-AREA", df.LobArea)
			}
		}
		d.Fields = append(d.Fields, df)
	}
	for _, ix := range t.Indexes {
		// INACTIVE is written as the Data Dictionary writes it for an index
		// not yet rebuilt (after a binary load), so that a .df dumped then
		// loads into a database with the same index state.
		di := &openedge.DFIndex{Name: ix.Name, Table: t.Name, Area: areaName(ix.Area), Unique: ix.Unique,
			Primary: ix.Primary, Word: ix.Word, Inactive: !ix.Active, Options: unmanagedIndexOptions(ix.Options)}
		for _, c := range ix.Fields {
			di.Fields = append(di.Fields, openedge.DFIndexField{Name: c.Name, Descending: c.Descending, Abbreviated: c.Abbreviated})
		}
		if noArea {
			di.Area = ""
		}
		d.Indexes = append(d.Indexes, di)
	}
	return d
}
