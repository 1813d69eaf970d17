package openedge

import (
	"bytes"
	"fmt"
	"strings"
)

// DF is a parsed .df file: every logical line kept verbatim, grouped into
// statements, plus typed views of what oedl reads (tables with their fields
// and indexes, sequences, the codepage). Only the Set* methods change it,
// and they change only the bytes of the value they set; WriteTo writes the
// rest back as it was read and recomputes the trailer.
type DF struct {
	name    string
	head    []byte // lines before the first statement (comments, blanks)
	stmts   []*dfStmt
	trailer *dfTrailer // nil when the file has none

	tables        []*DFTable
	tableByKey    map[string]*DFTable
	seqs          []*DFSequence
	orphanFields  []*DFField
	orphanIndexes []*DFIndex
	changes       []*DFChange
	steps         []DFStep // every typed statement, in file order

	// The statements behind the typed views, for Set*.
	tableStmt map[*DFTable]*dfStmt
	fieldStmt map[*DFField]*dfStmt
	indexStmt map[*DFIndex]*dfStmt
	seqStmt   map[*DFSequence]*dfStmt
	chgStmt   map[*DFChange]*dfStmt
}

// dfKind says what a statement is.
type dfKind int

const (
	dfOther dfKind = iota // ADD DATABASE / CONSTRAINT, UPDATE, RENAME, DROP, ...: verbatim only
	dfAddTable
	dfAddField
	dfAddIndex
	dfAddSequence
)

// dfStmt is a statement: its header line, then its option lines (and any
// comment lines among them) in file order, then the lines up to the next
// statement that belong to none (blank lines, comments, annotations).
type dfStmt struct {
	kind    dfKind
	headLen int // tokens of the header line that are the statement head
	lines   []dfLine
	tail    []byte
}

// Name is the name the file was parsed under, as used in error messages.
func (d *DF) Name() string { return d.name }

// Tables returns the tables added by this file, in file order, each with
// the fields and indexes added for it anywhere in the file.
func (d *DF) Tables() []*DFTable { return d.tables }

// Table returns the table called name (case-insensitive, as ABL compares
// names), or nil when this file does not add it.
func (d *DF) Table(name string) *DFTable { return d.tableByKey[foldName(name)] }

// Sequences returns the sequences added by this file, in file order.
func (d *DF) Sequences() []*DFSequence { return d.seqs }

// OrphanFields returns the ADD FIELD statements for tables this file does
// not add (an incremental .df); they are written back untouched.
func (d *DF) OrphanFields() []*DFField { return d.orphanFields }

// OrphanIndexes returns the ADD INDEX statements for tables this file does
// not add.
func (d *DF) OrphanIndexes() []*DFIndex { return d.orphanIndexes }

// Codepage returns the cpstream= value of the trailer ("UNDEFINED" when the
// dump had none), or "" when the file has no trailer.
func (d *DF) Codepage() string {
	if d.trailer == nil {
		return ""
	}
	return d.trailer.codepage()
}

// AreaNames returns the distinct storage areas the file names (table AREA,
// index AREA, LOB-AREA), in order of first use: the data areas a target
// structure needs besides the Schema Area (openedge-formats.md §6.4).
// Areas are compared case-insensitively, as OpenEdge does.
func (d *DF) AreaNames() []string {
	var names []string
	seen := map[string]bool{}
	add := func(a string) {
		if k := foldName(a); a != "" && !seen[k] {
			seen[k] = true
			names = append(names, a)
		}
	}
	for _, t := range d.tables {
		add(t.Area)
		for _, f := range t.Fields {
			add(f.LobArea)
		}
		for _, i := range t.Indexes {
			add(i.Area)
		}
	}
	return names
}

// Field returns the field called name (case-insensitive), or nil.
func (t *DFTable) Field(name string) *DFField {
	for _, f := range t.Fields {
		if strings.EqualFold(f.Name, name) {
			return f
		}
	}
	return nil
}

// Index returns the index called name (case-insensitive), or nil.
func (t *DFTable) Index(name string) *DFIndex {
	for _, i := range t.Indexes {
		if strings.EqualFold(i.Name, name) {
			return i
		}
	}
	return nil
}

// IsLOB reports whether the field is a blob or clob, stored in a LOB-AREA.
func (f *DFField) IsLOB() bool {
	return strings.EqualFold(f.Type, "blob") || strings.EqualFold(f.Type, "clob")
}

// foldName is the key under which names are compared.
func foldName(s string) string { return strings.ToLower(s) }

// Clone returns an independent copy of d, edits included, so that a caller
// can rewrite areas without touching the DF it was given. It is the DF
// parsed again from what d writes, which by construction parses (the
// FuzzParseDF property); a failure would be a bug in this package.
func (d *DF) Clone() *DF {
	var b bytes.Buffer
	if _, err := d.WriteTo(&b); err != nil {
		panic(fmt.Sprintf("openedge: DF.Clone: %v", err))
	}
	c, err := parseDF(b.Bytes(), d.name)
	if err != nil {
		panic(fmt.Sprintf("openedge: DF.Clone: %s does not parse back: %v", d.name, err))
	}
	return c
}
