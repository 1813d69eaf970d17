package store

import (
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
	stamp controlStamp // the version of DB.db that Ctl holds
}

// Open reads DB.db. Extents are opened on first use.
func Open(p Paths) (*DB, error) {
	c, st, err := readControlStamped(p)
	if err != nil {
		return nil, err
	}
	return &DB{Paths: p, Ctl: c, areas: map[int]*AreaFile{}, stamp: st}, nil
}

// Refresh re-reads DB.db (after another process changed the schema).
func (d *DB) Refresh() error {
	c, st, err := readControlStamped(d.Paths)
	if err != nil {
		return err
	}
	d.mu.Lock()
	d.Ctl, d.stamp = c, st
	d.mu.Unlock()
	return nil
}

// Update changes DB.db under the schema lock and keeps the result. When
// DB.db is still the version this DB read, it is not decoded again.
func (d *DB) Update(fn func(*Control) error) error {
	unlock, err := FileLock(d.Paths.BI(), true)
	if err != nil {
		return err
	}
	defer unlock()
	// d.mu guards the Ctl pointer only: fn may open areas.
	d.mu.Lock()
	c, stamp := d.Ctl, d.stamp
	d.mu.Unlock()
	fi, err := os.Stat(d.Paths.Control())
	if err != nil {
		return err
	}
	if stampOf(fi) != stamp {
		if c, stamp, err = readControlStamped(d.Paths); err != nil {
			return err
		}
	}
	if err := fn(c); err != nil {
		// fn may have changed c half way: forget it.
		if c, stamp, rerr := readControlStamped(d.Paths); rerr == nil {
			d.mu.Lock()
			d.Ctl, d.stamp = c, stamp
			d.mu.Unlock()
		}
		return err
	}
	if err := WriteControl(d.Paths, c); err != nil {
		return err
	}
	if fi, err := os.Stat(d.Paths.Control()); err == nil {
		stamp = stampOf(fi)
	}
	d.mu.Lock()
	d.Ctl, d.stamp = c, stamp
	d.mu.Unlock()
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
	d.areas[n] = af
	return af, nil
}

// Close closes every open extent.
func (d *DB) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	var first error
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
