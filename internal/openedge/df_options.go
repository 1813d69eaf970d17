package openedge

import "strconv"

// A statement's options, as read from its tokens: the shared ground of the
// typed views (df_typed.go) and the edits (df_edit.go).

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
