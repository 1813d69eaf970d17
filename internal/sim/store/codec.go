package store

import (
	"encoding/binary"
	"errors"
	"time"

	"github.com/oedl/oedl/internal/openedge"
)

// The DB.db codec. Every utility call decodes the whole schema and a load
// writes it back, so the encoding is a plain sequence of varints and
// length-prefixed strings, written and read by hand: a schema of a
// thousand indexes takes well under a millisecond either way, where
// encoding/gob took several (measured in BenchmarkControlCodec).

var errControlShort = errors.New("control data cut short")

type encoder struct{ b []byte }

func (e *encoder) uint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) int(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *encoder) str(s string)  { e.uint(uint64(len(s))); e.b = append(e.b, s...) }
func (e *encoder) bool(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}
func (e *encoder) time(t time.Time) {
	if t.IsZero() {
		e.int(0)
		return
	}
	e.int(t.UnixNano())
}
func (e *encoder) strs(ss []string) {
	e.uint(uint64(len(ss)))
	for _, s := range ss {
		e.str(s)
	}
}
func (e *encoder) optInt(p *int64) {
	e.bool(p != nil)
	if p != nil {
		e.int(*p)
	}
}

// decoder reads the encoding. All strings are substrings of one copy of
// the input (one allocation instead of one per name).
type decoder struct {
	b   []byte
	all string // the input as a string
	off int    // offset of b in all
	err error
}

func (d *decoder) uint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errControlShort
		return 0
	}
	d.skip(n)
	return v
}

func (d *decoder) skip(n int) { d.b, d.off = d.b[n:], d.off+n }

func (d *decoder) int() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = errControlShort
		return 0
	}
	d.skip(n)
	return v
}

func (d *decoder) num() int { return int(d.int()) }

// count reads a slice length, bounded by the bytes left (each element
// takes at least one byte) so that damaged data cannot ask for a huge
// allocation.
func (d *decoder) count() int {
	n := d.uint()
	if n > uint64(len(d.b)) {
		d.err = errControlShort
		return 0
	}
	return int(n)
}

func (d *decoder) str() string {
	n := d.count()
	if d.err != nil {
		return ""
	}
	s := d.all[d.off : d.off+n]
	d.skip(n)
	return s
}

func (d *decoder) bool() bool {
	if d.err != nil || len(d.b) == 0 {
		d.err = errControlShort
		return false
	}
	v := d.b[0] != 0
	d.skip(1)
	return v
}

func (d *decoder) time() time.Time {
	ns := d.int()
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}

// strs reads a list of strings; a DB.db of version 1 has none.
func (d *decoder) strs(version int) []string {
	if version < 2 {
		return nil
	}
	n := d.count()
	if n == 0 {
		return nil
	}
	ss := make([]string, n)
	for i := range ss {
		ss[i] = d.str()
	}
	return ss
}

func (d *decoder) optInt() *int64 {
	if !d.bool() {
		return nil
	}
	v := d.int()
	return &v
}

