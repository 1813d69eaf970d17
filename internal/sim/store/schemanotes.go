package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
)

// Schema notes: the small schema changes a load makes (its indexes
// switched off before the first record, on again after "build indexes")
// are appended to DB.db as notes after the full Control, not written by
// rewriting the whole of it. In OpenEdge such a change is a schema
// transaction of a few blocks and BI notes; rewriting DB.db (half a
// megabyte for a schema of 873 tables) under the schema lock once per
// table made every load of a batch wait for every other's rewrite.
//
// DB.db is then: magic | Control | note | note | ... A note is framed as
// uvarint length | payload | u32 CRC32C(payload), written by one write at
// the end of the last whole note, under the schema lock:
//   - a reader applies the notes after the Control; a note cut short at
//     the end is one whose append had not finished (a kill -9 during it):
//     not committed, left out, and cut off by the next append;
//   - a whole note whose CRC or content is wrong is a damaged DB.db, as a
//     damaged one is refused today;
//   - the next full rewrite (DB.Update: any other schema change) writes a
//     Control with the notes applied and none after it, by temp file and
//     rename as before, so a note is never applied twice;
//   - the bytes up to the end of the last whole note never change in
//     place, so a process that read them reads only what was appended
//     since (DB.refresh), as long as DB.db is still the file it holds open.
// Notes are only appended after a Control with every section (complete):
// after an older one they would be read as its missing sections.

// noteIndexActive is a note setting the active flag of indexes.
const noteIndexActive = 1

// maxNote bounds a note's length: a larger one is damage, not a note.
const maxNote = 1 << 24

// notesShare bounds the notes after a Control, as a share of its size:
// past it, the next change is folded into a full rewrite, so that reading
// the notes never costs more than a share of decoding the Control.
const notesShare = 4

// IndexState is one index's active flag.
type IndexState struct {
	Table, Index int
	Active       bool
}

var errNoteDamaged = errors.New("schema note damaged")

func encodeNote(states []IndexState) []byte {
	e := &encoder{}
	e.uint(noteIndexActive)
	e.uint(uint64(len(states)))
	for _, s := range states {
		e.int(int64(s.Table))
		e.int(int64(s.Index))
		e.bool(s.Active)
	}
	frame := binary.AppendUvarint(nil, uint64(len(e.b)))
	frame = append(frame, e.b...)
	return binary.LittleEndian.AppendUint32(frame, Checksum(e.b))
}

// applyNotes applies the notes in b to c and returns the length of the
// whole notes: a note cut short at the end is left out.
func applyNotes(c *Control, b []byte) (int, error) {
	off := 0
	for off < len(b) {
		n, k := binary.Uvarint(b[off:])
		if k == 0 {
			break // its length cut short
		}
		if k < 0 || n > maxNote {
			return off, errNoteDamaged
		}
		end := off + k + int(n) + 4
		if end > len(b) {
			break // cut short
		}
		payload := b[off+k : end-4]
		if binary.LittleEndian.Uint32(b[end-4:end]) != Checksum(payload) {
			return off, errNoteDamaged
		}
		states, err := decodeNote(payload)
		if err != nil {
			return off, err
		}
		if err := setIndexStates(c, states); err != nil {
			return off, errNoteDamaged
		}
		off = end
	}
	return off, nil
}

func decodeNote(payload []byte) ([]IndexState, error) {
	d := &decoder{b: payload, all: string(payload)}
	if d.uint() != noteIndexActive {
		return nil, errNoteDamaged
	}
	states := make([]IndexState, d.count())
	for i := range states {
		states[i] = IndexState{Table: d.num(), Index: d.num(), Active: d.bool()}
	}
	if d.err != nil || len(d.b) != 0 {
		return nil, errNoteDamaged
	}
	return states, nil
}

// setIndexStates sets the flags in c, every index checked first: an
// unknown one changes nothing.
func setIndexStates(c *Control, states []IndexState) error {
	found := make([]*Index, len(states))
	for i, s := range states {
		t := c.TableByNumber(s.Table)
		if t == nil {
			return fmt.Errorf("table number %d vanished from the schema", s.Table)
		}
		for _, ix := range t.Indexes {
			if ix.Number == s.Index {
				found[i] = ix
			}
		}
		if found[i] == nil {
			return fmt.Errorf("index number %d of table %s vanished from the schema", s.Index, t.QualifiedName())
		}
	}
	for i, s := range states {
		found[i].Active = s.Active
	}
	return nil
}

// SetIndexesActive sets the active flag of indexes: one note appended to
// DB.db under the schema lock, or a full rewrite when the notes have grown
// past their share (or follow an older Control).
func (d *DB) SetIndexesActive(states []IndexState) error {
	unlock, err := FileLock(d.schemaLock, true)
	if err != nil {
		return err
	}
	defer unlock()
	c, cf, err := d.refresh()
	if err != nil {
		return err
	}
	note := encodeNote(states)
	if !cf.complete || (cf.valid-cf.base+int64(len(note)))*notesShare > cf.base {
		return d.rewrite(c, func(c *Control) error { return setIndexStates(c, states) })
	}
	if err := setIndexStates(c, states); err != nil {
		return err
	}
	if err := appendNote(cf, note); err != nil {
		// c has the change DB.db may lack: read it again.
		d.reload()
		return err
	}
	cf.valid += int64(len(note))
	d.mu.Lock()
	d.ctl = cf
	d.mu.Unlock()
	return nil
}

// appendNote writes note after the last whole note of the DB.db cf holds,
// cutting off a note a killed writer left cut short.
func appendNote(cf controlFile, note []byte) error {
	f, err := os.OpenFile(cf.f.Name(), os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := sameFile(f, cf.f); err != nil {
		return err
	}
	if fi, err := f.Stat(); err != nil {
		return err
	} else if fi.Size() > cf.valid {
		if err := f.Truncate(cf.valid); err != nil {
			return err
		}
	}
	_, err = f.WriteAt(note, cf.valid)
	return err
}

// sameFile fails unless a and b are one file: under the schema lock,
// DB.db cannot have been replaced since it was read.
func sameFile(a, b *os.File) error {
	fa, err := a.Stat()
	if err != nil {
		return err
	}
	fb, err := b.Stat()
	if err != nil {
		return err
	}
	if !os.SameFile(fa, fb) {
		return fmt.Errorf("%s replaced under the schema lock", a.Name())
	}
	return nil
}
