package store

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/oedl/oedl/internal/sim/msg"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// notesDB writes a DB.db of the erp's schema size in a fresh directory.
func notesDB(t *testing.T) Paths {
	t.Helper()
	p := Paths{Base: filepath.Join(t.TempDir(), "x")}
	require.NoError(t, WriteControl(p, sampleControlAt(p, 470)))
	return p
}

// sampleControlAt is sampleControl as the database p: its BI extent (the
// schema lock) beside its DB.db, not in /db.
func sampleControlAt(p Paths, tables int) *Control {
	c := sampleControl(tables)
	c.Areas[0].Extents[0].Path = p.Base + ".b1"
	return c
}

func controlInfo(t *testing.T, p Paths) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(p.Control())
	require.NoError(t, err)
	return fi
}

// active reads DB.db afresh and reports index ix of table tbl's flag.
func active(t *testing.T, p Paths, tbl, ix int) bool {
	t.Helper()
	c, err := ReadControl(p)
	require.NoError(t, err)
	for _, x := range c.TableByNumber(tbl).Indexes {
		if x.Number == ix {
			return x.Active
		}
	}
	t.Fatalf("no index %d in table %d", ix, tbl)
	return false
}

// A load's index switch-off writes a note of a few bytes at the end of
// DB.db, in place: not the whole control file again (half a megabyte
// for the seed's schema, once per table).
func TestIndexSwitchOffWritesOnlyItsNote(t *testing.T) {
	p := notesDB(t)
	db, err := Open(p)
	require.NoError(t, err)
	defer db.Close()
	before := controlInfo(t, p)
	for i, tbl := range []int{1, 2, 3} {
		ixs := db.Ctl.TableByNumber(tbl).Indexes
		states := []IndexState{{Table: tbl, Index: ixs[0].Number}, {Table: tbl, Index: ixs[1].Number}}
		require.NoError(t, db.SetIndexesActive(states))
		after := controlInfo(t, p)
		assert.True(t, os.SameFile(before, after), "switch-off %d: DB.db was replaced, not appended to", i+1)
		assert.LessOrEqual(t, after.Size()-before.Size(), int64(32), "switch-off %d: bytes written to DB.db", i+1)
		before = after
		assert.False(t, active(t, p, tbl, ixs[0].Number), "another process reads the change")
		assert.False(t, db.Ctl.TableByNumber(tbl).Indexes[1].Active, "the writer keeps it")
		assert.True(t, active(t, p, tbl, ixs[3].Number), "an index not named is untouched")
	}
	// Any other schema change rewrites DB.db with the notes folded in.
	require.NoError(t, db.Update(func(c *Control) error { c.Codepage = "UTF-8"; return nil }))
	c := db.Ctl
	assert.Equal(t, int64(len(controlMagic)+len(encodeControl(c))), controlInfo(t, p).Size(), "no note after a full rewrite")
	assert.False(t, active(t, p, 2, db.Ctl.TableByNumber(2).Indexes[0].Number), "the folded change stays")
}

// A process that read DB.db before another appended notes or replaced it
// sees every committed change at its next schema change.
func TestOtherProcessesChangesAreSeen(t *testing.T) {
	p := notesDB(t)
	a, err := Open(p)
	require.NoError(t, err)
	defer a.Close()
	b, err := Open(p)
	require.NoError(t, err)
	defer b.Close()
	ix := a.Ctl.TableByNumber(5).Indexes[0].Number
	require.NoError(t, b.SetIndexesActive([]IndexState{{Table: 5, Index: ix}}))
	require.NoError(t, a.SetIndexesActive([]IndexState{{Table: 6, Index: ix + 4}}))
	assert.False(t, a.Ctl.TableByNumber(5).Indexes[0].Active, "a applied b's note before appending its own")
	require.NoError(t, b.Update(func(c *Control) error { c.Codepage = "UTF-8"; return nil }))
	assert.False(t, b.Ctl.TableByNumber(6).Indexes[0].Active, "b applied a's note before rewriting")
	require.NoError(t, a.Refresh())
	assert.Equal(t, "UTF-8", a.Ctl.Codepage, "a read the replaced DB.db again")
	assert.False(t, active(t, p, 6, ix+4))
	assert.False(t, active(t, p, 5, ix))
}

// oneNoteDB is notesDB with one committed switch-off (table 1's first
// index, ix): its DB.db and the bytes it holds.
func oneNoteDB(t *testing.T) (p Paths, ix int, control []byte) {
	t.Helper()
	p = notesDB(t)
	db, err := Open(p)
	require.NoError(t, err)
	ix = db.Ctl.TableByNumber(1).Indexes[0].Number
	require.NoError(t, db.SetIndexesActive([]IndexState{{Table: 1, Index: ix}}))
	require.NoError(t, db.Close())
	control, err = os.ReadFile(p.Control())
	require.NoError(t, err)
	return p, ix, control
}

