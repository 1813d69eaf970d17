package openedge

import "bytes"

// OptionLines returns the option lines of the statement behind obj (a
// *DFTable, *DFField, *DFIndex, *DFSequence or *DFChange of this DF), in
// file order and spelling: each logical line as read, a value spanning
// lines included, without its line end; comment lines are left out, and
// options written on the header line after the statement head come
// first. They are the bytes of the file's codepage. A loader that must
// write back what it read (oesim's load_df.p, then dump_df.p) keeps them;
// nil for an object that is not of this DF.
func (d *DF) OptionLines(obj any) []string {
	var st *dfStmt
	switch o := obj.(type) {
	case *DFTable:
		st = d.tableStmt[o]
	case *DFField:
		st = d.fieldStmt[o]
	case *DFIndex:
		st = d.indexStmt[o]
	case *DFSequence:
		st = d.seqStmt[o]
	case *DFChange:
		st = d.chgStmt[o]
	}
	if st == nil || len(st.lines) == 0 {
		return nil
	}
	lines := []string{}
	if rest := st.headRest(); rest != "" {
		lines = append(lines, "  "+rest)
	}
	for _, l := range st.lines[1:] {
		raw := bytes.TrimRight(l.raw, "\r\n")
		if t := bytes.TrimLeft(raw, " \t"); len(t) == 0 || t[0] == '#' {
			continue
		}
		lines = append(lines, string(raw))
	}
	return lines
}

// headRest is what the header line holds after the statement head, trimmed.
func (st *dfStmt) headRest() string {
	raw := st.lines[0].raw
	toks, err := lexOne(raw, nil)
	if err != nil || st.headLen >= len(toks) {
		return ""
	}
	return string(bytes.TrimSpace(raw[toks[st.headLen].off:]))
}
