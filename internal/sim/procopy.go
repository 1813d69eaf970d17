package sim

import (
	"fmt"

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
		return p.fail("** The database %s already exists. (oesim)", fs.pos[0])
	}
	return copyDatabase(p, src, fs.pos[0], false)
}

func copyDatabase(p *proc, srcArg, dstArg string, procopy bool) int {
	srcPaths, dstPaths := store.PathsFor(srcArg), store.PathsFor(dstArg)
	src, err := store.Open(srcPaths)
	if err != nil {
		return p.fail("%v", err)
	}
	defer src.Close()
	if src.Ctl.Void {
		return p.fail("** The source database %s is a void database. (oesim)", srcPaths.Base)
	}
	if !dstPaths.Exists() {
		if _, err := store.Create(dstPaths, store.DefaultAreas(dstPaths, src.Ctl.BlockSize), src.Ctl.BlockSize, src.Ctl.Codepage, true); err != nil {
			return p.fail("%v", err)
		}
	}
	s, rc := p.open(dstArg, singleOnly)
	if rc != 0 {
		return rc
	}
	defer s.close()
	dst := s.db
	if !dst.Ctl.Void {
		return p.fail("** The target database %s already holds a schema; procopy needs a void database. (oesim)", dstPaths.Base)
	}
	if dst.Ctl.BlockSize != src.Ctl.BlockSize {
		return p.fail("** The block size of %s (%d) is not that of %s (%d). (oesim)", srcPaths.Base, src.Ctl.BlockSize,
			dstPaths.Base, dst.Ctl.BlockSize)
	}
	for _, t := range src.Ctl.Tables {
		if dst.Ctl.AreaByNumber(t.Area) == nil {
			return p.fail("** Area %d of table %s does not exist in %s. (oesim)", t.Area, t.QualifiedName(), dstPaths.Base)
		}
	}
	for _, t := range src.Ctl.Tables {
		af, err := dst.Area(t.Area)
		if err != nil {
			return p.fail("%v", err)
		}
		w := store.NewRecordWriter(af, t.Number)
		err = src.ForEachRecord(t, func(rec []byte, _ int64) error { return w.Add(rec) })
		if err == nil {
			err = w.Flush()
		}
		if err != nil {
			return p.fail("%v", err)
		}
	}
	err = dst.Update(func(c *store.Control) error {
		c.Void = false
		c.Codepage = src.Ctl.Codepage
		c.Tables = src.Ctl.Tables
		c.Sequences = src.Ctl.Sequences
		c.NextTable, c.NextIndex = src.Ctl.NextTable, src.Ctl.NextIndex
		return nil
	})
	if err != nil {
		return p.fail("%v", err)
	}
	for _, t := range src.Ctl.Tables {
		if err := rebuildIndexes(dst, t, t.Indexes, sortOptions{pfactor: 100}); err != nil {
			return p.fail("%v", err)
		}
	}
	if procopy {
		p.say("Database copied from %s. (1365)", srcPaths.Base)
	} else {
		p.say("%s", fmt.Sprintf("Database %s created from %s. (oesim)", dstPaths.Base, srcPaths.Base))
	}
	s.log(fmt.Sprintf("(1365) Database copied from %s.", srcPaths.Base))
	return exitOK
}
