package sim

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/oedl/oedl/internal/atomicfile"
	"github.com/oedl/oedl/internal/sim/bd"
	"github.com/oedl/oedl/internal/sim/fault"
	"github.com/oedl/oedl/internal/sim/store"
)

// tableImage is a table's records read into memory, in storage order.
type tableImage struct {
	recs   [][]byte // aliases of the segment buffers
	crcs   []uint32
	recids []int64 // ascending: storage order is record-id order
	bytes  int64
	// rpb and blockSize place a record in its block (fetch.go).
	rpb, blockSize int64
}

// readTable reads every record of t, charging the virtual disk for its
// blocks read in sequence as it goes (a table scan). A nil env charges
// nothing: the caller charges what the utility it simulates would have
// read (a dump: its fetches in index order).
func readTable(db *store.DB, t *store.Table, env *environment) (*tableImage, error) {
	img, _, err := readTableSegments(db, t, env)
	return img, err
}

// readTableSegments is readTable that also returns the number of segments
// read.
func readTableSegments(db *store.DB, t *store.Table, env *environment) (*tableImage, int, error) {
	af, segs, err := db.ObjectSegments(t.Area, store.KindRecords, t.Number)
	if err != nil {
		return nil, 0, err
	}
	img := &tableImage{}
	imageGeometry(img, af)
	for _, s := range segs {
		buf, err := af.ReadData(s, nil)
		if err != nil {
			return nil, 0, err
		}
		if err := env.seqRead(s.UsedBlocks * img.blockSize); err != nil {
			return nil, 0, err
		}
		img.bytes += int64(len(buf))
		ids := store.NewRecids(af, s)
		err = store.ForEachFrame(buf, func(rec []byte, crc uint32) error {
			img.recs = append(img.recs, rec)
			img.crcs = append(img.crcs, crc)
			img.recids = append(img.recids, ids.Next(len(rec)))
			return nil
		})
		if err != nil {
			return nil, 0, fmt.Errorf("table %s: %w", t.QualifiedName(), err)
		}
	}
	return img, len(segs), nil
}

// indexOrder returns the record positions of img in the order of index ix
// (ties in storage order), and the mean key length.
func indexOrder(img *tableImage, ix *store.Index, threads int) ([]int32, int, error) {
	order := make([]int32, len(img.recs))
	if ix == nil {
		for i := range order {
			order[i] = int32(i)
		}
		return order, 8, nil
	}
	// Each thread extracts and sorts the keys of a slice of the records;
	// the sorted runs are then merged.
	threads = max(1, min(threads, len(img.recs)/4096))
	runs := make([]*keyRun, threads)
	errs := make([]error, threads)
	var wg sync.WaitGroup
	for w := range threads {
		lo, hi := w*len(img.recs)/threads, (w+1)*len(img.recs)/threads
		wg.Add(1)
		go func() {
			defer wg.Done()
			ex := newExtractor(ix)
			run := &keyRun{ents: make([]keyEntry, 0, hi-lo)}
			for i := lo; i < hi; i++ {
				if err := ex.keys(img.recs[i], func(k []byte) { run.add(k, int64(i)) }); err != nil {
					errs[w] = err
					return
				}
			}
			run.sort()
			runs[w] = run
		}()
	}
	wg.Wait()
	var keyBytes, keys int
	for w := range threads {
		if errs[w] != nil {
			return nil, 0, errs[w]
		}
		keyBytes += len(runs[w].arena)
		keys += len(runs[w].ents)
	}
	meanKey := 8
	if keys > 0 {
		meanKey = max(1, keyBytes/keys)
	}
	i := 0
	err := mergeRuns(runs, func(_ []byte, recid int64) error { order[i] = int32(recid); i++; return nil })
	return order, meanKey, err
}

// walkIndex returns the record positions of img in the order of the
// stored index ix, as a real dump walks the index and fetches each record:
// the index's entries carry record ids, found in img by binary search. ok
// is false when the stored index does not cover the table one entry per
// record (then the caller sorts instead).
func walkIndex(db *store.DB, img *tableImage, ix *store.Index, env *environment) (order []int32, meanKey int, ok bool, err error) {
	af, segs, err := db.ObjectSegments(ix.Area, store.KindIndex, ix.Number)
	if err != nil {
		return nil, 0, false, err
	}
	order = make([]int32, 0, len(img.recs))
	var buf []byte
	var keyBytes int64
	for _, s := range segs {
		if buf, err = af.ReadData(s, buf); err != nil {
			return nil, 0, false, err
		}
		// The leaf level, in key order: block after block.
		if err := env.seqRead(s.UsedBlocks * int64(af.BlockSize)); err != nil {
			return nil, 0, false, err
		}
		keyBytes += int64(len(buf))
		err = store.ForEachEntry(buf, func(_ []byte, recid int64) error {
			i, found := slices.BinarySearch(img.recids, recid)
			if !found || len(order) == len(img.recs) {
				return errStaleIndex
			}
			order = append(order, int32(i))
			return nil
		})
		if err == errStaleIndex {
			return nil, 0, false, nil
		}
		if err != nil {
			return nil, 0, false, err
		}
	}
	if len(order) != len(img.recs) {
		return nil, 0, false, nil
	}
	if len(order) > 0 {
		meanKey = int(max(1, keyBytes/int64(len(order))-2))
	}
	return order, meanKey, true, nil
}

