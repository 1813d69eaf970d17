package sim

import (
	"bytes"
	"container/heap"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"

	"github.com/oedl/oedl/internal/sim/store"
)

// Index building, shared by idxbuild, load "build indexes", tablemove,
// procopy and gen: scan a table's records once with scanThreads readers,
// extract the key of every index being built, sort the keys with
// sortThreads goroutines (each sorts a run), merge the runs (in parallel
// groups when mergeThreads > 1, then one k-way merge) and write each index
// in key order into its area. Keys are compared as bytes (store.key.go),
// with an 8-byte prefix cached so that most comparisons are one integer
// comparison.

// sortOptions are idxbuild's thread counts and packing factor.
type sortOptions struct {
	scanThreads  int
	sortThreads  int
	mergeThreads int
	pfactor      int
	// io is the virtual disk the data scan and the index writes draw
	// from (nil: none).
	io *environment
	// sortDir, when set (idxbuild -T), is where the sorted runs go through
	// a sort file on their way to the merge, as idxbuild's do; env and
	// fault apply the virtual disk and a diskfull fault to it.
	sortDir string
	env     *environment
	fault   *faultPlan
	// sortMemory is what -TF gives the sort: a table whose keys fit in it
	// is sorted and merged in memory; a larger one goes through the sort
	// file. 0 (-TF 0, or the memory unknown) always uses the sort file,
	// idxbuild's behaviour before -TF.
	sortMemory int64
}

// buildResult is what a build reports.
type buildResult struct {
	Entries    map[int]int64 // per index number
	Duplicates map[int]int64 // unique-key violations per index number
	SortBytes  int64         // bytes of keys sorted
	Spilled    int64         // of those, bytes that went through the sort file
}

// keyEntry is one index entry being sorted.
type keyEntry struct {
	prefix uint64
	off    int64
	n      int32
	recid  int64
}

// keyRun is a set of entries sharing one arena.
type keyRun struct {
	arena []byte
	ents  []keyEntry
}

func (r *keyRun) add(key []byte, recid int64) {
	var p [8]byte
	copy(p[:], key)
	r.ents = append(r.ents, keyEntry{prefix: binary.BigEndian.Uint64(p[:]), off: int64(len(r.arena)), n: int32(len(key)), recid: recid})
	r.arena = append(r.arena, key...)
}

func (r *keyRun) key(i int) []byte {
	e := r.ents[i]
	return r.arena[e.off : e.off+int64(e.n)]
}

func compareEntries(a, b keyEntry, arenaA, arenaB []byte) int {
	if a.prefix != b.prefix {
		if a.prefix < b.prefix {
			return -1
		}
		return 1
	}
	if c := bytes.Compare(arenaA[a.off:a.off+int64(a.n)], arenaB[b.off:b.off+int64(b.n)]); c != 0 {
		return c
	}
	switch {
	case a.recid < b.recid:
		return -1
	case a.recid > b.recid:
		return 1
	}
	return 0
}

// sort sorts the run. Keys of one index often share a long head (every
// ERP index starts with the domain), so while sorting, the cached 8-byte
// prefix is taken after the bytes all keys of the run share, and most
// comparisons stay one integer comparison; the prefixes are then put back
// to the key heads that comparisons across runs (the merges) expect.
func (r *keyRun) sort() {
	skip := r.commonHead()
	if skip > 0 {
		r.setPrefixes(skip)
	}
	slices.SortFunc(r.ents, func(a, b keyEntry) int { return compareEntries(a, b, r.arena, r.arena) })
	if skip > 0 {
		r.setPrefixes(0)
	}
}

// commonHead is the number of leading bytes every key of the run shares.
func (r *keyRun) commonHead() int {
	if len(r.ents) < 2 {
		return 0
	}
	first := r.key(0)
	n := len(first)
	for i := 1; i < len(r.ents) && n > 0; i++ {
		k := r.key(i)
		m := min(n, len(k))
		j := 0
		for j < m && k[j] == first[j] {
			j++
		}
		n = j
	}
	return n
}

func (r *keyRun) setPrefixes(skip int) {
	for i := range r.ents {
		e := &r.ents[i]
		var p [8]byte
		if int(e.n) > skip {
			copy(p[:], r.arena[e.off+int64(skip):e.off+int64(e.n)])
		}
		e.prefix = binary.BigEndian.Uint64(p[:])
	}
}

