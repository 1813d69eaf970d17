package openedge

import (
	"strconv"
	"strings"
)

// stmtToks holds the tokens of the lines of one statement in one flat
// slice: line i has toks[ends[i-1]:ends[i]]. Comment lines have none.
type stmtToks struct {
	toks []dfTok
	ends []int
}

func (s *stmtToks) reset() { s.toks, s.ends = s.toks[:0], s.ends[:0] }

func (s *stmtToks) addLine(toks []dfTok) {
	s.toks = append(s.toks, toks...)
	s.ends = append(s.ends, len(s.toks))
}

func (s *stmtToks) line(i int) []dfTok {
	start := 0
	if i > 0 {
		start = s.ends[i-1]
	}
	return s.toks[start:s.ends[i]]
}

// lex tokenizes the statement's lines again (for an edit; the parser keeps
// the tokens it read instead).
func (st *dfStmt) lex() (*stmtToks, error) {
	tk := &stmtToks{}
	var toks []dfTok
	for _, l := range st.lines {
		var err error
		if toks, err = lexOne(l.raw, toks[:0]); err != nil {
			return nil, lineErrorf(l.line, "%v", err)
		}
		tk.addLine(toks)
	}
	return tk, nil
}

// dfOpt is one option of a statement: a keyword and the tokens after it on
// the same logical line, e.g. AREA "Data" or INDEX-FIELD "f" DESCENDING.
// Argument values are decoded only when asked for.
type dfOpt struct {
	kw   string  // upper case; "" for a line that starts with a string
	line int     // index in dfStmt.lines
	raw  []byte  // the raw bytes of that line
	toks []dfTok // the argument tokens
}

func (o dfOpt) arg(i int) (string, bool) {
	if i < len(o.toks) {
		return o.toks[i].text(o.raw), true
	}
	return "", false
}

// dfHead is the parsed header line of a statement.
type dfHead struct {
	raw  []byte
	toks []dfTok
	line int
}

func (h dfHead) is(i int, kw string) bool { return i < len(h.toks) && h.toks[i].is(h.raw, kw) }

// name returns token i as a name (quoted, or a bare word as ABL allows).
func (h dfHead) name(i int) (string, bool) {
	if i >= len(h.toks) {
		return "", false
	}
	return h.toks[i].text(h.raw), true
}

// options splits the statement into options, appending to opts. On each
// logical line a word starts an option when it comes first on the line or
// is a keyword of the .df grammar, so the usual one-option-per-line layout
// and the rarer several-per-line layout both type correctly. headLen tokens
// of the header line are the statement head, not options.
func (st *dfStmt) options(tk *stmtToks, headLen int, opts []dfOpt) []dfOpt {
	for li := range st.lines {
		raw, toks := st.lines[li].raw, tk.line(li)
		if li == 0 {
			toks = toks[min(headLen, len(toks)):]
		}
		first := -1 // index in toks where the current option's arguments start
		for ti, t := range toks {
			if t.quoted {
				if first < 0 { // a string first on a line: an option with no keyword
					opts = append(opts, dfOpt{line: li, raw: raw})
					first = ti
				}
				continue
			}
			kw, known := dfKeyword(raw[t.off:t.end])
			if ti > 0 && !known {
				continue // an argument word: ASCENDING, ?, 100M, yes...
			}
			if first >= 0 {
				opts[len(opts)-1].toks = toks[first:ti]
			}
			opts = append(opts, dfOpt{kw: kw, line: li, raw: raw})
			first = ti + 1
		}
		if first >= 0 {
			opts[len(opts)-1].toks = toks[min(first, len(toks)):]
		}
	}
	return opts
}

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

func (o dfOpt) lineNo(st *dfStmt) int { return st.lines[o.line].line }

func (o dfOpt) outsideIndex(st *dfStmt) error {
	return lineErrorf(o.lineNo(st), "INDEX-FIELD outside an ADD INDEX statement")
}

func (o dfOpt) stringArg(st *dfStmt) (string, error) {
	v, ok := o.arg(0)
	if !ok {
		return "", lineErrorf(o.lineNo(st), "%s needs a value", o.kw)
	}
	return v, nil
}

func (o dfOpt) intArg(st *dfStmt) (int, error) {
	v, err := o.int64Arg(st)
	if err == nil && int64(int(v)) != v {
		return 0, lineErrorf(o.lineNo(st), "%s %d is out of range", o.kw, v)
	}
	return int(v), err
}

func (o dfOpt) int64Arg(st *dfStmt) (int64, error) {
	v, err := o.stringArg(st)
	if err != nil {
		return 0, err
	}
	n, perr := strconv.ParseInt(v, 10, 64)
	if perr != nil {
		return 0, lineErrorf(o.lineNo(st), "%s %q is not a whole number", o.kw, v)
	}
	return n, nil
}

// optInt64Arg reads n or ? (the unknown value, returned as nil).
func (o dfOpt) optInt64Arg(st *dfStmt) (*int64, error) {
	if v, ok := o.arg(0); ok && v == "?" {
		return nil, nil
	}
	n, err := o.int64Arg(st)
	if err != nil {
		return nil, err
	}
	return &n, nil
}