var errStaleIndex = errors.New("stored index does not match the records")

// brackets splits n records, in dump-index order, into the key ranges a
// threaded dump gives its threads. OpenEdge takes them from the entries of
// the index's root block: idxbuild fills blocks left to right, so every
// subtree under the root is full except the last, and the brackets are
// uneven (the 895/222 split of the documented run). The fan-out comes from
// the block size and the mean key length; the result is deterministic.
func brackets(n int64, meanKey, blockSize, threadnum int) []int64 {
	fanout := int64(max(2, (blockSize-64)/(meanKey+6)))
	if n <= fanout || threadnum <= 1 {
		return []int64{n}
	}
	subtree := fanout // entries under one root entry
	for subtree*fanout < n {
		subtree *= fanout
	}
	roots := (n + subtree - 1) / subtree
	t := min(int64(threadnum), roots)
	out := make([]int64, t)
	for j := range t {
		lo, hi := j*roots/t*subtree, min(n, (j+1)*roots/t*subtree)
		out[j] = hi - lo
	}
	return out
}

func dumpQualifier(p *proc, dbArg string, args []string) int {
	fs, err := parseFlags(args, "-index", "-thread", "-threadnum", "-dumplist", "-Cipher")
	if err != nil {
		return p.usage("%v", err)
	}
	pos := dropWords(fs.pos, "stopaftererror")
	if len(pos) != 2 {
		return p.usage("usage: proutil db-name -C dump [owner-name.]table-name directory [-index n] [-thread 1 -threadnum n] [-dumplist file]")
	}
	p.banner()
	s, rc := p.open(dbArg, client)
	if rc != 0 {
		return rc
	}
	defer s.close()
	t := s.db.Ctl.Table(pos[0])
	if t == nil {
		return p.fail("oesim.table.notfound.db", pos[0], s.paths.Base)
	}
	ix := t.PrimaryIndex()
	if v, ok := fs.values["-index"]; ok {
		n, err := fs.intValue("-index", 0)
		if err != nil {
			return p.usage("%v", err)
		}
		if ix = t.IndexByNumber(n); ix == nil {
			return p.fail("oesim.index.number.notfound", v, t.Name)
		}
		if ix.Word {
			return p.fail("oesim.index.word", ix.Name, ix.Number)
		}
	}
	if ix != nil && !ix.Active {
		return p.fail("oesim.index.inactive", ix.Name, ix.Number, t.Name)
	}
	threaded := fs.values["-thread"] == "1"
	threadnum, err := fs.intValue("-threadnum", runtime.NumCPU())
	if err != nil || threadnum < 1 {
		return p.usage("-threadnum must be a positive number")
	}
	if threaded && !s.online {
		return p.fail("oesim.dump.thread.served")
	}
	dir := pos[1]
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return p.fail("43", dir, 2)
	}
	fp := p.env.fault(p, "dump", t.QualifiedName())
	if rc := applyEarlyFault(p, fp); rc >= 0 {
		return rc
	}
	unlock, err := store.FileLock(s.paths.SchemaLock(), false)
	if err != nil {
		return p.failErr(err)
	}
	img, err := readTable(s.db, t, nil) // charged below, in the order the dump fetches the records
	unlock()
	if err != nil {
		return p.failErr(err)
	}
	order, meanKey, walked, err := []int32(nil), 0, false, error(nil)
	if ix != nil {
		order, meanKey, walked, err = walkIndex(s.db, img, ix, p.env)
	}
	if err == nil && !walked {
		order, meanKey, err = indexOrder(img, ix, 2)
	}
	if err != nil {
		return p.failErr(err)
	}
	sizes := []int64{int64(len(order))}
	if threaded {
		if _, given := fs.values["-threadnum"]; !given {
			p.msg("dump.threads.unspecified")
		}
		sizes = brackets(int64(len(order)), meanKey, s.db.Ctl.BlockSize, min(threadnum, runtime.NumCPU()))
		p.msg("14774", threadnum)
	}
	if ix != nil {
		p.msg("17813", ix.Name, ix.Number, t.Name)
	}
	// The records are fetched as they are written (progressiveFetch).
	files, rc := writeBrackets(p, s, t, img, order, sizes, dir, threaded, true, fp)
	if rc != 0 {
		return rc
	}
	if threaded {
		p.msg("14776", len(sizes))
	}
	p.msg("13932", len(order))
	if v, ok := fs.values["-dumplist"]; ok {
		if err := atomicfile.WriteFileNoSync(v, []byte(strings.Join(files, "\n")+"\n")); err != nil {
			return p.failErr(err)
		}
	}
	p.msg("6254")
	s.log(fmt.Sprintf("Binary dump of table %s: %d records in %d file(s). (13932)", t.QualifiedName(), len(order), len(files)))
	return exitOK
}