// encodeControl writes c in the current layout, and so names the current
// version whatever c.Format says: a Control read from an older DB.db (no
// option lines) written back with its own version would be read without
// the option counts this writes, every field after them shifted.
func encodeControl(c *Control) []byte {
	e := &encoder{b: make([]byte, 0, 64<<10)}
	e.int(int64(ControlVersion))
	e.int(int64(c.BlockSize))
	e.str(c.Codepage)
	e.bool(c.Void)
	e.time(c.Created)
	e.time(c.LastOpened)
	e.time(c.SchemaChanged)
	e.int(int64(c.BIBlockKB))
	e.int(int64(c.BIClusterKB))
	e.int(int64(c.NextTable))
	e.int(int64(c.NextIndex))
	e.str(c.DFCodepage)
	e.uint(uint64(len(c.Areas)))
	for _, a := range c.Areas {
		e.int(int64(a.Number))
		e.str(a.Name)
		e.uint(uint64(a.Type))
		e.int(int64(a.RPB))
		e.int(int64(a.BPC))
		e.uint(uint64(len(a.Extents)))
		for _, x := range a.Extents {
			if x.Relative != "" {
				e.str(x.Relative)
			} else {
				e.str(x.Path)
			}
			e.bool(x.Fixed)
			e.int(x.SizeKB)
		}
	}
	e.uint(uint64(len(c.Tables)))
	for _, t := range c.Tables {
		e.int(int64(t.Number))
		e.str(t.Owner)
		e.str(t.Name)
		e.int(int64(t.Area))
		e.uint(uint64(t.CRC))
		e.strs(t.Options)
		e.uint(uint64(len(t.Fields)))
		for _, f := range t.Fields {
			e.str(f.Name)
			e.str(f.Type)
			e.int(int64(f.Extent))
			e.int(int64(f.Order))
			e.int(int64(f.LobArea))
			e.strs(f.Options)
		}
		e.uint(uint64(len(t.Indexes)))
		for _, ix := range t.Indexes {
			e.int(int64(ix.Number))
			e.str(ix.Name)
			e.int(int64(ix.Area))
			e.bool(ix.Unique)
			e.bool(ix.Primary)
			e.bool(ix.Word)
			e.bool(ix.Active)
			e.strs(ix.Options)
			e.uint(uint64(len(ix.Fields)))
			for _, c := range ix.Fields {
				e.str(c.Name)
				e.int(int64(c.Pos))
				e.uint(indexFieldFlags(c))
			}
		}
	}
	e.uint(uint64(len(c.Sequences)))
	for _, s := range c.Sequences {
		e.str(s.Name)
		e.int(s.Initial)
		e.int(s.Increment)
		e.optInt(s.Min)
		e.optInt(s.Max)
		e.bool(s.Cycle)
		e.int(s.Current)
		e.strs(s.Options)
	}
	// The security section comes last: a DB.db written before it was kept
	// ends here and reads as a database without users.
	e.uint(uint64(len(c.Security.Users)))
	for _, u := range c.Security.Users {
		e.str(u.ID)
		e.str(u.Password)
		e.str(u.Name)
	}
	e.uint(uint64(len(c.Security.Grants)))
	for _, g := range c.Security.Grants {
		e.str(g.Grantee)
		e.str(g.Object)
		e.str(g.Privileges)
	}
	e.uint(uint64(len(c.Security.Views)))
	for _, v := range c.Security.Views {
		e.str(v.Owner)
		e.str(v.Name)
		e.str(v.Text)
	}
	e.bool(c.AIBegun)
	e.bool(c.Replication)
	return e.b
}