// keyExtractor makes the keys of one index from encoded records.
type keyExtractor struct {
	ix     *store.Index
	maxPos int
	fields [][]byte
	buf    []byte
}

func newExtractor(ix *store.Index) *keyExtractor {
	m := 0
	for _, c := range ix.Fields {
		m = max(m, c.Pos+1)
	}
	return &keyExtractor{ix: ix, maxPos: m}
}

// keys calls emit for each key of rec (several for a word index).
func (k *keyExtractor) keys(rec []byte, emit func([]byte)) error {
	var err error
	if k.fields, err = store.FieldSlices(rec, k.maxPos, k.fields); err != nil {
		return err
	}
	if len(k.fields) < k.maxPos {
		return fmt.Errorf("record has %d fields, index %s needs %d", len(k.fields), k.ix.Name, k.maxPos)
	}
	if k.ix.Word {
		for _, w := range store.WordKeys(k.fields[k.ix.Fields[0].Pos]) {
			emit(w)
		}
		return nil
	}
	k.buf = k.buf[:0]
	for _, c := range k.ix.Fields {
		k.buf = store.AppendKeyComponent(k.buf, k.fields[c.Pos], c.Descending)
	}
	emit(k.buf)
	return nil
}

// collectKeys scans a table once and returns, per index, its unsorted
// entries split into runs (one per scan thread).
func collectKeys(db *store.DB, t *store.Table, ixs []*store.Index, opt sortOptions) (map[int][]*keyRun, int64, error) {
	af, segs, err := db.ObjectSegments(t.Area, store.KindRecords, t.Number)
	if err != nil {
		return nil, 0, err
	}
	threads := max(1, min(opt.scanThreads, len(segs)))
	runs := make([]map[int]*keyRun, threads)
	errs := make([]error, threads)
	var readBytes int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range threads {
		runs[w] = map[int]*keyRun{}
		for _, ix := range ixs {
			runs[w][ix.Number] = &keyRun{}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			exs := make([]*keyExtractor, len(ixs))
			for i, ix := range ixs {
				exs[i] = newExtractor(ix)
			}
			var buf []byte
			var n int64
			for si := w; si < len(segs); si += threads {
				s := segs[si]
				if buf, errs[w] = af.ReadData(s, buf); errs[w] != nil {
					return
				}
				n += int64(len(buf))
				// Each scan thread reads its segments in order.
				if errs[w] = opt.io.seqRead(s.UsedBlocks * int64(af.BlockSize)); errs[w] != nil {
					return
				}
				ids := store.NewRecids(af, s)
				errs[w] = store.ForEachFrame(buf, func(rec []byte, _ uint32) error {
					recid := ids.Next(len(rec))
					for i, ex := range exs {
						run := runs[w][ixs[i].Number]
						if err := ex.keys(rec, func(k []byte) { run.add(k, recid) }); err != nil {
							return fmt.Errorf("table %s: %w", t.QualifiedName(), err)
						}
					}
					return nil
				})
				if errs[w] != nil {
					return
				}
			}
			mu.Lock()
			readBytes += n
			mu.Unlock()
		}()
	}
	wg.Wait()
	for _, e := range errs {
		if e != nil {
			return nil, 0, e
		}
	}
	out := map[int][]*keyRun{}
	for _, ix := range ixs {
		for w := range threads {
			out[ix.Number] = append(out[ix.Number], runs[w][ix.Number])
		}
	}
	return out, readBytes, nil
}

// splitRuns redistributes entries into n runs of similar size for the
// sort threads (the scan runs may be uneven).
func splitRuns(in []*keyRun, n int) []*keyRun {
	total := 0
	for _, r := range in {
		total += len(r.ents)
	}
	if n <= 1 || total < 4096 {
		if len(in) == 1 {
			return in
		}
		return []*keyRun{mergeArenas(in)}
	}
	all := mergeArenas(in)
	out := make([]*keyRun, 0, n)
	per := (total + n - 1) / n
	for i := 0; i < total; i += per {
		j := min(total, i+per)
		out = append(out, &keyRun{arena: all.arena, ents: all.ents[i:j:j]})
	}
	return out
}

