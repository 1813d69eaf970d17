package openedge

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
)

// ParseDF reads a .df data definition file. name is used in error messages
// ("name:line: what is wrong").
//
// Every byte is kept: DF.WriteTo of an unmodified file writes the input back
// byte for byte, CRLF line ends, trailing blanks, comments, annotations and
// unknown statements or options included. ADD SEQUENCE / TABLE / FIELD /
// INDEX statements are also typed (Tables, Sequences). The trailer, when
// present, must have the shape written by the Data Dictionary (§6.3).
func ParseDF(r io.Reader, name string) (*DF, error) {
	data, err := readAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := refuseUTF16(data, name, "in the code page its trailer names (cpstream=), or UTF-8"); err != nil {
		return nil, err
	}
	d, err := parseDF(data, name)
	if err != nil {
		var le *dfLineError
		if errors.As(err, &le) {
			return nil, fmt.Errorf("%s:%d: %s", name, le.line, le.msg)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return d, nil
}

// readAll is io.ReadAll with the buffer sized up front when the reader
// knows its length (a file, a bytes or strings reader): a large .df is then
// read in one allocation instead of a series of doublings.
func readAll(r io.Reader) ([]byte, error) {
	var size int64
	switch v := r.(type) {
	case interface{ Len() int }:
		size = int64(v.Len())
	case interface{ Stat() (fs.FileInfo, error) }:
		if fi, err := v.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
	}
	if size <= 0 || size > 1<<31 {
		return io.ReadAll(r)
	}
	var b bytes.Buffer
	b.Grow(int(size) + bytes.MinRead)
	_, err := b.ReadFrom(r)
	return b.Bytes(), err
}

func parseDF(data []byte, name string) (*DF, error) {
	p := &dfParser{d: &DF{
		name:       name,
		tableByKey: map[string]*DFTable{},
		tableStmt:  map[*DFTable]*dfStmt{},
		fieldStmt:  map[*DFField]*dfStmt{},
		seqStmt:    map[*DFSequence]*dfStmt{},
		chgStmt:    map[*DFChange]*dfStmt{},
		indexStmt:  map[*DFIndex]*dfStmt{},
	}}
	d := p.d
	// All statement lines live in one array sized up front; each statement
	// gets a capacity-limited window of it, so an edit that inserts a line
	// copies that statement only.
	lines := make([]dfLine, 0, bytes.Count(data, []byte{'\n'})+1)
	var (
		cur       *dfStmt // the open statement, nil between statements
		curStart  int     // index in lines of cur's header
		looseFrom int     // byte offset where the current run of loose lines starts
		toks      []dfTok
		err       error
	)
	closeStmt := func() error {
		if cur != nil {
			cur.lines = lines[curStart:len(lines):len(lines)]
			if err := p.typeStmt(cur, &p.curToks); err != nil {
				return err
			}
		}
		cur = nil
		p.curToks.reset()
		return nil
	}
	// loose keeps a line that belongs to no statement (blank, comment,
	// annotation) as raw bytes after the previous statement: such lines are
	// contiguous, so this is a window on data, not a copy.
	loose := func(pos, end int) {
		if n := len(d.stmts); n > 0 {
			if d.stmts[n-1].tail == nil {
				looseFrom = pos
			}
			d.stmts[n-1].tail = data[looseFrom:end:end]
		} else {
			d.head = data[:end:end]
		}
	}
	for pos, line := 0, 1; pos < len(data); {
		var end, n int
		end, n, toks, err = lexLine(data, pos, line, toks[:0])
		if err != nil {
			return nil, err
		}
		l := dfLine{raw: data[pos:end:end], line: line}
		switch {
		case len(toks) == 0 && isCommentLine(l.raw) && cur != nil:
			lines = append(lines, l) // a comment among the options stays there
			p.curToks.addLine(nil)
		case len(toks) == 0: // a blank line ends the statement
			if err := closeStmt(); err != nil {
				return nil, err
			}
			loose(pos, end)
		case len(toks) == 1 && toks[0].is(l.raw, "."):
			if err := closeStmt(); err != nil {
				return nil, err
			}
			if d.trailer, err = parseTrailer(data, pos, line); err != nil {
				return nil, err
			}
			return p.finish()
		case !toks[0].quoted && l.raw[toks[0].off] == '@': // annotation
			if err := closeStmt(); err != nil {
				return nil, err
			}
			loose(pos, end)
		case isStatementStart(l.raw, toks[0]):
			if err := closeStmt(); err != nil {
				return nil, err
			}
			cur, curStart = &dfStmt{}, len(lines)
			lines = append(lines, l)
			p.curToks.addLine(toks)
			d.stmts = append(d.stmts, cur)
		case cur == nil && isReportLine(l.raw[toks[0].off:]):
			return nil, lineErrorf(line, "%s outside a statement: this is a tabanalys or dbanalys report, not a .df", abbrev(l.raw[toks[0].off:]))
		case cur == nil:
			return nil, lineErrorf(line, "%s outside a statement (an option must follow its ADD line with no blank line between)", abbrev(l.raw[toks[0].off:]))
		default:
			lines = append(lines, l)
			p.curToks.addLine(toks)
		}
		pos, line = end, line+n
	}
	if err := closeStmt(); err != nil {
		return nil, err
	}
	return p.finish()
}

// dfParser holds what is known only once the whole file is read.
type dfParser struct {
	d       *DF
	fields  []*DFField // every ADD FIELD, in file order, linked at the end
	indexes []*DFIndex
	seqLine map[string]int // folded sequence name -> line, for duplicates

	// Scratch space reused from statement to statement: the parse of a
	// large .df allocates for what it keeps, not for what it looks at.
	curToks stmtToks
	opts    []dfOpt
}

// isCommentLine tells a comment from a blank line among the lines the
// lexer found no token on: only a comment can hold a '#'.
func isCommentLine(raw []byte) bool { return bytes.IndexByte(raw, '#') >= 0 }

// statementVerbs are the first words of .df statements (DumpFileGrammar),
// with the synonyms the Data Dictionary's loader accepts.
var statementVerbs = []string{"ADD", "UPDATE", "RENAME", "DROP", "CHANGE", "CREATE", "NEW", "MODIFY", "ALTER", "DELETE", "REMOVE"}

func isStatementStart(raw []byte, t dfTok) bool {
	for _, v := range statementVerbs {
		if t.is(raw, v) {
			return true
		}
	}
	return false
}

// finish links the typed views and returns the DF, or nil with the error.
func (p *dfParser) finish() (*DF, error) {
	if err := p.link(); err != nil {
		return nil, err
	}
	return p.d, nil
}

// link attaches fields and indexes to their tables once the whole file is
// read (a field may come before or after its ADD TABLE) and sets aside the
// orphans, whose table this file does not add.
func (p *dfParser) link() error {
	d := p.d
	fieldSeen, indexSeen := newNameSet(), newNameSet()
	tableOf := d.tableCache()
	for _, f := range p.fields {
		t := tableOf(f.Table)
		if t == nil {
			d.orphanFields = append(d.orphanFields, f)
			continue
		}
		if prev := fieldSeen.add(t, f.Name, f.Line); prev != 0 {
			return lineErrorf(f.Line, "field %q of table %q is already added on line %d", f.Name, t.Name, prev)
		}
		f.Table = t.Name
		t.Fields = append(t.Fields, f)
	}
	for _, i := range p.indexes {
		t := tableOf(i.Table)
		if t == nil {
			d.orphanIndexes = append(d.orphanIndexes, i)
			continue
		}
		if prev := indexSeen.add(t, i.Name, i.Line); prev != 0 {
			return lineErrorf(i.Line, "index %q of table %q is already added on line %d", i.Name, t.Name, prev)
		}
		i.Table = t.Name
		t.Indexes = append(t.Indexes, i)
	}
	return nil
}

// tableCache returns Table with the last answer remembered: the fields of
// a table follow one another, so most lookups repeat the previous one.
func (d *DF) tableCache() func(string) *DFTable {
	var lastName string
	var last *DFTable
	known := false
	return func(name string) *DFTable {
		if !known || name != lastName {
			lastName, last, known = name, d.Table(name), true
		}
		return last
	}
}

// nameSet finds duplicate names per table, case-insensitively. A table's
// names are compared one by one while there are few (no allocation) and
// through a map once there are many (a table may have thousands of fields).
type nameSet struct {
	small map[*DFTable][]nameLine
	large map[*DFTable]map[string]int
}

type nameLine struct {
	name string
	line int
}

const nameSetLinearMax = 32

func newNameSet() *nameSet {
	return &nameSet{small: map[*DFTable][]nameLine{}, large: map[*DFTable]map[string]int{}}
}

// add records name for t and returns the line of an earlier equal name, or 0.
func (s *nameSet) add(t *DFTable, name string, line int) int {
	if m, ok := s.large[t]; ok {
		key := foldName(name)
		if prev, dup := m[key]; dup {
			return prev
		}
		m[key] = line
		return 0
	}
	names := s.small[t]
	for _, n := range names {
		if strings.EqualFold(n.name, name) {
			return n.line
		}
	}
	if len(names) < nameSetLinearMax {
		s.small[t] = append(names, nameLine{name, line})
		return 0
	}
	m := make(map[string]int, 2*nameSetLinearMax)
	for _, n := range names {
		m[foldName(n.name)] = n.line
	}
	m[foldName(name)] = line
	s.large[t] = m
	delete(s.small, t)
	return 0
}

// isReportLine tells the first lines of a tabanalys or dbanalys report (the
// banner, message 3867's title) given for a .df, so that the error says the
// files were swapped instead of pointing at .df syntax.
func isReportLine(b []byte) bool {
	return bytes.HasPrefix(b, []byte("OpenEdge Release ")) || bytes.HasPrefix(b, []byte("PROGRESS Database Analysis"))
}