func decodeControlData(b []byte) (*Control, error) {
	c, n, _, err := decodeControlBase(b)
	if err == nil && n != len(b) {
		err = errors.New("trailing bytes after the control data")
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// decodeControlBase decodes the Control at the start of b and returns
// the bytes it took. complete: every section was there, so bytes after
// them cannot be taken for a section a DB.db written before it lacked
// (schema notes are only appended after a complete one, schemanotes.go).
func decodeControlBase(b []byte) (c *Control, n int, complete bool, err error) {
	d := &decoder{b: b, all: string(b)}
	c = &Control{}
	decodeHead(d, c)
	c.Tables = make([]*Table, d.count())
	tables := make([]Table, len(c.Tables))
	for i := range c.Tables {
		t := &tables[i]
		*t = Table{Number: d.num(), Owner: d.str(), Name: d.str(), Area: d.num(), CRC: uint32(d.uint())}
		t.Options = d.strs(c.Format)
		t.Fields = make([]Field, d.count())
		for j := range t.Fields {
			t.Fields[j] = Field{Name: d.str(), Type: d.str(), Extent: d.num(), Order: d.num(), LobArea: d.num()}
			t.Fields[j].Options = d.strs(c.Format)
		}
		t.Indexes = make([]*Index, d.count())
		indexes := make([]Index, len(t.Indexes))
		for j := range t.Indexes {
			ix := &indexes[j]
			*ix = Index{Number: d.num(), Name: d.str(), Area: d.num(), Unique: d.bool(), Primary: d.bool(), Word: d.bool(),
				Active: d.bool()}
			ix.Options = d.strs(c.Format)
			ix.Fields = make([]IndexField, d.count())
			for k := range ix.Fields {
				ix.Fields[k] = IndexField{Name: d.str(), Pos: d.num()}
				flags := d.uint()
				ix.Fields[k].Descending, ix.Fields[k].Abbreviated = flags&flagDescending != 0, flags&flagAbbreviated != 0
			}
			t.Indexes[j] = ix
		}
		c.Tables[i] = t
	}
	c.Sequences = make([]*Sequence, d.count())
	for i := range c.Sequences {
		c.Sequences[i] = &Sequence{Name: d.str(), Initial: d.int(), Increment: d.int(), Min: d.optInt(), Max: d.optInt(),
			Cycle: d.bool(), Current: d.int()}
		c.Sequences[i].Options = d.strs(c.Format)
	}
	if d.err == nil && len(d.b) != 0 {
		sec := &c.Security
		sec.Users = make([]openedge.User, d.count())
		for i := range sec.Users {
			sec.Users[i] = openedge.User{ID: d.str(), Password: d.str(), Name: d.str()}
		}
		sec.Grants = make([]openedge.Grant, d.count())
		for i := range sec.Grants {
			sec.Grants[i] = openedge.Grant{Grantee: d.str(), Object: d.str(), Privileges: d.str()}
		}
		sec.Views = make([]openedge.View, d.count())
		for i := range sec.Views {
			sec.Views[i] = openedge.View{Owner: d.str(), Name: d.str(), Text: d.str()}
		}
		// none reads as nil, as a Control that never had any holds
		if len(sec.Users) == 0 {
			sec.Users = nil
		}
		if len(sec.Grants) == 0 {
			sec.Grants = nil
		}
		if len(sec.Views) == 0 {
			sec.Views = nil
		}
	}
	if d.err == nil && len(d.b) != 0 { // a DB.db written before them has neither
		c.AIBegun = d.bool()
		c.Replication = d.bool()
		complete = true
	}
	if d.err != nil {
		return nil, 0, false, d.err
	}
	return c, d.off, complete, nil
}

// An index field's attributes are one varint of flags. Its first
// version was a bool for Descending, the same byte as flags 0 and 1, so a
// DB.db written before Abbreviated was kept reads the same.
const (
	flagDescending = 1 << iota
	flagAbbreviated
)

func indexFieldFlags(c IndexField) uint64 {
	var f uint64
	if c.Descending {
		f |= flagDescending
	}
	if c.Abbreviated {
		f |= flagAbbreviated
	}
	return f
}

// decodeHead decodes what DB.db holds before its schema: the database's
// figures and its areas with their extents (all SchemaLock needs).
func decodeHead(d *decoder, c *Control) {
	c.Format = d.num()
	c.BlockSize = d.num()
	c.Codepage = d.str()
	c.Void = d.bool()
	c.Created = d.time()
	c.LastOpened = d.time()
	c.SchemaChanged = d.time()
	c.BIBlockKB = d.num()
	c.BIClusterKB = d.num()
	c.NextTable = d.num()
	c.NextIndex = d.num()
	if c.Format >= 2 {
		c.DFCodepage = d.str()
	}
	c.Areas = make([]*Area, d.count())
	for i := range c.Areas {
		a := &Area{Number: d.num(), Name: d.str(), Type: byte(d.uint()), RPB: d.num(), BPC: d.num()}
		a.Extents = make([]Extent, d.count())
		for j := range a.Extents {
			a.Extents[j] = Extent{Path: d.str(), Fixed: d.bool(), SizeKB: d.int()}
		}
		c.Areas[i] = a
	}
}
