package sim

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/sim/bd"
	"github.com/oedl/oedl/internal/sim/store"
	"github.com/oedl/oedl/internal/sim/vdisk"
)

func TestFetchReads(t *testing.T) {
	// Four records a block: record i is in block i/4.
	img := &tableImage{rpb: 4, blockSize: 8192}
	for i := range 4 * 100 {
		img.recids = append(img.recids, int64(i))
	}
	inOrder := make([]int32, len(img.recids))
	for i := range inOrder {
		inOrder[i] = int32(i)
	}
	reversed := make([]int32, len(inOrder))
	for i := range reversed {
		reversed[i] = inOrder[len(inOrder)-1-i]
	}
	// Every eighth record: two blocks on each time, within the window.
	strided := make([]int32, 50)
	for i := range strided {
		strided[i] = int32(8 * i)
	}
	tests := []struct {
		name        string
		order       []int32
		seq, random int64
	}{
		{"storage order: one random read, then the read-ahead", inOrder, 99, 1},
		{"backwards: every block a random read", reversed, 0, 100},
		{"steps within the read-ahead window are in sequence", strided, 98, 1},
		{"records of blocks still in the buffers read nothing", append(inOrder[:40:40], inOrder[:40]...), 9, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seq, random := fetchReads(img, tt.order)
			assert.Equal(t, tt.seq, seq, "in sequence")
			assert.Equal(t, tt.random, random, "at random")
		})
	}
}

// diskstats reads the virtual disk's counters: reads, sectors read,
// writes, sectors written.
func diskstats(t *testing.T, state string) [4]int64 {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(state, vdisk.DiskstatsFile))
	require.NoError(t, err)
	f := strings.Fields(string(raw))
	require.GreaterOrEqual(t, len(f), 10)
	var out [4]int64
	for i, k := range []int{3, 5, 7, 9} {
		out[i], err = strconv.ParseInt(f[k], 10, 64)
		require.NoError(t, err)
	}
	return out
}

// TestUtilitiesDrawRequestsByPattern: the utilities' I/O reaches the
// virtual disk as a real one's reaches a device, and its counters show
// it: a dump by its primary index (the order the records were stored in)
// streams its blocks; by an index in another order it fetches most blocks
// at random, many more requests for the same bytes; a tabanalys reads
// its blocks once (TestAnalysesReadWhatTheRealOnesRead counts which).
func TestUtilitiesDrawRequestsByPattern(t *testing.T) {
	env, db := smallDB(t)
	ctl, err := store.Open(store.PathsFor(db))
	require.NoError(t, err)
	cust := ctl.Ctl.Table("Customer")
	require.NotNil(t, cust)
	primary := cust.PrimaryIndex()
	var other *store.Index
	for _, ix := range cust.Indexes {
		if ix != primary && !ix.Word && len(ix.Fields) > 0 && ix.Active {
			other = ix
			break
		}
	}
	require.NoError(t, ctl.Close())
	require.NotNil(t, other, "Customer has a second index")

	run := func(args ...string) [4]int64 {
		state := t.TempDir()
		env.ok(t, "proutil", append([]string{db, "-C"}, args...)...)
		r := env.run(t, []string{"OESIM_STATE=" + state, vdisk.EnvIOPS + "=1000000"}, "", "proutil", append([]string{db, "-C"}, args...)...)
		require.Equal(t, 0, r.code, r.out)
		return diskstats(t, state)
	}
	dir := func(name string) string {
		d := filepath.Join(env.work, name)
		require.NoError(t, os.MkdirAll(d, 0o755))
		return d
	}
	byPrimary := run("dump", "Customer", dir("p"))
	byOther := run("dump", "Customer", dir("o"), "-index", strconv.Itoa(other.Number))
	assert.Positive(t, byPrimary[2], "the .bd is written")
	perSector := func(c [4]int64) float64 { return float64(c[0]) / float64(c[1]) }
	assert.Greater(t, perSector(byOther), 2*perSector(byPrimary),
		"by %s the dump reads in many more requests per byte than by %s: %v against %v", other.Name, primary.Name, byOther, byPrimary)
	tab := run("tabanalys")
	assert.Positive(t, tab[1], "tabanalys reads the blocks")
	assert.Equal(t, int64(1), tab[2], "and writes nothing but its log line")
}

