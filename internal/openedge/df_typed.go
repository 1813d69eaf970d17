package openedge

import "strings"

// The typed views of ADD TABLE / FIELD / INDEX / SEQUENCE. Each add*
// reads the options it knows and ignores the others, which stay in the
// statement's bytes all the same.

// typeStmt classifies a statement and builds its typed view.
func (p *dfParser) typeStmt(st *dfStmt, tk *stmtToks) error {
	l := st.lines[0]
	h := dfHead{raw: l.raw, toks: tk.line(0), line: l.line}
	st.kind = dfOther
	if !h.is(0, "ADD") {
		return nil
	}
	switch {
	case h.is(1, "TABLE"):
		return p.addTable(st, tk, h)
	case h.is(1, "FIELD"):
		return p.addField(st, tk, h)
	case h.is(1, "INDEX"):
		return p.addIndex(st, tk, h, 2, false)
	case h.is(1, "UNIQUE") && h.is(2, "INDEX"):
		return p.addIndex(st, tk, h, 3, true)
	case h.is(1, "SEQUENCE"):
		return p.addSequence(st, tk, h)
	}
	return nil // ADD DATABASE, ADD CONSTRAINT, ...: kept verbatim
}

func (p *dfParser) addTable(st *dfStmt, tk *stmtToks, h dfHead) error {
	name, ok := h.name(2)
	if !ok {
		return lineErrorf(h.line, "ADD TABLE without a table name")
	}
	headLen := 3
	if h.is(3, "TYPE") {
		headLen = 5
	}
	t := &DFTable{Name: name, Line: h.line}
	st.headLen = headLen
	p.opts = st.options(tk, headLen, p.opts[:0])
	var err error
	for _, o := range p.opts {
		switch o.kw {
		case "AREA":
			t.Area, err = o.stringArg(st)
		case "DESCRIPTION":
			t.Description, err = o.stringArg(st)
		case "DUMP-NAME":
			t.DumpName, err = o.stringArg(st)
		case "INDEX-FIELD":
			err = o.outsideIndex(st)
		}
		if err != nil {
			return err
		}
	}
	key := foldName(name)
	if prev := p.d.tableByKey[key]; prev != nil {
		return lineErrorf(h.line, "table %q is already added on line %d", name, prev.Line)
	}
	st.kind = dfAddTable
	p.d.tables = append(p.d.tables, t)
	p.d.tableByKey[key] = t
	p.d.tableStmt[t] = st
	return nil
}

func (p *dfParser) addField(st *dfStmt, tk *stmtToks, h dfHead) error {
	name, ok := h.name(2)
	if !ok {
		return lineErrorf(h.line, "ADD FIELD without a field name")
	}
	if !h.is(3, "OF") || len(h.toks) < 5 {
		return lineErrorf(h.line, "ADD FIELD %q without OF \"table\"", name)
	}
	table, _ := h.name(4)
	if !h.is(5, "AS") || len(h.toks) < 7 || h.toks[6].quoted {
		return lineErrorf(h.line, "ADD FIELD %q OF %q without AS <data type>", name, table)
	}
	f := &DFField{Name: name, Table: table, Type: strings.ToLower(h.toks[6].text(h.raw)), Line: h.line}
	st.headLen = 7
	p.opts = st.options(tk, 7, p.opts[:0])
	var err error
	for _, o := range p.opts {
		switch o.kw {
		case "EXTENT":
			f.Extent, err = o.intArg(st)
		case "ORDER":
			f.Order, err = o.intArg(st)
		case "DECIMALS":
			f.Decimals, err = o.intArg(st)
		case "LOB-AREA":
			f.LobArea, err = o.stringArg(st)
		case "FORMAT":
			f.Format, err = o.stringArg(st)
		case "INITIAL":
			f.Initial, err = o.stringArg(st)
		case "LABEL":
			f.Label, err = o.stringArg(st)
		case "DESCRIPTION":
			f.Description, err = o.stringArg(st)
		case "MANDATORY":
			f.Mandatory = true
		case "INDEX-FIELD":
			err = o.outsideIndex(st)
		}
		if err != nil {
			return err
		}
	}
	st.kind = dfAddField
	p.fields = append(p.fields, f)
	p.d.fieldStmt[f] = st
	return nil
}

func (p *dfParser) addIndex(st *dfStmt, tk *stmtToks, h dfHead, at int, unique bool) error {
	name, ok := h.name(at)
	if !ok {
		return lineErrorf(h.line, "ADD INDEX without an index name")
	}
	if !h.is(at+1, "ON") || len(h.toks) < at+3 {
		return lineErrorf(h.line, "ADD INDEX %q without ON \"table\"", name)
	}
	table, _ := h.name(at + 2)
	ix := &DFIndex{Name: name, Table: table, Unique: unique, Line: h.line}
	st.headLen = at + 3
	p.opts = st.options(tk, at+3, p.opts[:0])
	var err error
	for _, o := range p.opts {
		switch o.kw {
		case "AREA":
			ix.Area, err = o.stringArg(st)
		case "UNIQUE":
			ix.Unique = true
		case "PRIMARY":
			ix.Primary = true
		case "WORD":
			ix.Word = true
		case "INACTIVE":
			ix.Inactive = true
		case "INDEX-FIELD":
			var f DFIndexField
			if f.Name, err = o.stringArg(st); err == nil {
				for _, a := range o.toks[1:] {
					f.Descending = f.Descending || a.is(o.raw, "DESCENDING")
					f.Abbreviated = f.Abbreviated || a.is(o.raw, "ABBREVIATED")
				}
				ix.Fields = append(ix.Fields, f)
			}
		}
		if err != nil {
			return err
		}
	}
	st.kind = dfAddIndex
	p.indexes = append(p.indexes, ix)
	p.d.indexStmt[ix] = st
	return nil
}

func (p *dfParser) addSequence(st *dfStmt, tk *stmtToks, h dfHead) error {
	name, ok := h.name(2)
	if !ok {
		return lineErrorf(h.line, "ADD SEQUENCE without a sequence name")
	}
	s := &DFSequence{Name: name, Increment: 1, Line: h.line}
	st.headLen = 3
	p.opts = st.options(tk, 3, p.opts[:0])
	var err error
	for _, o := range p.opts {
		switch o.kw {
		case "INITIAL":
			s.Initial, err = o.int64Arg(st)
		case "INCREMENT":
			s.Increment, err = o.int64Arg(st)
		case "CYCLE-ON-LIMIT":
			var v string
			if v, err = o.stringArg(st); err == nil {
				s.Cycle = strings.EqualFold(v, "yes")
			}
		case "MIN-VAL":
			s.Min, err = o.optInt64Arg(st)
		case "MAX-VAL":
			s.Max, err = o.optInt64Arg(st)
		case "INDEX-FIELD":
			err = o.outsideIndex(st)
		}
		if err != nil {
			return err
		}
	}
	if prev, dup := p.seqLine[foldName(name)]; dup {
		return lineErrorf(h.line, "sequence %q is already added on line %d", name, prev)
	}
	if p.seqLine == nil {
		p.seqLine = map[string]int{}
	}
	p.seqLine[foldName(name)] = h.line
	st.kind = dfAddSequence
	p.d.seqs = append(p.d.seqs, s)
	return nil
}