// dropWords removes "word value" pairs (positional options such as
// "stopaftererror 10") from positional arguments.
func dropWords(pos []string, words ...string) []string {
	var out []string
	for i := 0; i < len(pos); i++ {
		skip := false
		for _, w := range words {
			if strings.EqualFold(pos[i], w) {
				skip = true
			}
		}
		if skip {
			i++
			continue
		}
		out = append(out, pos[i])
	}
	return out
}

// writeBrackets writes one .bd per bracket, concurrently; brackets after
// the first are written as table.bN.bd and renamed table.bdN when done.
// With fetch, each bracket's thread fetches its own records, in index
// order and as it writes them (progressiveFetch), as a stream of its own
// on the disk: a threaded dump's
// threads each walk their bracket of the index and read its records
// (that is what the threads are for), so two threads beside fourteen
// other dumps get two of sixteen shares of the disk, not one. Without
// fetch the caller charged the reads (dumpspecified's bracket or scan).
func writeBrackets(p *proc, s *session, t *store.Table, img *tableImage, order []int32, sizes []int64,
	dir string, threaded, fetch bool, fp *faultPlan) ([]string, int) {
	absDir, _ := filepath.Abs(dir)
	// The suffix goes on before the join: Join cleans "DIR/.." + ".bd" up
	// to the parent's name, "DIR/..." + "bd" stays in DIR.
	name := func(suffix string) string { return filepath.Join(absDir, t.DumpFileBase()+suffix) }
	files := make([]string, len(sizes))
	errs := make([]error, len(sizes))
	var written atomic.Int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	var start int64
	for b, n := range sizes {
		section := b + 1
		final, temp := name(".bd"), name(".bd")
		if section > 1 {
			final, temp = name(fmt.Sprintf(".bd%d", section)), name(fmt.Sprintf(".b%d.bd", section))
		}
		files[b] = final
		lo := start
		start += n
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := &bd.Header{Created: time.Now(), Table: t.Name, TableNumber: t.Number, CRC: t.CRC, Fields: len(t.Fields),
				Database: s.paths.Name(), Section: section, FirstRecord: lo + 1, Owner: t.Owner}
			var pf *progressiveFetch
			if fetch {
				pf = newProgressiveFetch(p.env, img, order[lo:lo+n])
				go pf.run()
				defer pf.stop()
			}
			errs[b] = writeSection(temp, h, img, order[lo:lo+n], pf, p.env, fp, &written)
			if errs[b] == nil && temp != final {
				errs[b] = os.Rename(temp, final)
			}
			if threaded && errs[b] == nil {
				mu.Lock()
				p.msg("17816", 140132717238592+int64(os.Getpid())*4096+int64(section)*1011712, n, section)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				return nil, p.failErr(ioError(err))
			}
			return nil, p.failErr(err)
		}
	}
	return files, 0
}

// writeSection writes the records of order, each once fetch has charged
// its read (nil fetch: the caller charged them).
func writeSection(path string, h *bd.Header, img *tableImage, order []int32, fetch *progressiveFetch,
	env *environment, fp *faultPlan, written *atomic.Int64) error {
	f, err := createDumpFile(path, env, fp)
	if err != nil {
		return err
	}
	defer f.Close()
	w, err := bd.NewWriter(f, h)
	if err != nil {
		return err
	}
	// truncate-after=0: the dump's first file ends right after its header
	// (the loop below counts records from 1).
	if fp.is(fault.TruncateAfter) && fp.n() == 0 && h.Section == 1 && fp.strike() {
		return w.Abandon()
	}
	ready := 0
	if fetch == nil {
		ready = len(order)
	}
	for pos := range order {
		if pos >= ready {
			if ready, err = fetch.wait(pos); err != nil {
				return err
			}
		}
		i := order[pos]
		rec := img.recs[i]
		n := written.Add(1)
		if fp.is(fault.Corrupt) && n == fp.n() && fp.strike() {
			rec = append([]byte(nil), rec...)
			rec[len(rec)/2] ^= 0x5a // the stored checksum no longer matches
		}
		if err := w.WriteRecord(rec, img.crcs[i]); err != nil {
			return err
		}
		if fp.is(fault.TruncateAfter) && n == fp.n() && fp.strike() {
			return w.Abandon() // the file ends here, without its trailer
		}
		fp.recordFault(n, nil)
	}
	return w.Close()
}
