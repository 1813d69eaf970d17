package openedge

import "fmt"

// The only rewrites oedl makes to a .df are storage areas: the target
// database gets a new area layout, the definitions stay those of the
// source. Each Set* replaces the quoted value of one option in place, or
// inserts a new option line when the statement has none, and touches no
// other byte.

// SetTableArea sets the AREA of table. A table without AREA gets the line
// `  AREA "area"` right after its ADD TABLE line.
func (d *DF) SetTableArea(table, area string) error {
	t, err := d.mustTable(table)
	if err != nil {
		return err
	}
	if err := d.tableStmt[t].setOption("AREA", area, ""); err != nil {
		return d.editError(err)
	}
	t.Area = area
	return nil
}

// SetIndexArea sets the AREA of index on table. An index without AREA gets
// `  AREA "area"` right after its ADD INDEX line.
func (d *DF) SetIndexArea(table, index, area string) error {
	t, err := d.mustTable(table)
	if err != nil {
		return err
	}
	ix := t.Index(index)
	if ix == nil {
		return fmt.Errorf("%s:%d: table %q has no index %q", d.name, t.Line, t.Name, index)
	}
	if err := d.indexStmt[ix].setOption("AREA", area, ""); err != nil {
		return d.editError(err)
	}
	ix.Area = area
	return nil
}

// SetLobArea sets the LOB-AREA of the blob or clob field of table. A field
// without LOB-AREA gets `  LOB-AREA "area"` after its POSITION line (where
// the Data Dictionary writes it), or after the ADD FIELD line.
func (d *DF) SetLobArea(table, field, area string) error {
	t, err := d.mustTable(table)
	if err != nil {
		return err
	}
	f := t.Field(field)
	if f == nil {
		return fmt.Errorf("%s:%d: table %q has no field %q", d.name, t.Line, t.Name, field)
	}
	if !f.IsLOB() {
		return fmt.Errorf("%s:%d: field %q of table %q is %s, not a blob or clob: it has no LOB-AREA", d.name, f.Line, f.Name, t.Name, f.Type)
	}
	if err := d.fieldStmt[f].setOption("LOB-AREA", area, "POSITION"); err != nil {
		return d.editError(err)
	}
	f.LobArea = area
	return nil
}

func (d *DF) mustTable(name string) (*DFTable, error) {
	if t := d.Table(name); t != nil {
		return t, nil
	}
	return nil, fmt.Errorf("%s: no ADD TABLE %q in this file", d.name, name)
}

func (d *DF) editError(err error) error {
	if le, ok := err.(*dfLineError); ok {
		return fmt.Errorf("%s:%d: %s", d.name, le.line, le.msg)
	}
	return fmt.Errorf("%s: %w", d.name, err)
}

// setOption replaces the first argument of every kw option of the
// statement with the quoted value. When there is none it inserts an option
// line after the line of the option named after ("" or absent: after the
// header), with the usual two-space indent and the header's line end.
func (st *dfStmt) setOption(kw, value, after string) error {
	tk, err := st.lex()
	if err != nil {
		return err
	}
	quoted := dfQuote(value)
	type at struct {
		line int
		tok  dfTok
	}
	var targets []at
	insertAt := 0
	for _, o := range st.options(tk, st.headLen, nil) {
		switch {
		case o.kw == kw && len(o.toks) > 0:
			targets = append(targets, at{o.line, o.toks[0]})
		case after != "" && o.kw == after:
			insertAt = o.line
		}
	}
	if len(targets) > 0 {
		// Right to left: a replacement changes the offsets of what follows
		// it on its line, and a line may hold the option twice.
		for i := len(targets) - 1; i >= 0; i-- {
			st.replaceToken(targets[i].line, targets[i].tok, quoted)
		}
		return nil
	}
	ref := &st.lines[insertAt]
	end := eol(ref.raw)
	if end == "" { // the last line of a file without a final line end
		ref.raw = append(ref.raw[:len(ref.raw):len(ref.raw)], '\n')
	}
	l := dfLine{raw: []byte("  " + kw + " " + quoted + end), line: ref.line}
	st.lines = append(st.lines[:insertAt+1], append([]dfLine{l}, st.lines[insertAt+1:]...)...)
	return nil
}

// replaceToken rewrites one token of line li into a new buffer (the line
// may share the bytes read); the other bytes of the line are copied as
// they were. Replacing a whole token by a quoted string keeps the line one
// logical line, whatever the string holds. A token the lexer split from a
// quoted neighbour with no blank between (`AREA 0""`: the word 0, then the
// string "") gets a blank on that side: the quoted text written against
// the neighbour's quote would read as one string with an escaped quote
// (`"0"""` is the string 0").
func (st *dfStmt) replaceToken(li int, t dfTok, text string) {
	old := st.lines[li]
	raw := make([]byte, 0, len(old.raw)-(t.end-t.off)+len(text)+2)
	raw = append(raw, old.raw[:t.off]...)
	if t.off > 0 && old.raw[t.off-1] == '"' {
		raw = append(raw, ' ')
	}
	raw = append(raw, text...)
	if t.end < len(old.raw) && old.raw[t.end] == '"' {
		raw = append(raw, ' ')
	}
	raw = append(raw, old.raw[t.end:]...)
	st.lines[li] = dfLine{raw: raw, line: old.line}
}
