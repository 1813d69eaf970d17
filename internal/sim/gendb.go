package sim

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

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
// stored, the indexes built. The result is an ordinary database.
func generateDatabase(dbArg, profile string, scale, seed int64) (*genResult, error) {
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
	if err := store.WriteFileAtomic(paths.Base+".st", stText.Bytes()); err != nil {
		return nil, err
	}
	areas, err := areasFromStructure(paths, rel, g.BlockSize)
	if err != nil {
		return nil, err
	}
	codepage := g.Codepage
	if codepage == "" {
		codepage = DefaultCodepage
	}
	c, err := store.Create(paths, areas, g.BlockSize, codepage, false)
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
	if err := store.WriteFileAtomic(paths.Base+".df", dfText.Bytes()); err != nil {
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
	// Two workers: one encodes and stores a table while the other builds
	// the indexes of the previous one, and big tables do not wait for each
	// other on this 2-core machine.
	work := make(chan *gen.Table)
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for gt := range work {
				n, b, err := storeTable(db, byNum[gt.Number], gt)
				mu.Lock()
				res.records += n
				res.bytes += b
				if err != nil && firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
		}()
	}
	for _, gt := range g.Tables {
		work <- gt
	}
	close(work)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return res, db.Sync()
}

// storeTable writes one generated table and builds its indexes.
func storeTable(db *store.DB, t *store.Table, gt *gen.Table) (int64, int64, error) {
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
	_, err = buildTableIndexes(db, t, t.Indexes, sortOptions{scanThreads: 1, sortThreads: 1, mergeThreads: 1, pfactor: 100})
	return w.Written(), bytesOut, err
}
