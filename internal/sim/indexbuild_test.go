package sim

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/sim/store"
)

// newStoreDB makes a database with one Type II data area and one table of
// n records (an int key, a name, a description for a word index),
// directly through the store.
func newStoreDB(t *testing.T, n int, seed uint64) (*store.DB, *store.Table) {
	t.Helper()
	p := store.PathsFor(filepath.Join(t.TempDir(), "db"))
	dir := filepath.Dir(p.Base)
	areas := append(store.DefaultAreas(p, 8192), &store.Area{Number: 7, Name: "Data", Type: 'd', RPB: 64, BPC: 8,
		Extents: []store.Extent{{Path: p.ExtentName(dir, 'd', 7, 1)}}})
	c, err := store.Create(p, areas, 8192, "ISO8859-1", false, nil)
	require.NoError(t, err)
	tb := &store.Table{Number: 1, Owner: "PUB", Name: "t", Area: 7,
		Fields: []store.Field{{Name: "k", Type: "integer"}, {Name: "name", Type: "character"}, {Name: "descr", Type: "character"}},
		Indexes: []*store.Index{
			{Number: 10, Name: "k", Area: 7, Unique: true, Primary: true, Active: true, Fields: []store.IndexField{{Name: "k", Pos: 0}}},
			{Number: 11, Name: "name", Area: 7, Active: true, Fields: []store.IndexField{{Name: "name", Pos: 1, Descending: true}, {Name: "k", Pos: 0}}},
			{Number: 12, Name: "words", Area: 7, Word: true, Active: true, Fields: []store.IndexField{{Name: "descr", Pos: 2}}},
		}}
	tb.CRC = tb.ComputeCRC()
	c.Tables = []*store.Table{tb}
	require.NoError(t, store.WriteControl(p, c))
	db, err := store.Open(p)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	af, err := db.Area(7)
	require.NoError(t, err)
	w := store.NewRecordWriter(af, 1)
	r := rand.New(rand.NewPCG(seed, 1))
	for _, k := range r.Perm(n) {
		rec, err := store.EncodeRecord(nil, []any{int64(k), fmt.Sprintf("name %d", r.IntN(n/3+1)), "alpha beta"})
		require.NoError(t, err)
		require.NoError(t, w.Add(rec))
	}
	require.NoError(t, w.Flush())
	return db, db.Ctl.Tables[0]
}

// indexKeys reads an index's stored entries.
func indexKeys(t *testing.T, db *store.DB, ix *store.Index) [][]byte {
	af, segs, err := db.ObjectSegments(ix.Area, store.KindIndex, ix.Number)
	require.NoError(t, err)
	var out [][]byte
	for _, s := range segs {
		data, err := af.ReadData(s, nil)
		require.NoError(t, err)
		require.NoError(t, store.ForEachEntry(data, func(k []byte, _ int64) error {
			out = append(out, bytes.Clone(k))
			return nil
		}))
	}
	return out
}

// The threaded sort (scan, sort and merge threads) must give exactly the
// keys a plain sort gives, for every thread count.
func TestBuildIndexesMatchesReference(t *testing.T) {
	const n = 30000
	for _, opt := range []sortOptions{
		{scanThreads: 1, sortThreads: 1, mergeThreads: 1, pfactor: 100},
		{scanThreads: 3, sortThreads: 4, mergeThreads: 2, pfactor: 80},
		{scanThreads: 8, sortThreads: 7, mergeThreads: 3, pfactor: 100},
	} {
		t.Run(fmt.Sprintf("scan%d-sort%d-merge%d", opt.scanThreads, opt.sortThreads, opt.mergeThreads), func(t *testing.T) {
			db, tb := newStoreDB(t, n, 42)
			res, err := buildTableIndexes(db, tb, tb.Indexes, opt)
			require.NoError(t, err)
			assert.EqualValues(t, n, res.Entries[10])
			assert.EqualValues(t, n, res.Entries[11])
			assert.EqualValues(t, 2*n, res.Entries[12], "two words per record")
			assert.Zero(t, res.Duplicates[10])

			for _, ix := range tb.Indexes {
				keys := indexKeys(t, db, ix)
				assert.True(t, slices.IsSortedFunc(keys, bytes.Compare), "index %s sorted", ix.Name)
			}
			// The reference: every k in ascending order.
			var want [][]byte
			for k := range n {
				f, _ := store.AppendValue(nil, int64(k))
				want = append(want, store.AppendKeyComponent(nil, f, false))
			}
			assert.Equal(t, want, indexKeys(t, db, tb.Indexes[0]))
		})
	}
}

func TestBuildCountsUniqueDuplicates(t *testing.T) {
	db, tb := newStoreDB(t, 1000, 1)
	af, err := db.Area(7)
	require.NoError(t, err)
	w := store.NewRecordWriter(af, 1)
	rec, _ := store.EncodeRecord(nil, []any{int64(5), "again", "x"})
	require.NoError(t, w.Add(rec))
	require.NoError(t, w.Flush())
	res, err := buildTableIndexes(db, tb, tb.Indexes[:1], sortOptions{sortThreads: 2, scanThreads: 2, mergeThreads: 1})
	require.NoError(t, err)
	assert.EqualValues(t, 1, res.Duplicates[10])
}

func TestDumpFileBase(t *testing.T) {
	assert.Equal(t, "customer", (&store.Table{Owner: "PUB", Name: "customer"}).DumpFileBase())
	assert.Equal(t, "sys_customer", (&store.Table{Owner: "sys", Name: "customer"}).DumpFileBase())
}

// A dump walks the stored index; without one it sorts. Both must give the
// same order, and a stale index (records added since it was built) must
// not be walked.
func TestWalkIndexMatchesSort(t *testing.T) {
	db, tb := newStoreDB(t, 20000, 9)
	_, err := buildTableIndexes(db, tb, tb.Indexes, sortOptions{scanThreads: 2, sortThreads: 2, mergeThreads: 1})
	require.NoError(t, err)
	img, err := readTable(db, tb, nil)
	require.NoError(t, err)
	for _, ix := range tb.Indexes[:2] {
		walked, _, ok, err := walkIndex(db, img, ix, nil)
		require.NoError(t, err)
		require.True(t, ok)
		sorted, _, err := indexOrder(img, ix, 3)
		require.NoError(t, err)
		assert.Equal(t, sorted, walked, "index %s", ix.Name)
	}

	af, err := db.Area(7)
	require.NoError(t, err)
	w := store.NewRecordWriter(af, 1)
	rec, _ := store.EncodeRecord(nil, []any{int64(-1), "late", "x"})
	require.NoError(t, w.Add(rec))
	require.NoError(t, w.Flush())
	img, err = readTable(db, tb, nil)
	require.NoError(t, err)
	_, _, ok, err := walkIndex(db, img, tb.Indexes[0], nil)
	require.NoError(t, err)
	assert.False(t, ok, "an index that misses a record is not walked")
}

// With a sort directory (idxbuild -T) the runs go through a sort file and
// the result is the same.
func TestBuildThroughSortFile(t *testing.T) {
	db, tb := newStoreDB(t, 20000, 3)
	dir := t.TempDir()
	_, err := buildTableIndexes(db, tb, tb.Indexes, sortOptions{scanThreads: 2, sortThreads: 3, mergeThreads: 2, sortDir: dir})
	require.NoError(t, err)
	for _, ix := range tb.Indexes {
		assert.True(t, slices.IsSortedFunc(indexKeys(t, db, ix), bytes.Compare))
	}
	left, _ := os.ReadDir(dir)
	assert.Empty(t, left, "the sort file is removed")
}
