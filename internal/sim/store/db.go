package store

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"
)

// DB is an open database: its control file and its data areas.
type DB struct {
	Paths Paths
	Ctl   *Control

	mu    sync.Mutex
	areas map[int]*AreaFile
	ctl   controlFile // the version of DB.db that Ctl holds
	// schemaLock is Paths.SchemaLock, taken from Ctl once at Open: the
	// first BI extent's path never changes, and every schema change would
	// otherwise read DB.db's head again to find it.
	schemaLock string
	// format charges the blocks variable extents grow by (ChargeFormatting).
	format func(bytes int64) error
}

// ChargeFormatting has fn charge the bytes of the blocks every variable
// extent of the database grows by (formatted as OpenEdge formats them),
// under the area's allocation lock and before the blocks are used. An
// error from fn fails the write that grew the extent. It applies to the
// areas opened after it: call it before the first Area.
func (d *DB) ChargeFormatting(fn func(bytes int64) error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.format = fn
}

// Open reads DB.db. Extents are opened on first use.
func Open(p Paths) (*DB, error) {
	c, cf, err := readControlFile(p)
	if err != nil {
		return nil, err
	}
	return &DB{Paths: p, Ctl: c, areas: map[int]*AreaFile{}, ctl: cf, schemaLock: p.schemaLockAt(c.firstBIExtent())}, nil
}

// Refresh brings Ctl up to date with DB.db (after another process
// changed the schema).
func (d *DB) Refresh() error {
	unlock, err := FileLock(d.schemaLock, false)
	if err != nil {
		return err
	}
	defer unlock()
	_, _, err = d.refresh()
	return err
}

// refresh returns Ctl up to date with DB.db, under the schema lock: the
// notes appended since it was read applied to it when DB.db is still the
// file it was read from, else DB.db read again.
func (d *DB) refresh() (*Control, controlFile, error) {
	// d.mu guards the Ctl pointer and its file only: the schema lock
	// keeps the Control itself.
	d.mu.Lock()
	c, cf := d.Ctl, d.ctl
	d.mu.Unlock()
	fi, err := os.Stat(d.Paths.Control())
	if err != nil {
		return nil, cf, err
	}
	if held, err := cf.f.Stat(); err == nil && os.SameFile(fi, held) && fi.Size() >= cf.valid {
		if fi.Size() == cf.valid {
			return c, cf, nil
		}
		tail := make([]byte, fi.Size()-cf.valid)
		if _, err := cf.f.ReadAt(tail, cf.valid); err != nil {
			return nil, cf, err
		}
		if n, err := applyNotes(c, tail); err == nil {
			cf.valid += int64(n)
			d.mu.Lock()
			d.ctl = cf
			d.mu.Unlock()
			return c, cf, nil
		}
		// A damaged note: reading the whole file says so.
	}
	return d.reload()
}

// reload reads DB.db again (it was replaced, or a change to Ctl failed
// half way).
func (d *DB) reload() (*Control, controlFile, error) {
	c, cf, err := readControlFile(d.Paths)
	if err != nil {
		return nil, controlFile{}, err
	}
	d.mu.Lock()
	old := d.ctl.f
	d.Ctl, d.ctl = c, cf
	d.mu.Unlock()
	old.Close()
	return c, cf, nil
}

// Update changes DB.db under the schema lock and keeps the result: a full
// rewrite, the schema notes folded in.
func (d *DB) Update(fn func(*Control) error) error {
	unlock, err := FileLock(d.schemaLock, true)
	if err != nil {
		return err
	}
	defer unlock()
	c, _, err := d.refresh()
	if err != nil {
		return err
	}
	return d.rewrite(c, fn)
}

// rewrite applies fn to c, the up-to-date Ctl, and replaces DB.db with
// the result, under the schema lock.
func (d *DB) rewrite(c *Control, fn func(*Control) error) error {
	if err := fn(c); err != nil {
		// fn may have changed c half way: forget it.
		d.reload()
		return err
	}
	if err := WriteControl(d.Paths, c); err != nil {
		d.reload()
		return err
	}
	// Nobody replaces DB.db under the lock: the file opened is the one
	// written, and it holds exactly c.
	f, err := os.Open(d.Paths.Control())
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	d.mu.Lock()
	old := d.ctl.f
	d.Ctl, d.ctl = c, controlFile{f: f, base: fi.Size(), valid: fi.Size(), complete: true}
	d.mu.Unlock()
	old.Close()
	return nil
}

