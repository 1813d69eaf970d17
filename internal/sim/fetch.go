package sim

import (
	"errors"
	"sync"

	"github.com/oedl/oedl/internal/sim/store"
)

// A dump fetches its records in the order of its index, each through the
// database buffers from the block that holds it. How those fetches reach
// the disk is most of a dump's cost and what a faster disk changes
// (docs/estimate.md, "Disk physics"): when the index order follows the
// records' order on disk (a table loaded in that order, in an area of its
// own), every block comes after the last one and the kernel's read-ahead
// streams them; when it does not (a Type I area where tables were loaded
// together, logical scatter), a block away from the last ones is a random
// read the dump waits for.
const (
	// fetchBehind is how many of the last blocks read are still in the
	// buffers: a fetch from one of them reads nothing.
	fetchBehind = 256
	// fetchAhead is how far after the last block read a fetch still counts
	// as the next of the sequence: the read-ahead window (128 KiB of 8 KiB
	// blocks) has it, the blocks in between come with it.
	fetchAhead = 16
)

// fetchReads counts the blocks fetching img's records in order (positions
// into img) reads in sequence and at random.
func fetchReads(img *tableImage, order []int32) (seq, random int64) {
	return newFetchCount().reads(img, order)
}

// fetchCount is the buffers' state of a fetch in order: the blocks read
// last, and the last one.
type fetchCount struct {
	recent *blockRing
	last   int64
}

func newFetchCount() *fetchCount { return &fetchCount{recent: newBlockRing(fetchBehind), last: -1} }

// reads counts the blocks fetching the next records of order reads in
// sequence and at random, after the ones counted before.
func (c *fetchCount) reads(img *tableImage, order []int32) (seq, random int64) {
	if img.rpb <= 0 {
		return 0, 0
	}
	for _, p := range order {
		b := img.recids[p] / img.rpb
		switch {
		case c.recent.has(b):
		case c.last >= 0 && b > c.last && b-c.last <= fetchAhead:
			for x := c.last + 1; x <= b; x++ {
				c.recent.add(x)
			}
			seq += b - c.last
			c.last = b
		default:
			c.recent.add(b)
			random++
			c.last = b
		}
	}
	return seq, random
}

// chargeFetch charges the virtual disk for fetching img's records in order.
func chargeFetch(env *environment, img *tableImage, order []int32) error {
	seq, random := fetchReads(img, order)
	if err := env.seqRead(seq * img.blockSize); err != nil {
		return err
	}
	return env.randomRead(random, img.blockSize)
}

// imageGeometry sets what fetchReads needs to place img's records in
// blocks: the area's records per block and block size.
func imageGeometry(img *tableImage, af *store.AreaFile) {
	img.rpb, img.blockSize = store.RecordsPerBlock(af), int64(af.BlockSize)
}

// blockRing is the set of the last n blocks read.
type blockRing struct {
	ring []int64
	next int
	in   map[int64]int
}

func newBlockRing(n int) *blockRing {
	r := &blockRing{ring: make([]int64, n), in: make(map[int64]int, n)}
	for i := range r.ring {
		r.ring[i] = -1
	}
	return r
}

func (r *blockRing) has(b int64) bool { return r.in[b] > 0 }

func (r *blockRing) add(b int64) {
	if old := r.ring[r.next]; old >= 0 {
		if r.in[old]--; r.in[old] == 0 {
			delete(r.in, old)
		}
	}
	r.ring[r.next] = b
	r.in[b]++
	r.next = (r.next + 1) % len(r.ring)
}

// fetchChunks is how many parts a dump's fetch is charged in: a dump
// writes each record as it fetches it, so its .bd files grow as it reads
// (what oedl's progress reports). Charged whole before the first record
// was written, a sports OrderLine dump showed no byte for 34 s, then 200 MB
// in 3.5 s, and the live ETA had no pace of its own for it
// (docs/benchmarks/eta.md, i14-eta4).
const fetchChunks = 256

// errFetchStopped: a writer waited for a part after the fetch was stopped.
var errFetchStopped = errors.New("the dump's fetch was stopped")

// progressiveFetch charges the virtual disk for fetching a dump's records
// in order, a part at a time, each when a writer waits for records (a
// dump reads the next records when it has written the last ones, not
// ahead of them): the same reads as chargeFetch, in the same order, the
// bytes written as they come.
type progressiveFetch struct {
	env   *environment
	img   *tableImage
	order []int32
	chunk int

	mu      sync.Mutex
	cond    *sync.Cond
	fetched int   // positions of order charged so far
	waiting []int // the positions the writers wait for
	err     error
	stopped bool
}

func newProgressiveFetch(env *environment, img *tableImage, order []int32) *progressiveFetch {
	f := &progressiveFetch{env: env, img: img, order: order, chunk: max(1024, (len(order)+fetchChunks-1)/fetchChunks)}
	f.cond = sync.NewCond(&f.mu)
	return f
}

// run charges the parts in order, each when a writer needs it, until all
// are, one fails, or stop.
func (f *progressiveFetch) run() {
	count := newFetchCount()
	for lo := 0; lo < len(f.order); lo += f.chunk {
		hi := min(len(f.order), lo+f.chunk)
		f.mu.Lock()
		for !f.stopped && !f.needed() {
			f.cond.Wait()
		}
		stopped := f.stopped
		f.mu.Unlock()
		if stopped {
			return
		}
		seq, random := count.reads(f.img, f.order[lo:hi])
		err := f.env.seqRead(seq * f.img.blockSize)
		if err == nil {
			err = f.env.randomRead(random, f.img.blockSize)
		}
		f.mu.Lock()
		f.fetched, f.err = hi, err
		f.cond.Broadcast()
		f.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// needed: a writer waits for a record not fetched yet (a dump's writer
// of a later bracket waits from the start, so the reads then go on as
// they did charged whole). Called with the lock.
func (f *progressiveFetch) needed() bool {
	for _, p := range f.waiting {
		if p >= f.fetched {
			return true
		}
	}
	return false
}

// wait blocks until position pos of order is fetched, and returns how far
// the fetch has got (so a writer waits again only past it), or the
// charge's error.
func (f *progressiveFetch) wait(pos int) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.waiting = append(f.waiting, pos)
	f.cond.Broadcast()
	for f.fetched <= pos && f.err == nil && !f.stopped {
		f.cond.Wait()
	}
	for i, p := range f.waiting {
		if p == pos {
			f.waiting = append(f.waiting[:i], f.waiting[i+1:]...)
			break
		}
	}
	switch {
	case f.err != nil:
		return 0, f.err
	case f.fetched <= pos:
		return 0, errFetchStopped
	}
	return f.fetched, nil
}

// stop ends the charges (the writers are done, or failed) and wakes
// whoever still waits.
func (f *progressiveFetch) stop() {
	f.mu.Lock()
	f.stopped = true
	f.cond.Broadcast()
	f.mu.Unlock()
}
