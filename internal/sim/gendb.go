package sim

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/oedl/oedl/internal/atomicfile"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/sim/gen"
	"github.com/oedl/oedl/internal/sim/store"
)

type genResult struct {
	base           string
	tables         int
	records, bytes int64
}

// generateDatabase builds a source database from the generator straight
// through the storage layer (no .bd round trip): the "before" .st and .df
// are written next to it, the areas created from the .st (relative extent
// paths are relative to the database's directory), the rows encoded and
// stored, the indexes built. The result is an ordinary database; with
// relative, a relative-path one (as prodb of a relative-path database
// makes, then loaded), every extent beside the .db.
func generateDatabase(dbArg, profile string, scale, seed int64, relative bool) (*genResult, error) {
	g, err := gen.Generate(profile, scale, seed)
	if err != nil {
		return nil, err
	}
	paths := store.PathsFor(dbArg)
	if paths.Exists() {
		return nil, fmt.Errorf("%s already exists", paths.Control())
	}
	dir := filepath.Dir(paths.Base)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	st := g.Structure
	rel := &openedge.Structure{Source: st.Source}
	for _, a := range st.Areas {
		ca := *a
		ca.Extents = nil
		for _, e := range a.Extents {
			if !filepath.IsAbs(e.Path) {
				e.Path = filepath.Join(dir, e.Path)
			}
			ca.Extents = append(ca.Extents, e)
		}
		rel.Areas = append(rel.Areas, &ca)
	}
	var stText bytes.Buffer
	if g.STText != "" {
		stText.WriteString(g.STText)
	} else if err := openedge.WriteStructure(&stText, st); err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFileNoSync(paths.Base+".st", stText.Bytes()); err != nil {
		return nil, err
	}
	areas, err := areasFromStructure(paths, rel, g.BlockSize)
	if err != nil {
		return nil, err
	}
	if relative {
		if err := store.MakeRelative(paths, areas); err != nil {
			return nil, err
		}
	}
	codepage := g.Codepage
	if codepage == "" {
		codepage = DefaultCodepage
	}
	c, err := store.Create(paths, areas, g.BlockSize, codepage, false, nil)
	if err != nil {
		return nil, err
	}
	areaOf := func(name string) (int, error) {
		if name == "" {
			return openedge.SchemaAreaNum, nil
		}
		a := c.AreaByName(name)
		if a == nil {
			return 0, fmt.Errorf("area %q of the generated schema is not in its structure", name)
		}
		return a.Number, nil
	}
	seqCurrent := map[string]int64{}
	for _, s := range g.Sequences {
		seqCurrent[strings.ToLower(s.Name)] = s.Current
	}
	for _, gt := range g.Tables {
		def := *gt.Def
		if gt.Area != "" {
			def.Area = gt.Area
		}
		t, err := store.TableFromDF(&def, areaOf)
		if err != nil {
			return nil, err
		}
		t.Number, t.Owner = gt.Number, gt.Owner
		if t.Owner == "" {
			t.Owner = "PUB"
		}
		for _, ix := range t.Indexes {
			ix.Number = c.NextIndex
			ix.Active = true
			c.NextIndex++
		}
		c.Tables = append(c.Tables, t)
		c.NextTable = max(c.NextTable, t.Number+1)
	}
	if g.DF != nil {
		for _, ds := range g.DF.Sequences() {
			c.Sequences = append(c.Sequences, &store.Sequence{Name: ds.Name, Initial: ds.Initial, Increment: ds.Increment,
				Min: ds.Min, Max: ds.Max, Cycle: ds.Cycle, Current: seqCurrent[strings.ToLower(ds.Name)]})
		}
	} else {
		for _, s := range g.Sequences {
			c.Sequences = append(c.Sequences, &store.Sequence{Name: s.Name, Increment: 1, Current: s.Current})
		}
	}
	c.Security = g.Security
	if err := store.WriteControl(paths, c); err != nil {
		return nil, err
	}
	df := g.DF
	if df == nil {
		df = schemaDF(c)
	}
	var dfText bytes.Buffer
	if _, err := df.WriteTo(&dfText); err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFileNoSync(paths.Base+".df", dfText.Bytes()); err != nil {
		return nil, err
	}

	db, err := store.Open(paths)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	res := &genResult{base: paths.Base, tables: len(g.Tables)}
	byNum := map[int]*store.Table{}
	for _, t := range db.Ctl.Tables {
		byNum[t.Number] = t
	}
	// Records first, one worker per area so that no two tables interleave
	// in an area (the report is then the same for the same seed), two
	// areas at a time; then the indexes, two tables at a time, above them.
	byArea := map[int][]*gen.Table{}
	var areaOrder []int
	for _, gt := range g.Tables {
		a := byNum[gt.Number].Area
		if byArea[a] == nil {
			areaOrder = append(areaOrder, a)
		}
		byArea[a] = append(byArea[a], gt)
	}
	var mu sync.Mutex
	err = inParallel(len(areaOrder), 2, func(i int) error {
		for _, gt := range byArea[areaOrder[i]] {
			n, b, err := storeRecords(db, byNum[gt.Number], gt)
			if err != nil {
				return err
			}
			mu.Lock()
			res.records += n
			res.bytes += b
			mu.Unlock()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = inParallel(len(db.Ctl.Tables), 2, func(i int) error {
		t := db.Ctl.Tables[i]
		_, err := buildTableIndexes(db, t, t.Indexes, sortOptions{scanThreads: 1, sortThreads: 1, mergeThreads: 1, pfactor: 100})
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, db.Sync()
}

// inParallel runs fn(0..n-1) on workers goroutines and returns the first
// error.
func inParallel(n, workers int, fn func(i int) error) error {
	work := make(chan int)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if err := fn(i); err != nil {
					errs <- err
					for range work { // drain
					}
					return
				}
			}
		}()
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

// storeRecords writes one generated table's records.
func storeRecords(db *store.DB, t *store.Table, gt *gen.Table) (int64, int64, error) {
	af, err := db.Area(t.Area)
	if err != nil {
		return 0, 0, err
	}
	w := store.NewRecordWriter(af, t.Number)
	var buf []byte
	var bytesOut int64
	for row := range gt.Rows {
		if buf, err = store.EncodeRecord(buf[:0], row); err != nil {
			return 0, 0, fmt.Errorf("table %s: %w", t.Name, err)
		}
		bytesOut += int64(len(buf))
		if err = w.Add(buf); err != nil {
			return 0, 0, err
		}
	}
	if err := w.Flush(); err != nil {
		return 0, 0, err
	}
	return w.Written(), bytesOut, nil
}
