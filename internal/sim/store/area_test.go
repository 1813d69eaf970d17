package store

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newTestArea(t *testing.T, bpc int, extents ...Extent) *AreaFile {
	t.Helper()
	dir := t.TempDir()
	for i := range extents {
		extents[i].Path = filepath.Join(dir, fmt.Sprintf("db_7.d%d", i+1))
	}
	a := &Area{Number: 7, Name: "Data", Type: 'd', RPB: 64, BPC: bpc, Extents: extents}
	require.NoError(t, Format(a, 8192, nil))
	af, err := OpenArea(a, 8192)
	require.NoError(t, err)
	t.Cleanup(func() { af.Close() })
	return af
}

func writeRecords(t *testing.T, af *AreaFile, table, n, size int) {
	t.Helper()
	w := NewRecordWriter(af, table)
	rec := make([]byte, size)
	for i := range n {
		rec[0] = byte(i)
		require.NoError(t, w.Add(rec))
	}
	require.NoError(t, w.Flush())
	require.EqualValues(t, n, w.Written())
}

func TestRecordsSurviveReopenAndSpanExtents(t *testing.T) {
	// 512 KB fixed extents: 20000 records of 100 bytes (~2 MB) must spill
	// over d1, d2 into the variable d3.
	af := newTestArea(t, 1, Extent{Fixed: true, SizeKB: 512}, Extent{Fixed: true, SizeKB: 512}, Extent{})
	writeRecords(t, af, 3, 20000, 100)
	segs, err := af.Segments()
	require.NoError(t, err)
	var n int64
	for _, s := range segs {
		n += s.Count
	}
	assert.EqualValues(t, 20000, n)
	st, err := os.Stat(af.Area.Extents[0].Path)
	require.NoError(t, err)
	assert.EqualValues(t, 512*1024, st.Size(), "a fixed extent keeps its size")
	st, err = os.Stat(af.Area.Extents[2].Path)
	require.NoError(t, err)
	assert.Positive(t, st.Size(), "records went on into the variable extent")

	again, err := OpenArea(af.Area, 8192)
	require.NoError(t, err)
	defer again.Close()
	count := 0
	segs, err = again.Segments()
	require.NoError(t, err)
	for _, s := range segs {
		data, err := again.ReadData(s, nil)
		require.NoError(t, err)
		require.NoError(t, ForEachFrame(data, func(rec []byte, crc uint32) error {
			assert.Equal(t, Checksum(rec), crc)
			count++
			return nil
		}))
	}
	assert.Equal(t, 20000, count)
}

func TestFixedAreaFills(t *testing.T) {
	af := newTestArea(t, 1, Extent{Fixed: true, SizeKB: 256})
	w := NewRecordWriter(af, 1)
	rec := make([]byte, 1000)
	var err error
	for i := 0; i < 1000 && err == nil; i++ {
		err = w.Add(rec)
	}
	if err == nil {
		err = w.Flush()
	}
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is full")
}

func TestTypeIIClusterPerObject(t *testing.T) {
	af := newTestArea(t, 64, Extent{})
	writeRecords(t, af, 1, 3, 50)
	writeRecords(t, af, 2, 3, 50)
	segs, err := af.Segments()
	require.NoError(t, err)
	require.Len(t, segs, 2)
	for _, s := range segs {
		assert.EqualValues(t, 64, s.Blocks, "a tiny table still owns a whole cluster")
		assert.EqualValues(t, 1, s.UsedBlocks)
		assert.Zero(t, (s.Pos/8192-1)%64, "segments start on cluster boundaries")
	}
}

func TestRecordsPerBlockLimit(t *testing.T) {
	af := newTestArea(t, 1, Extent{})
	af.Area.RPB = 4
	writeRecords(t, af, 1, 40, 10)
	segs, err := af.Segments()
	require.NoError(t, err)
	assert.EqualValues(t, 10, segs[0].UsedBlocks, "40 records at 4 per block")
}

func TestConcurrentWritersInterleaveSafely(t *testing.T) {
	af := newTestArea(t, 8, Extent{})
	var wg sync.WaitGroup
	for table := 1; table <= 4; table++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := NewRecordWriter(af, table)
			rec := make([]byte, 300)
			for range 10000 {
				if err := w.Add(rec); err != nil {
					t.Error(err)
					return
				}
			}
			if err := w.Flush(); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	segs, err := af.Segments()
	require.NoError(t, err)
	per := map[int]int64{}
	for _, s := range segs {
		per[s.Object] += s.Count
	}
	assert.Equal(t, map[int]int64{1: 10000, 2: 10000, 3: 10000, 4: 10000}, per)
}

func TestFreeAndTruncate(t *testing.T) {
	af := newTestArea(t, 8, Extent{})
	writeRecords(t, af, 1, 100, 20)
	writeRecords(t, af, 2, 100, 20)
	require.NoError(t, af.Free(KindRecords, 1))
	segs, err := af.Segments()
	require.NoError(t, err)
	live := 0
	for _, s := range segs {
		if !s.Dead {
			live++
			assert.Equal(t, 2, s.Object)
		}
	}
	assert.Equal(t, 1, live)
	require.NoError(t, af.Truncate())
	segs, err = af.Segments()
	require.NoError(t, err)
	assert.Empty(t, segs)
}

func TestIndexWriterRoundTrip(t *testing.T) {
	af := newTestArea(t, 8, Extent{})
	w := NewIndexWriter(af, 12, 100)
	var want []string
	for i := range 50000 {
		k := fmt.Sprintf("key-%08d", i)
		want = append(want, k)
		require.NoError(t, w.Add([]byte(k), int64(i)))
	}
	require.NoError(t, w.Flush())
	segs, err := af.Segments()
	require.NoError(t, err)
	var got []string
	for _, s := range segs {
		data, err := af.ReadData(s, nil)
		require.NoError(t, err)
		require.NoError(t, ForEachEntry(data, func(k []byte, recid int64) error {
			assert.EqualValues(t, len(got), recid)
			got = append(got, string(k))
			return nil
		}))
	}
	assert.Equal(t, want, got)
}