// Area opens data area n. Safe for concurrent use.
func (d *DB) Area(n int) (*AreaFile, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if af := d.areas[n]; af != nil {
		return af, nil
	}
	a := d.Ctl.AreaByNumber(n)
	if a == nil || a.Type != 'd' {
		return nil, fmt.Errorf("no data area number %d in %s", n, d.Paths.Control())
	}
	af, err := OpenArea(a, d.Ctl.BlockSize)
	if err != nil {
		return nil, err
	}
	af.format = d.format
	d.areas[n] = af
	return af, nil
}

// Close closes every open extent and DB.db.
func (d *DB) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	first := d.ctl.f.Close()
	if errors.Is(first, os.ErrClosed) { // closed before
		first = nil
	}
	for n, af := range d.areas {
		if err := af.Close(); err != nil && first == nil {
			first = err
		}
		delete(d.areas, n)
	}
	return first
}

// Sync flushes the open areas.
func (d *DB) Sync() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, af := range d.areas {
		if err := af.Sync(); err != nil {
			return err
		}
	}
	return nil
}

// ObjectSegments lists the live segments of one object in an area, in
// address order.
func (d *DB) ObjectSegments(area, kind, object int) (*AreaFile, []*Segment, error) {
	af, err := d.Area(area)
	if err != nil {
		return nil, nil, err
	}
	all, err := af.Segments()
	if err != nil {
		return nil, nil, err
	}
	var out []*Segment
	for _, s := range all {
		if !s.Dead && s.Kind == kind && s.Object == object {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pos < out[j].Pos })
	return af, out, nil
}

// CountRecords is the number of committed records of a table.
func (d *DB) CountRecords(t *Table) (int64, error) {
	_, segs, err := d.ObjectSegments(t.Area, KindRecords, t.Number)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, s := range segs {
		n += s.Count
	}
	return n, nil
}

// ForEachRecord reads a table's records in storage order. fn gets the
// record bytes (valid only during the call) and its record id.
func (d *DB) ForEachRecord(t *Table, fn func(rec []byte, recid int64) error) error {
	af, segs, err := d.ObjectSegments(t.Area, KindRecords, t.Number)
	if err != nil {
		return err
	}
	var buf []byte
	for _, s := range segs {
		if buf, err = af.ReadData(s, buf); err != nil {
			return err
		}
		ids := NewRecids(af, s)
		if err := ForEachFrame(buf, func(rec []byte, _ uint32) error { return fn(rec, ids.Next(len(rec))) }); err != nil {
			return fmt.Errorf("table %s: %w", t.QualifiedName(), err)
		}
	}
	return nil
}

// Recids hands out the record ids of a segment's records in order: block
// number times RPB plus the slot in the block, as an OpenEdge ROWID is.
type Recids struct {
	pk    packer
	first int64
	rpb   int64
}

// NewRecids starts numbering the records of segment s.
func NewRecids(af *AreaFile, s *Segment) *Recids {
	pk := newPacker(af.Area, af.BlockSize)
	return &Recids{pk: pk, first: s.Pos / int64(af.BlockSize), rpb: pk.rpb}
}

// Next is the record id of the next record, of n bytes.
func (r *Recids) Next(n int) int64 {
	r.pk.add(int64(n))
	return (r.first+r.pk.blocks-1)*r.rpb + r.pk.curRecs - 1
}

// RecordsPerBlock is the records a block of af's area holds: a record id
// divided by it is the record's block.
func RecordsPerBlock(af *AreaFile) int64 { return newPacker(af.Area, af.BlockSize).rpb }

// RecidRange is the range of record ids segment s can hold: its blocks
// times the area's records per block, from its first block.
func RecidRange(af *AreaFile, s *Segment) (lo, hi int64) {
	pk := newPacker(af.Area, af.BlockSize)
	first := s.Pos / int64(af.BlockSize)
	return first * pk.rpb, (first + max(s.Blocks, s.UsedBlocks)) * pk.rpb
}
