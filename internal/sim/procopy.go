package sim

import (
	"fmt"
	"time"

	"github.com/oedl/oedl/internal/openedge"

	"github.com/oedl/oedl/internal/sim/store"
)

// runProcopy: procopy SOURCE TARGET [-newinstance] [-relative].
//
// Onto a void database made by prostrct create, procopy installs the
// source's schema and data (for $DLC/emptyN: the meta-schema only), and the
// block sizes must agree. To a new name, it creates the target with the
// default structure first. Either way the target is opened single-user.
func runProcopy(p *proc) int {
	fs, err := parseFlags(p.args)
	if err != nil || len(fs.pos) != 2 {
		return p.usage("usage: procopy source-db target-db [-newinstance] [-relative]")
	}
	if _, ok := p.dlc(); !ok {
		return exitFail
	}
	return copyDatabase(p, fs.pos[0], fs.pos[1], true)
}

// runProdb: prodb TARGET empty|SOURCE. "empty" is $DLC/empty.
func runProdb(p *proc) int {
	fs, err := parseFlags(p.args)
	if err != nil || len(fs.pos) < 1 || len(fs.pos) > 2 {
		return p.usage("usage: prodb new-db [empty|source-db]")
	}
	dlc, ok := p.dlc()
	if !ok {
		return exitFail
	}
	src := dlc + "/empty"
	if len(fs.pos) == 2 && fs.pos[1] != "empty" {
		src = fs.pos[1]
	}
	if store.PathsFor(fs.pos[0]).Exists() {
		return p.fail("oesim.db.exists", fs.pos[0])
	}
	return copyDatabase(p, src, fs.pos[0], false)
}

func copyDatabase(p *proc, srcArg, dstArg string, procopy bool) int {
	srcPaths, dstPaths := store.PathsFor(srcArg), store.PathsFor(dstArg)
	src, err := store.Open(srcPaths)
	if err != nil {
		return p.failErr(err)
	}
	defer src.Close()
	if src.Ctl.Void {
		return p.fail("oesim.db.void.source", srcPaths.Base)
	}
	if !dstPaths.Exists() {
		areas := store.DefaultAreas(dstPaths, src.Ctl.BlockSize)
		// prodb keeps the source's pathname convention, procopy makes an
		// absolute-path database (Progress: "PRODB maintains pathname
		// convention", "PROCOPY uses absolute pathnames").
		if !procopy && src.Ctl.RelativePath() {
			if err := store.MakeRelative(dstPaths, areas); err != nil {
				return p.failErr(err)
			}
		}
		if _, err := store.Create(dstPaths, areas, src.Ctl.BlockSize, src.Ctl.Codepage, true, p.storeRoom()); err != nil {
			return p.failErr(err)
		}
	}
	s, rc := p.open(dstArg, singleOnly)
	if rc != 0 {
		return rc
	}
	defer s.close()
	dst := s.db
	if !dst.Ctl.Void {
		return p.fail("oesim.db.hasschema", dstPaths.Base)
	}
	if dst.Ctl.BlockSize != src.Ctl.BlockSize {
		return p.fail("oesim.db.blocksize", srcPaths.Base, src.Ctl.BlockSize,
			dstPaths.Base, dst.Ctl.BlockSize)
	}
	for _, t := range src.Ctl.Tables {
		if dst.Ctl.AreaByNumber(t.Area) == nil {
			return p.fail("oesim.procopy.area", t.Area, t.QualifiedName(), dstPaths.Base)
		}
	}
	if procopy {
		p.msg("6715", srcPaths.Base, dstPaths.Name())
		p.msg("6718")
	}
	// procopy writes the source's blocks below their high-water marks
	// ((6720) counts them) into the target's areas.
	if p.room != nil {
		af, err := dst.Area(openedge.SchemaAreaNum)
		if err == nil {
			err = p.room.takeArea(af, copiedBlocks(src)*int64(src.Ctl.BlockSize))
		}
		if err != nil {
			return p.failErr(err)
		}
	}
	progress := copyProgress{p: p, on: procopy, total: len(src.Ctl.Tables)}
	for _, t := range src.Ctl.Tables {
		af, err := dst.Area(t.Area)
		if err != nil {
			return p.failErr(err)
		}
		w := store.NewRecordWriter(af, t.Number)
		err = src.ForEachRecord(t, func(rec []byte, _ int64) error { return w.Add(rec) })
		if err == nil {
			err = w.Flush()
		}
		if err != nil {
			return p.failErr(err)
		}
		progress.step()
	}
	progress.finish()
	err = dst.Update(func(c *store.Control) error {
		c.Void = false
		c.Codepage = src.Ctl.Codepage
		c.Tables = src.Ctl.Tables
		c.Sequences = src.Ctl.Sequences
		// The meta-schema rows come too: procopy copies the whole
		// database, its users, grants and views with it.
		c.Security = src.Ctl.Security
		c.NextTable, c.NextIndex = src.Ctl.NextTable, src.Ctl.NextIndex
		return nil
	})
	if err != nil {
		return p.failErr(err)
	}
	for _, t := range src.Ctl.Tables {
		if err := rebuildIndexes(dst, t, t.Indexes, sortOptions{pfactor: 100}); err != nil {
			return p.failErr(err)
		}
	}
	if procopy {
		p.msg("6720", copiedBlocks(src))
		p.msg("6722")
		p.msg("1365", srcPaths.Base)
	} else {
		p.msg("oesim.procopy.created", dstPaths.Base, srcPaths.Base)
	}
	s.log(fmt.Sprintf("(1365) Database copied from %s.", srcPaths.Base))
	return exitOK
}

// copyProgress prints procopy's "HH:MM:SS 10 Percent complete." lines,
// one per tenth of the tables copied (all ten, as the real one does for
// a small database).
type copyProgress struct {
	p            *proc
	on           bool
	total, done  int
	printedTenth int
}

func (c *copyProgress) step() {
	c.done++
	c.upTo(c.done * 10 / max(1, c.total))
}

// finish prints the tenths not printed yet (all of them for a database
// without tables, such as $DLC/empty8).
func (c *copyProgress) finish() { c.upTo(10) }

func (c *copyProgress) upTo(tenth int) {
	for c.on && c.printedTenth < tenth {
		c.printedTenth++
		c.p.msg("procopy.percent", time.Now().Format("15:04:05"), c.printedTenth*10)
	}
}

// copiedBlocks is what (6720) counts: the blocks of the source below the
// high-water mark of its areas.
func copiedBlocks(src *store.DB) int64 {
	var n int64
	for _, a := range src.Ctl.Areas {
		if af, err := src.Area(a.Number); err == nil {
			if hw, err := af.HighWater(); err == nil {
				n += hw
			}
		}
	}
	return n
}