// TestThreadedDumpThreadsFetchTheirOwnBrackets: each thread of a threaded
// dump walks its bracket of the index and fetches its records itself, a
// read stream of its own on the disk (so that the threads get a share of
// the disk each, as the estimate's model has them); the reads of one
// thread for the whole table, then the writes in parallel, gave a
// threaded dump no more of the disk than a single one. Each bracket
// starts its fetch away from where the other ends: a request more than
// the single-threaded dump of the same table makes.
func TestThreadedDumpThreadsFetchTheirOwnBrackets(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("oesim's dump threads are bounded by the CPUs, as OpenEdge's are")
	}
	env, db := smallDB(t)
	tbl := biggest(analysis(t, env, db))
	env.ok(t, "proserve", db)
	t.Cleanup(func() { env.run(t, nil, "", "proshut", db, "-by") })
	dump := func(extra ...string) ([4]int64, string) {
		state := t.TempDir()
		r := env.run(t, []string{"OESIM_STATE=" + state, vdisk.EnvIOPS + "=1000000"}, "", "proutil",
			append([]string{db, "-C", "dump", tbl.Name, t.TempDir()}, extra...)...)
		require.Equal(t, 0, r.code, r.out)
		return diskstats(t, state), r.out
	}
	single, _ := dump()
	threaded, out := dump("-thread", "1", "-threadnum", "2")
	res, err := openedge.ParseDumpOutput(out)
	require.NoError(t, err)
	require.Equal(t, 2, res.Threads, "the table is large enough for two brackets")
	assert.Greater(t, threaded[0], single[0], "reads: the second thread's fetch is a request of its own")
	// The same blocks, but for the few at the brackets' boundary that both
	// threads read (512-byte sectors; the database's blocks are 8 KiB).
	assert.InDelta(t, single[1], threaded[1], 4*16, "sectors read: the table, once")
}

// fileClock is a stopped clock that notes, at each charge the dump waits
// for, how many bytes its file has then.
type fileClock struct {
	mu    sync.Mutex
	now   time.Time
	path  string
	slept time.Duration
	sizes []int64
}

func (c *fileClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fileClock) Sleep(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.slept += d
	var size int64
	if st, err := os.Stat(c.path); err == nil {
		size = st.Size()
	}
	c.sizes = append(c.sizes, size)
}

// scattered is a table image of n records whose index order visits the
// blocks backwards: every block a random read.
func scattered(n int) (*tableImage, []int32) {
	img := &tableImage{rpb: 4, blockSize: 8192}
	order := make([]int32, n)
	for i := range n {
		img.recids = append(img.recids, int64(i))
		img.recs = append(img.recs, []byte(fmt.Sprintf("record %08d of the table%0180d", i, 0)))
		img.crcs = append(img.crcs, uint32(i))
		order[i] = int32(n - 1 - i)
	}
	return img, order
}

// A dump writes each record as it fetches it: its file grows while it
// reads (oedl's progress and the live ETA's pace of a dump are its
// size). Charged whole before the first record, a sports OrderLine dump
// showed no byte for 34 s, then 200 MB in 3.5 s. The reads are the same
// as charged whole.
func TestDumpWritesAsItFetches(t *testing.T) {
	img, order := scattered(40000)
	device := func(clock *fileClock) *environment {
		return &environment{disk: vdisk.New(vdisk.Config{IOPS: 1000, Clock: clock, Quantum: -1})}
	}

	whole := &fileClock{now: time.Unix(0, 0)}
	require.NoError(t, chargeFetch(device(whole), img, order))
	parts := &fileClock{now: time.Unix(0, 0)}
	all := newProgressiveFetch(device(parts), img, order)
	go all.run()
	_, err := all.wait(len(order) - 1) // a writer of the last record alone: every part
	require.NoError(t, err)
	all.stop()
	assert.Equal(t, whole.slept, parts.slept, "the same reads, charged in parts")

	path := filepath.Join(t.TempDir(), "t.bd")
	clock := &fileClock{now: time.Unix(0, 0), path: path}
	env := device(clock)
	fetch := newProgressiveFetch(env, img, order)
	go fetch.run()
	var written atomic.Int64
	err = writeSection(path, &bd.Header{Table: "t", Section: 1, FirstRecord: 1}, img, order, fetch, env, nil, &written)
	fetch.stop()
	require.NoError(t, err)
	final, err := os.Stat(path)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(clock.sizes), len(order)/fetch.chunk, "a charge for each part at least")
	// Past the middle of the reads, the file holds records already.
	mid := clock.sizes[len(clock.sizes)/2]
	assert.Greater(t, mid, final.Size()/8, "half-way through the reads the file has %d of its %d bytes", mid, final.Size())
	assert.Less(t, mid, final.Size(), "and not all of them")
	assert.Equal(t, int64(len(order)), written.Load())
}
