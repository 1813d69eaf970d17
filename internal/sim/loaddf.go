package sim

import (
	"fmt"
	"strings"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/sim/msg"
	"github.com/oedl/oedl/internal/sim/store"
)

// dfLoad applies a .df to the schema as prodict/load_df.p does: every
// statement in file order, a full .df (ADD TABLE / FIELD / INDEX /
// SEQUENCE) as well as an incremental one (RENAME, DROP, UPDATE, ADD FIELD
// or INDEX to a table the database already has). The first statement that
// cannot be applied stops the load with the loader's own words
// ("** Line 12 DROP TABLE "x"" then "Try to modify unknown TABLE", from
// prodict/dump/_lodsddl.p), and nothing is changed: the schema update is
// one transaction.
//
// oesim stores records by field position, so it refuses (with its own
// message) to add or drop a field of a table that holds records, which
// the real database does by versioning the record layout.
type dfLoad struct {
	c       *store.Control
	df      *openedge.DF
	records func(*store.Table) (int64, error) // the records a table holds now
	freed   []freedObject                     // storage to free once the schema is written
}

// freedObject is the storage of a dropped table or index.
type freedObject struct{ area, kind, object int }

func (l *dfLoad) apply() error {
	if l.c.Void {
		return msg.E("oesim.db.void")
	}
	for _, st := range l.df.Steps() {
		var err error
		switch {
		case st.Table != nil:
			err = l.addTable(st.Table)
		case st.Sequence != nil:
			err = l.addSequence(st.Sequence)
		case st.Field != nil && l.df.Table(st.Field.Table) == nil:
			err = l.addField(st.Field)
		case st.Index != nil && l.df.Table(st.Index.Table) == nil:
			err = l.addIndex(st.Index)
		case st.Change != nil:
			err = l.change(st.Change)
		}
		if err != nil {
			return err
		}
	}
	if cp := l.df.Codepage(); cp != "" && !strings.EqualFold(cp, "UNDEFINED") {
		if l.c.Codepage == "" {
			l.c.Codepage = cp
		}
		l.c.DFCodepage = cp
	}
	return nil
}

// fail is the loader's error: the statement's line, then what is wrong.
func (l *dfLoad) fail(line int, head, key string, args ...any) error {
	return &dfError{line: msg.E("df.line", line, head), cause: msg.E(key, args...)}
}

// dfError prints as the two lines of the loader's error.
type dfError struct{ line, cause *msg.Error }

func (e *dfError) Error() string { return e.line.Error() + "\n" + e.cause.Error() }

func (l *dfLoad) areaOf(name string) (int, error) {
	if name == "" {
		return openedge.SchemaAreaNum, nil
	}
	a := l.c.AreaByName(name)
	if a == nil || a.Type != 'd' {
		return 0, msg.E("oesim.area.unknown", name)
	}
	return a.Number, nil
}

func (l *dfLoad) addTable(dt *openedge.DFTable) error {
	head := fmt.Sprintf("ADD TABLE %q", dt.Name)
	if l.c.Table(dt.Name) != nil {
		return l.fail(dt.Line, head, "df.exists", "TABLE", dt.Name)
	}
	t, err := store.TableFromDF(dt, l.areaOf)
	if err != nil {
		return err
	}
	// TableFromDF keeps the order of the fields and indexes.
	t.Options = l.df.OptionLines(dt)
	for i, f := range dt.Fields {
		t.Fields[i].Options = l.df.OptionLines(f)
	}
	for i, ix := range dt.Indexes {
		t.Indexes[i].Options = l.df.OptionLines(ix)
	}
	t.Number = l.c.NextTable
	l.c.NextTable++
	for _, ix := range t.Indexes {
		ix.Number = l.c.NextIndex
		l.c.NextIndex++
	}
	l.c.Tables = append(l.c.Tables, t)
	return nil
}

func (l *dfLoad) addSequence(ds *openedge.DFSequence) error {
	if l.sequence(ds.Name) != nil {
		return l.fail(ds.Line, fmt.Sprintf("ADD SEQUENCE %q", ds.Name), "df.exists", "SEQUENCE", ds.Name)
	}
	l.c.Sequences = append(l.c.Sequences, &store.Sequence{Name: ds.Name, Initial: ds.Initial, Increment: ds.Increment,
		Min: ds.Min, Max: ds.Max, Cycle: ds.Cycle, Current: ds.Initial, Options: l.df.OptionLines(ds)})
	return nil
}

func (l *dfLoad) sequence(name string) *store.Sequence {
	for _, s := range l.c.Sequences {
		if strings.EqualFold(s.Name, name) {
			return s
		}
	}
	return nil
}

// table finds the table a statement names, or the loader's error.
func (l *dfLoad) table(line int, head, name string) (*store.Table, error) {
	if t := l.c.Table(name); t != nil {
		return t, nil
	}
	return nil, l.fail(line, head, "df.unknown", "TABLE")
}