func mergeArenas(in []*keyRun) *keyRun {
	out := &keyRun{}
	for _, r := range in {
		base := int64(len(out.arena))
		out.arena = append(out.arena, r.arena...)
		for _, e := range r.ents {
			e.off += base
			out.ents = append(out.ents, e)
		}
	}
	return out
}

// sortRuns sorts every run in parallel.
func sortRuns(runs []*keyRun) {
	var wg sync.WaitGroup
	for _, r := range runs {
		wg.Add(1)
		go func() { defer wg.Done(); r.sort() }()
	}
	wg.Wait()
}

// mergeTwo merges two sorted runs into a new one.
func mergeTwo(a, b *keyRun) *keyRun {
	out := &keyRun{arena: make([]byte, 0, len(a.arena)+len(b.arena)), ents: make([]keyEntry, 0, len(a.ents)+len(b.ents))}
	i, j := 0, 0
	push := func(r *keyRun, k int) {
		e := r.ents[k]
		key := r.arena[e.off : e.off+int64(e.n)]
		e.off = int64(len(out.arena))
		out.arena = append(out.arena, key...)
		out.ents = append(out.ents, e)
	}
	for i < len(a.ents) && j < len(b.ents) {
		if compareEntries(a.ents[i], b.ents[j], a.arena, b.arena) <= 0 {
			push(a, i)
			i++
		} else {
			push(b, j)
			j++
		}
	}
	for ; i < len(a.ents); i++ {
		push(a, i)
	}
	for ; j < len(b.ents); j++ {
		push(b, j)
	}
	return out
}

// reduceRuns merges pairs of runs with mergeThreads goroutines until at
// most mergeThreads runs remain (the final merge then streams them).
func reduceRuns(runs []*keyRun, mergeThreads int) []*keyRun {
	for mergeThreads > 1 && len(runs) > mergeThreads {
		next := make([]*keyRun, (len(runs)+1)/2)
		sem := make(chan struct{}, mergeThreads)
		var wg sync.WaitGroup
		for i := 0; i < len(runs); i += 2 {
			if i+1 == len(runs) {
				next[i/2] = runs[i]
				continue
			}
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				next[i/2] = mergeTwo(runs[i], runs[i+1])
			}()
		}
		wg.Wait()
		runs = next
	}
	return runs
}

// mergeHeap is the k-way merge of sorted runs.
type mergeHeap struct {
	runs []*keyRun
	pos  []int
	h    []int // run indexes
}

func (m *mergeHeap) Len() int { return len(m.h) }
func (m *mergeHeap) Less(i, j int) bool {
	a, b := m.runs[m.h[i]], m.runs[m.h[j]]
	return compareEntries(a.ents[m.pos[m.h[i]]], b.ents[m.pos[m.h[j]]], a.arena, b.arena) < 0
}
func (m *mergeHeap) Swap(i, j int) { m.h[i], m.h[j] = m.h[j], m.h[i] }
func (m *mergeHeap) Push(x any)    { m.h = append(m.h, x.(int)) }
func (m *mergeHeap) Pop() any {
	x := m.h[len(m.h)-1]
	m.h = m.h[:len(m.h)-1]
	return x
}

// mergeRuns streams the entries of sorted runs in order.
func mergeRuns(runs []*keyRun, emit func(key []byte, recid int64) error) error {
	m := &mergeHeap{runs: runs, pos: make([]int, len(runs))}
	for i, r := range runs {
		if len(r.ents) > 0 {
			m.h = append(m.h, i)
		}
	}
	heap.Init(m)
	for m.Len() > 0 {
		ri := m.h[0]
		r := m.runs[ri]
		e := r.ents[m.pos[ri]]
		if err := emit(r.arena[e.off:e.off+int64(e.n)], e.recid); err != nil {
			return err
		}
		m.pos[ri]++
		if m.pos[ri] == len(r.ents) {
			heap.Pop(m)
		} else {
			heap.Fix(m, 0)
		}
	}
	return nil
}

