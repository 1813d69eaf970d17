package sim

import "github.com/oedl/oedl/internal/sim/store"

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
	if img.rpb <= 0 {
		return 0, 0
	}
	recent := newBlockRing(fetchBehind)
	last := int64(-1)
	for _, p := range order {
		b := img.recids[p] / img.rpb
		switch {
		case recent.has(b):
		case last >= 0 && b > last && b-last <= fetchAhead:
			for x := last + 1; x <= b; x++ {
				recent.add(x)
			}
			seq += b - last
			last = b
		default:
			recent.add(b)
			random++
			last = b
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