// kill -9 during a switch-off: whatever part of its note was written, the
// database opens, with the switch-off not committed; the next one cuts the
// partial note off and appends its own.
func TestSwitchOffKilledAtEveryByte(t *testing.T) {
	p, ix, committed := oneNoteDB(t)
	killed := encodeNote([]IndexState{{Table: 2, Index: ix + 4}, {Table: 2, Index: ix + 5}})
	next := encodeNote([]IndexState{{Table: 3, Index: ix + 8}})
	for cut := range len(killed) {
		require.NoError(t, os.WriteFile(p.Control(), append(append([]byte(nil), committed...), killed[:cut]...), 0o644))
		db, err := Open(p)
		require.NoError(t, err, "cut at %d", cut)
		assert.False(t, db.Ctl.TableByNumber(1).Indexes[0].Active, "cut at %d: the committed note", cut)
		assert.True(t, db.Ctl.TableByNumber(2).Indexes[0].Active, "cut at %d: the killed note is not committed", cut)
		require.NoError(t, db.SetIndexesActive([]IndexState{{Table: 3, Index: ix + 8}}))
		require.NoError(t, db.Close())
		got, err := os.ReadFile(p.Control())
		require.NoError(t, err)
		assert.Equal(t, append(append([]byte(nil), committed...), next...), got, "cut at %d: the partial note cut off", cut)
	}
}

// A whole note that is not what was written is a damaged DB.db: refused,
// not half applied.
func TestDamagedNoteIsRefused(t *testing.T) {
	p, ix, good := oneNoteDB(t)
	for name, b := range map[string][]byte{
		"crc":           flipLast(good),
		"unknown table": append(good, encodeNote([]IndexState{{Table: 9999, Index: ix}})...),
		"unknown index": append(good, encodeNote([]IndexState{{Table: 1, Index: 9999}})...),
	} {
		require.NoError(t, os.WriteFile(p.Control(), b, 0o644))
		_, err := Open(p)
		var me *msg.Error
		if assert.ErrorAs(t, err, &me, name) {
			assert.Equal(t, "oesim.db.damaged", me.Key, name)
		}
	}
}

func flipLast(b []byte) []byte {
	out := append([]byte(nil), b...)
	out[len(out)-1] ^= 0xff
	return out
}

// Notes past their share of DB.db are folded into a full rewrite, so a
// long-lived database does not read an ever longer tail.
func TestNotesFoldedPastTheirShare(t *testing.T) {
	p := Paths{Base: filepath.Join(t.TempDir(), "x")}
	require.NoError(t, WriteControl(p, sampleControlAt(p, 3)))
	db, err := Open(p)
	require.NoError(t, err)
	defer db.Close()
	base := controlInfo(t, p).Size()
	ix := db.Ctl.TableByNumber(1).Indexes[0].Number
	rewrites := 0
	for i := range 200 {
		before := controlInfo(t, p)
		require.NoError(t, db.SetIndexesActive([]IndexState{{Table: 1, Index: ix, Active: i%2 == 0}}))
		if !os.SameFile(before, controlInfo(t, p)) {
			rewrites++
		}
		assert.LessOrEqual(t, (controlInfo(t, p).Size()-base)*notesShare, base, "notes past their share")
	}
	assert.Positive(t, rewrites)
	assert.Less(t, rewrites, 50, "folded once per share, not at every change")
}

// A Control written before every section was kept takes no notes after
// it (they would read as its missing sections): the first change
// rewrites it.
func TestNoNoteAfterAnOlderControl(t *testing.T) {
	p := Paths{Base: filepath.Join(t.TempDir(), "x")}
	b := encodeControl(sampleControlAt(p, 3))
	require.NoError(t, os.WriteFile(p.Control(), append([]byte(controlMagic), b[:len(b)-2]...), 0o644))
	before := controlInfo(t, p)
	db, err := Open(p)
	require.NoError(t, err)
	defer db.Close()
	ix := db.Ctl.TableByNumber(1).Indexes[0].Number
	require.NoError(t, db.SetIndexesActive([]IndexState{{Table: 1, Index: ix}}))
	assert.False(t, os.SameFile(before, controlInfo(t, p)), "rewritten")
	assert.False(t, active(t, p, 1, ix))
}

func FuzzApplyNotes(f *testing.F) {
	f.Add(encodeNote([]IndexState{{Table: 1, Index: 8}, {Table: 2, Index: 12, Active: true}}))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f})
	f.Fuzz(func(t *testing.T, b []byte) {
		n, _ := applyNotes(sampleControl(3), b)
		if n > len(b) || n < 0 {
			t.Fatalf("applied %d bytes of %d", n, len(b))
		}
	})
}