// empty refuses a change to the shape of the records of a table that
// holds some: oesim's records are positional.
func (l *dfLoad) empty(t *store.Table) error {
	n, err := l.records(t)
	if err != nil {
		return err
	}
	if n > 0 {
		return msg.E("oesim.df.records", t.Name, n)
	}
	return nil
}

func (l *dfLoad) addField(f *openedge.DFField) error {
	head := fmt.Sprintf("ADD FIELD %q OF %q", f.Name, f.Table)
	t, err := l.table(f.Line, head, f.Table)
	if err != nil {
		return err
	}
	if t.FieldPos(f.Name) >= 0 {
		return l.fail(f.Line, head, "df.exists", "FIELD", f.Name)
	}
	if err := l.empty(t); err != nil {
		return err
	}
	fld := store.Field{Name: f.Name, Type: strings.ToLower(f.Type), Extent: f.Extent, Order: f.Order,
		Options: l.df.OptionLines(f)}
	if f.LobArea != "" {
		if fld.LobArea, err = l.areaOf(f.LobArea); err != nil {
			return err
		}
	}
	t.Fields = append(t.Fields, fld)
	t.CRC = t.ComputeCRC()
	return nil
}

func (l *dfLoad) addIndex(di *openedge.DFIndex) error {
	head := fmt.Sprintf("ADD INDEX %q ON %q", di.Name, di.Table)
	t, err := l.table(di.Line, head, di.Table)
	if err != nil {
		return err
	}
	if indexOf(t, di.Name) != nil {
		return l.fail(di.Line, head, "df.exists", "INDEX", di.Name)
	}
	// A new index of a table that holds records is added inactive, to be
	// built by idxbuild; on an empty table it is built (empty) at once.
	n, err := l.records(t)
	if err != nil {
		return err
	}
	ix := &store.Index{Name: di.Name, Unique: di.Unique, Primary: di.Primary, Word: di.Word, Active: !di.Inactive && n == 0,
		Number: l.c.NextIndex, Options: l.df.OptionLines(di)}
	if ix.Area, err = l.areaOf(di.Area); err != nil {
		return err
	}
	for _, c := range di.Fields {
		pos := t.FieldPos(c.Name)
		if pos < 0 {
			return l.fail(di.Line, head, "df.nofield")
		}
		ix.Fields = append(ix.Fields, store.IndexField{Name: t.Fields[pos].Name, Pos: pos, Descending: c.Descending, Abbreviated: c.Abbreviated})
	}
	l.c.NextIndex++
	if ix.Primary {
		for _, o := range t.Indexes {
			o.Primary = false
		}
	}
	t.Indexes = append(t.Indexes, ix)
	t.CRC = t.ComputeCRC()
	return nil
}

func indexOf(t *store.Table, name string) *store.Index {
	for _, ix := range t.Indexes {
		if strings.EqualFold(ix.Name, name) {
			return ix
		}
	}
	return nil
}

// change applies an UPDATE, RENAME or DROP statement.
func (l *dfLoad) change(ch *openedge.DFChange) error {
	head := strings.Join(strings.Fields(fmt.Sprintf("%s %s %q %s", ch.Verb, ch.Object, ch.Name, changeTail(ch))), " ")
	switch ch.Object {
	case "TABLE":
		return l.changeTable(ch, head)
	case "FIELD":
		return l.changeField(ch, head)
	case "INDEX":
		return l.changeIndex(ch, head)
	case "SEQUENCE":
		return l.changeSequence(ch, head)
	}
	return nil // DATABASE, CONSTRAINT: nothing oesim models
}

func changeTail(ch *openedge.DFChange) string {
	var b strings.Builder
	if ch.Table != "" {
		fmt.Fprintf(&b, "OF %q ", ch.Table)
	}
	if ch.NewName != "" {
		fmt.Fprintf(&b, "TO %q", ch.NewName)
	}
	return b.String()
}

func (l *dfLoad) changeTable(ch *openedge.DFChange, head string) error {
	t, err := l.table(ch.Line, head, ch.Name)
	if err != nil {
		return err
	}
	switch ch.Verb {
	case "RENAME":
		if l.c.Table(ch.NewName) != nil {
			return l.fail(ch.Line, head, "df.exists", "TABLE", ch.NewName)
		}
		t.Name = ch.NewName
		t.CRC = t.ComputeCRC()
	case "DROP":
		for i, o := range l.c.Tables {
			if o == t {
				l.c.Tables = append(l.c.Tables[:i:i], l.c.Tables[i+1:]...)
				break
			}
		}
		l.freed = append(l.freed, freedObject{t.Area, store.KindRecords, t.Number})
		for _, ix := range t.Indexes {
			l.freed = append(l.freed, freedObject{ix.Area, store.KindIndex, ix.Number})
		}
	case "UPDATE":
		t.Options = store.MergeOptions(t.Options, l.df.OptionLines(ch))
	}
	return nil
}