// buildTableIndexes rebuilds ixs (all of table t) and returns the counts.
// The indexes are written but not activated: the caller updates DB.db.
func buildTableIndexes(db *store.DB, t *store.Table, ixs []*store.Index, opt sortOptions) (*buildResult, error) {
	res := &buildResult{Entries: map[int]int64{}, Duplicates: map[int]int64{}}
	if len(ixs) == 0 {
		return res, nil
	}
	keys, _, err := collectKeys(db, t, ixs, opt)
	if err != nil {
		return nil, err
	}
	var sortBytes int64
	for _, runs := range keys {
		for _, r := range runs {
			sortBytes += int64(len(r.ents))*24 + int64(len(r.arena))
		}
	}
	res.SortBytes = sortBytes
	spill := opt.sortDir != "" && sortBytes > opt.sortMemory
	if spill {
		res.Spilled = sortBytes
	}
	for _, ix := range ixs {
		runs := splitRuns(keys[ix.Number], max(1, opt.sortThreads))
		sortRuns(runs)
		if spill {
			if err := spillRuns(runs, opt); err != nil {
				return nil, err
			}
		}
		runs = reduceRuns(runs, opt.mergeThreads)
		af, err := db.Area(ix.Area)
		if err != nil {
			return nil, err
		}
		if err := af.Free(store.KindIndex, ix.Number); err != nil {
			return nil, err
		}
		w := store.NewIndexWriter(af, ix.Number, opt.pfactor)
		var prev []byte
		first := true
		err = mergeRuns(runs, func(key []byte, recid int64) error {
			if ix.Unique && !first && bytes.Equal(prev, key) {
				res.Duplicates[ix.Number]++
			}
			prev, first = append(prev[:0], key...), false
			return w.Add(key, recid)
		})
		if err == nil {
			err = w.Flush()
		}
		if err == nil {
			// The index is written in key order, block after block.
			err = opt.io.seqWrite(w.Written)
		}
		if err != nil {
			return nil, err
		}
		res.Entries[ix.Number] = w.Entries
		keys[ix.Number] = nil
	}
	return res, nil
}

// rebuildIndexes builds and activates indexes of one table.
func rebuildIndexes(db *store.DB, t *store.Table, ixs []*store.Index, opt sortOptions) error {
	if _, err := buildTableIndexes(db, t, ixs, opt); err != nil {
		return err
	}
	return setActive(db, t.Number, ixs, true)
}

// setActive flips the active flag of indexes of one table in DB.db.
func setActive(db *store.DB, table int, ixs []*store.Index, active bool) error {
	states := make([]store.IndexState, len(ixs))
	for i, ix := range ixs {
		states[i] = store.IndexState{Table: table, Index: ix.Number, Active: active}
	}
	return db.SetIndexesActive(states)
}

// spillRuns writes the sorted runs' keys to a sort file in opt.sortDir and
// reads them back for the merge: the sort space idxbuild reports (11480)
// is really used, a full disk there fails the rebuild, and the virtual
// disk is charged for both ways.
func spillRuns(runs []*keyRun, opt sortOptions) error {
	f, err := os.CreateTemp(opt.sortDir, "oesim-*.srt")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	defer os.Remove(name)
	df, err := createDumpFile(name, opt.env, opt.fault)
	if err != nil {
		return err
	}
	// Runs split from one scan share their arena: each arena goes once.
	var arenas [][]byte
	seen := map[*byte]int{}
	for _, r := range runs {
		if len(r.arena) == 0 {
			continue
		}
		if _, ok := seen[&r.arena[0]]; !ok {
			seen[&r.arena[0]] = len(arenas)
			arenas = append(arenas, r.arena)
		}
	}
	// Arenas are written and read whole (one call each, no buffer): most
	// indexes are small and a 1 MB buffer per index was most of the cost.
	for _, a := range arenas {
		if _, err := df.Write(a); err != nil {
			df.Close()
			return err
		}
	}
	if err := df.Close(); err != nil {
		return err
	}
	in, err := os.Open(name)
	if err != nil {
		return err
	}
	defer in.Close()
	backs := make([][]byte, len(arenas))
	for i, a := range arenas {
		backs[i] = make([]byte, len(a))
		if _, err := io.ReadFull(in, backs[i]); err != nil {
			return fmt.Errorf("sort file %s: %w", name, err)
		}
		if err := opt.env.seqRead(int64(len(a))); err != nil {
			return err
		}
	}
	for _, r := range runs {
		if len(r.arena) > 0 {
			r.arena = backs[seen[&r.arena[0]]]
		}
	}
	return nil
}
