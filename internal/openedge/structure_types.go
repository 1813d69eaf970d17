package openedge

import "path/filepath"

// AreaType is the first token of a .st line.
type AreaType byte

const (
	AreaAfterImage  AreaType = 'a'
	AreaBeforeImage AreaType = 'b'
	AreaData        AreaType = 'd'
	AreaTransaction AreaType = 't'
	// AreaEncryption is the Encryption Policy Area of transparent data
	// encryption (10.2B+): `e "Encryption Policy Area":13,32;8 .`. It is
	// laid out like a data area (number, records per block, blocks per
	// cluster, _N.dM extent files) but holds no table.
	AreaEncryption AreaType = 'e'
)

// Well-known area numbers.
const (
	ControlAreaNum   = 1
	PrimaryRecovery  = 3
	SchemaAreaNum    = 6
	FirstUserAreaNum = 7
	SchemaAreaName   = "Schema Area"
)

// Structure is a parsed .st file. Areas keep the order of their first line;
// each area carries its extents in file order.
type Structure struct {
	Areas []*StructArea

	// Source names the file in error messages ("target.st:12: ...").
	Source string

	// mismatches are lines that repeat an area name with a different
	// number, RPB or BPC; ParseStructure records them and Validate reports
	// them, so that a hand-written file shows every problem at once.
	mismatches []stMismatch
}

// StructArea is one storage area (all the lines that share type and name).
// Number, RPB and BPC are 0 when the file does not give them.
type StructArea struct {
	Type    AreaType
	Name    string // "" for b/a/t lines without a name
	Number  int
	RPB     int // records per block
	BPC     int // blocks per cluster: 0/1 = Type I, 8/64/512 = Type II
	Extents []Extent
	Line    int // line of the first extent, for error messages
}

// Extent is one line of an area: a path and, for a fixed extent, its size.
type Extent struct {
	Path   string // bare or from !"...": unquoted here
	Fixed  bool   // "f <KB>"; false = variable
	SizeKB int64  // 0 for a variable extent without a size
	Line   int
}

// FileOf is the extent's file for the database db (DB or DB.db): a
// relative path in a listed structure is beside DB.db, as prostrct list
// names it.
func (e Extent) FileOf(db string) string {
	if filepath.IsAbs(e.Path) {
		return e.Path
	}
	return filepath.Join(filepath.Dir(db), e.Path)
}

// hasAreaInfo reports whether the area type takes a number, records per
// block and blocks per cluster: data areas and the Encryption Policy Area.
func (t AreaType) hasAreaInfo() bool { return t == AreaData || t == AreaEncryption }

// TypeII reports whether the area is a Type II (clustered) area.
func (a *StructArea) TypeII() bool { return a.BPC == 8 || a.BPC == 64 || a.BPC == 512 }

// MarshalText writes the type as its letter ("d"), for readable JSON.
func (t AreaType) MarshalText() ([]byte, error) { return []byte{byte(t)}, nil }