func (l *dfLoad) changeField(ch *openedge.DFChange, head string) error {
	t, err := l.table(ch.Line, head, ch.Table)
	if err != nil {
		return err
	}
	pos := t.FieldPos(ch.Name)
	if pos < 0 {
		return l.fail(ch.Line, head, "df.unknown", "FIELD")
	}
	f := &t.Fields[pos]
	switch ch.Verb {
	case "RENAME":
		if t.FieldPos(ch.NewName) >= 0 {
			return l.fail(ch.Line, head, "df.exists", "FIELD", ch.NewName)
		}
		for _, ix := range t.Indexes {
			for i := range ix.Fields {
				if ix.Fields[i].Pos == pos {
					ix.Fields[i].Name = ch.NewName
				}
			}
		}
		f.Name = ch.NewName
	case "UPDATE":
		// Only integer to int64 may change type (the Dictionary's rule);
		// the value of an integer is stored the same either way.
		if ch.Type != "" && !strings.EqualFold(ch.Type, f.Type) {
			if !(f.Type == "integer" && ch.Type == "int64") {
				return l.fail(ch.Line, head, "df.datatype")
			}
			f.Type = "int64"
		}
		f.Options = store.MergeOptions(f.Options, l.df.OptionLines(ch))
	case "DROP":
		for _, ix := range t.Indexes {
			for _, c := range ix.Fields {
				if c.Pos == pos && ix.Primary {
					return l.fail(ch.Line, head, "df.primary")
				}
				if c.Pos == pos {
					return msg.E("oesim.df.indexed", f.Name, t.Name, ix.Name)
				}
			}
		}
		if err := l.empty(t); err != nil {
			return err
		}
		t.Fields = append(t.Fields[:pos:pos], t.Fields[pos+1:]...)
		for _, ix := range t.Indexes {
			for i := range ix.Fields {
				if ix.Fields[i].Pos > pos {
					ix.Fields[i].Pos--
				}
			}
		}
	}
	t.CRC = t.ComputeCRC()
	return nil
}

func (l *dfLoad) changeIndex(ch *openedge.DFChange, head string) error {
	t, err := l.table(ch.Line, head, ch.Table)
	if err != nil {
		return err
	}
	ix := indexOf(t, ch.Name)
	if ix == nil {
		return l.fail(ch.Line, head, "df.unknown", "INDEX")
	}
	switch ch.Verb {
	case "RENAME":
		if indexOf(t, ch.NewName) != nil {
			return l.fail(ch.Line, head, "df.exists", "INDEX", ch.NewName)
		}
		ix.Name = ch.NewName
	case "UPDATE":
		if ch.Primary {
			for _, o := range t.Indexes {
				o.Primary = o == ix
			}
		}
		ix.Options = store.MergeOptions(ix.Options, l.df.OptionLines(ch))
		if ch.Inactive && ix.Active {
			ix.Active = false
			l.freed = append(l.freed, freedObject{ix.Area, store.KindIndex, ix.Number})
		}
	case "DROP":
		for i, o := range t.Indexes {
			if o == ix {
				t.Indexes = append(t.Indexes[:i:i], t.Indexes[i+1:]...)
				break
			}
		}
		l.freed = append(l.freed, freedObject{ix.Area, store.KindIndex, ix.Number})
	}
	t.CRC = t.ComputeCRC()
	return nil
}

func (l *dfLoad) changeSequence(ch *openedge.DFChange, head string) error {
	s := l.sequence(ch.Name)
	if s == nil {
		return l.fail(ch.Line, head, "df.unknown", "SEQUENCE")
	}
	switch ch.Verb {
	case "RENAME":
		if l.sequence(ch.NewName) != nil {
			return l.fail(ch.Line, head, "df.exists", "SEQUENCE", ch.NewName)
		}
		s.Name = ch.NewName
	case "DROP":
		for i, o := range l.c.Sequences {
			if o == s {
				l.c.Sequences = append(l.c.Sequences[:i:i], l.c.Sequences[i+1:]...)
				break
			}
		}
	case "UPDATE":
		s.Options = store.MergeOptions(s.Options, l.df.OptionLines(ch))
		var err error
		for kw, v := range ch.Options {
			switch kw {
			case "INCREMENT":
				_, err = fmt.Sscan(v, &s.Increment)
			case "CYCLE-ON-LIMIT":
				s.Cycle = strings.EqualFold(v, "yes")
			}
			if err != nil {
				return l.fail(ch.Line, head, "df.badvalue", kw, v)
			}
		}
	}
	return nil
}
