package sim

import (
	"fmt"

	"github.com/oedl/oedl/internal/sim/store"
)

// tablemoveQualifier: tablemove [owner.]table table-area [index-area]. The
// records are copied to the new area and freed in the old one, and the
// indexes are rebuilt (in index-area when given), as OpenEdge always
// rebuilds them on a move.
func tablemoveQualifier(p *proc, dbArg string, args []string) int {
	fs, err := parseFlags(args)
	if err != nil || len(fs.pos) < 2 {
		return p.usage("usage: proutil db-name -C tablemove [owner-name.]table-name table-area [index-area]")
	}
	p.banner()
	s, rc := p.open(dbArg, client)
	if rc != 0 {
		return rc
	}
	defer s.close()
	t := s.db.Ctl.Table(fs.pos[0])
	if t == nil {
		return p.fail("oesim.table.notfound.db", fs.pos[0], s.paths.Base)
	}
	to := s.db.Ctl.AreaByName(fs.pos[1])
	if to == nil || to.Type != 'd' {
		return p.fail("oesim.area.notfound.db", fs.pos[1], s.paths.Base)
	}
	var ixArea *store.Area
	if len(fs.pos) > 2 {
		if ixArea = s.db.Ctl.AreaByName(fs.pos[2]); ixArea == nil || ixArea.Type != 'd' {
			return p.fail("oesim.area.notfound.db", fs.pos[2], s.paths.Base)
		}
	}
	from := t.Area
	if from != to.Number {
		af, err := s.db.Area(to.Number)
		if err != nil {
			return p.failErr(err)
		}
		w := store.NewRecordWriter(af, t.Number)
		err = s.db.ForEachRecord(t, func(rec []byte, _ int64) error { return w.Add(rec) })
		if err == nil {
			err = w.Flush()
		}
		if err != nil {
			return p.failErr(err)
		}
		old, err := s.db.Area(from)
		if err == nil {
			err = old.Free(store.KindRecords, t.Number)
		}
		if err != nil {
			return p.failErr(err)
		}
	}
	err = s.db.Update(func(c *store.Control) error {
		ct := c.TableByNumber(t.Number)
		ct.Area = to.Number
		for _, ix := range ct.Indexes {
			if ixArea != nil && ix.Area != ixArea.Number {
				if old := c.AreaByNumber(ix.Area); old != nil {
					if af, err := s.db.Area(ix.Area); err == nil {
						af.Free(store.KindIndex, ix.Number)
					}
				}
				ix.Area = ixArea.Number
			}
		}
		return nil
	})
	if err != nil {
		return p.failErr(err)
	}
	t = s.db.Ctl.TableByNumber(t.Number)
	if err := rebuildIndexes(s.db, t, t.Indexes, sortOptions{scanThreads: 1, sortThreads: 2, pfactor: 100, io: p.env}); err != nil {
		return p.failErr(err)
	}
	p.msg("oesim.tablemove.done", t.QualifiedName(), from, to.Name, to.Number)
	s.log(fmt.Sprintf("tablemove %s to area %d", t.QualifiedName(), to.Number))
	return exitOK
}
