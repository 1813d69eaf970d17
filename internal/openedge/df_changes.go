package openedge

import (
	"fmt"
	"strings"
)

// DFChange is the typed view of a statement of an incremental .df that
// changes what the database already holds, as the Data Dictionary writes
// them (prodict/dump/_dmpincr.p):
//
//	RENAME TABLE "old" TO "new"            DROP TABLE "t"
//	RENAME FIELD "old" OF "t" TO "new"     DROP FIELD "f" OF "t"
//	RENAME INDEX "old" TO "new" ON "t"     DROP INDEX "i" ON "t"
//	UPDATE TABLE "t" / UPDATE FIELD "f" OF "t" [AS type] + options
//	UPDATE PRIMARY INDEX "i" ON "t"        UPDATE [INACTIVE] INDEX "i" OF "t"
//	RENAME SEQUENCE "a" TO "b"             DROP SEQUENCE "s" / UPDATE SEQUENCE "s"
//
// Synonyms are folded (MODIFY, ALTER and CHANGE are UPDATE, DELETE and
// REMOVE are DROP, FILE is TABLE, COLUMN is FIELD, KEY is INDEX).
type DFChange struct {
	Verb     string // UPDATE, RENAME or DROP
	Object   string // TABLE, FIELD, INDEX, SEQUENCE, DATABASE or CONSTRAINT
	Name     string
	Table    string // OF / ON "table" of a field, index or constraint
	NewName  string // RENAME ... TO "new"
	Type     string // UPDATE FIELD ... AS type (int to int64 only, in the real loader)
	Primary  bool   // UPDATE PRIMARY INDEX
	Inactive bool   // UPDATE INACTIVE INDEX
	// Options are the statement's options, keyword (upper case) to first
	// argument ("" for a flag), as written: what UPDATE TABLE / FIELD set.
	Options map[string]string
	Line    int
}

// Changes returns the UPDATE, RENAME and DROP statements of the file, in
// file order. A full .df (a dump of the whole schema) has none.
func (d *DF) Changes() []*DFChange { return d.changes }

// DFStep is one typed statement, in file order: exactly one field is set.
// An incremental .df must be applied in this order (a RENAME TABLE comes
// before the ADD FIELD OF the new name).
type DFStep struct {
	Table    *DFTable
	Field    *DFField
	Index    *DFIndex
	Sequence *DFSequence
	Change   *DFChange
}

// Steps returns the typed statements in file order.
func (d *DF) Steps() []DFStep { return d.steps }

// change types an UPDATE, RENAME or DROP statement.
func (p *dfParser) change(st *dfStmt, tk *stmtToks, h dfHead, verb string) error {
	obj, at := dfObject(h, 1)
	if obj == "" {
		return nil // kept verbatim, as any statement oedl does not know
	}
	c := &DFChange{Verb: verb, Object: obj, Line: h.line,
		Primary: indexFlagged(h, 1, at, "PRIMARY"), Inactive: indexFlagged(h, 1, at, "INACTIVE")}
	var ok bool
	if c.Name, ok = h.name(at); !ok {
		return lineErrorf(h.line, "%s %s without a name", verb, obj)
	}
	i := at + 1
head:
	for ; i+1 < len(h.toks); i += 2 {
		v, _ := h.name(i + 1)
		switch {
		case h.is(i, "OF"), h.is(i, "ON"):
			c.Table = v
		case h.is(i, "TO"):
			c.NewName = v
		case h.is(i, "AS"):
			c.Type = strings.ToLower(v)
		default:
			break head
		}
	}
	switch {
	case (obj == "FIELD" || obj == "INDEX" || obj == "CONSTRAINT") && c.Table == "":
		return lineErrorf(h.line, "%s %s %q without OF/ON \"table\"", verb, obj, c.Name)
	case verb == "RENAME" && c.NewName == "":
		return lineErrorf(h.line, "RENAME %s %q without TO \"new name\"", obj, c.Name)
	}
	st.headLen = i
	p.opts = st.options(tk, i, p.opts[:0])
	for _, o := range p.opts {
		if o.kw == "" {
			continue
		}
		if c.Options == nil {
			c.Options = map[string]string{}
		}
		c.Options[o.kw], _ = o.arg(0)
	}
	p.d.changes = append(p.d.changes, c)
	p.d.chgStmt[c] = st
	p.d.steps = append(p.d.steps, DFStep{Change: c})
	return nil
}

// head is the statement as the messages name it: UPDATE FIELD "f" OF "t".
func (c *DFChange) head() string {
	h := fmt.Sprintf("%s %s %q", c.Verb, c.Object, c.Name)
	if c.Table != "" {
		of := "OF"
		if c.Object == "INDEX" || c.Object == "CONSTRAINT" {
			of = "ON"
		}
		h += fmt.Sprintf(" %s %q", of, c.Table)
	}
	return h
}
