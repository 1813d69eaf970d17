package openedge

import "strings"

// The typed views of ADD TABLE / FIELD / INDEX / SEQUENCE. Each add*
// reads the options it knows and ignores the others, which stay in the
// statement's bytes all the same.

// typeStmt classifies a statement and builds its typed view. The words
// are read as the Data Dictionary's loader reads them
// (prodict/dump/_lodsddl.p): ADD has the synonyms CREATE and NEW, TABLE
// the older FILE, FIELD COLUMN and INDEX KEY; UPDATE, RENAME and DROP
// statements (an incremental .df) are typed as changes.
func (p *dfParser) typeStmt(st *dfStmt, tk *stmtToks) error {
	l := st.lines[0]
	h := dfHead{raw: l.raw, toks: tk.line(0), line: l.line}
	st.kind = dfOther
	verb := dfVerb(h)
	if verb == "" {
		return nil
	}
	if verb != "ADD" {
		return p.change(st, tk, h, verb)
	}
	switch obj, at := dfObject(h, 1); obj {
	case "TABLE":
		return p.addTable(st, tk, h)
	case "FIELD":
		return p.addField(st, tk, h)
	case "INDEX":
		return p.addIndex(st, tk, h, at, indexFlagged(h, 1, at, "UNIQUE"))
	case "SEQUENCE":
		return p.addSequence(st, tk, h)
	}
	return nil // ADD DATABASE, ADD CONSTRAINT, ...: kept verbatim
}

// dfVerb is the action of a statement header, synonyms folded: ADD,
// UPDATE, RENAME or DROP; "" for anything else.
func dfVerb(h dfHead) string {
	for _, v := range [...]struct{ word, verb string }{
		{"ADD", "ADD"}, {"CREATE", "ADD"}, {"NEW", "ADD"},
		{"UPDATE", "UPDATE"}, {"MODIFY", "UPDATE"}, {"ALTER", "UPDATE"}, {"CHANGE", "UPDATE"},
		{"DROP", "DROP"}, {"DELETE", "DROP"}, {"REMOVE", "DROP"},
		{"RENAME", "RENAME"},
	} {
		if h.is(0, v.word) {
			return v.verb
		}
	}
	return ""
}

// dfObject is the object word of a header from token i on, synonyms
// folded (TABLE, FIELD, INDEX, SEQUENCE, DATABASE, CONSTRAINT), and the
// index of the token after it, the object's name. "ADD UNIQUE INDEX",
// "UPDATE PRIMARY INDEX" and "UPDATE INACTIVE INDEX" put flags before the
// object word: they are skipped.
func dfObject(h dfHead, i int) (string, int) {
	for ; i < len(h.toks) && i < 5; i++ {
		for _, o := range [...]struct{ word, obj string }{
			{"TABLE", "TABLE"}, {"FILE", "TABLE"}, {"FIELD", "FIELD"}, {"COLUMN", "FIELD"},
			{"INDEX", "INDEX"}, {"KEY", "INDEX"}, {"SEQUENCE", "SEQUENCE"},
			{"DATABASE", "DATABASE"}, {"CONNECT", "DATABASE"}, {"CONSTRAINT", "CONSTRAINT"},
		} {
			if h.is(i, o.word) {
				return o.obj, i + 1
			}
		}
		if !h.is(i, "UNIQUE") && !h.is(i, "PRIMARY") && !h.is(i, "INACTIVE") {
			return "", 0
		}
	}
	return "", 0
}

// indexFlagged says whether flag is among the header words from..to.
func indexFlagged(h dfHead, from, to int, flag string) bool {
	for i := from; i < to; i++ {
		if h.is(i, flag) {
			return true
		}
	}
	return false
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
		case "MULTITENANT":
			// _dmpdefs.p writes the logical as EXPORT does: yes (or true).
			v, _ := o.arg(0)
			t.MultiTenant = strings.EqualFold(v, "yes") || strings.EqualFold(v, "true")
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
	p.d.steps = append(p.d.steps, DFStep{Table: t})
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
			// DECIMALS ? is the unknown value, which the loader accepts
			// for any type ("the default for non-decimal fields anyway").
			if v, _ := o.arg(0); v != "?" {
				f.Decimals, err = o.intArg(st)
			}
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
	p.d.steps = append(p.d.steps, DFStep{Field: f})
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
	ix := &DFIndex{Name: name, Table: table, Unique: unique, Line: h.line,
		Primary: indexFlagged(h, 1, at, "PRIMARY"), Inactive: indexFlagged(h, 1, at, "INACTIVE")}
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
	p.d.steps = append(p.d.steps, DFStep{Index: ix})
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
	p.d.steps = append(p.d.steps, DFStep{Sequence: s})
	p.d.seqs = append(p.d.seqs, s)
	p.d.seqStmt[s] = st
	return nil
}
