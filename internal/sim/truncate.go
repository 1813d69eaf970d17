package sim

import (
	"fmt"
	"os"
	"strings"

	"github.com/oedl/oedl/internal/sim/store"
)

// truncateQualifier: truncate bi [-bi KB] [-biblocksize KB] [-G n] and
// truncate area AREA. Both are single-user only.
func truncateQualifier(p *proc, dbArg string, args []string) int {
	fs, err := parseFlags(args, "-bi", "-biblocksize", "-G")
	if err != nil || len(fs.pos) < 1 {
		return p.usage("usage: proutil db-name -C truncate bi [-bi size] [-biblocksize size] | truncate area area-name")
	}
	switch strings.ToLower(fs.pos[0]) {
	case "bi":
		return truncateBI(p, dbArg, fs)
	case "area":
		if len(fs.pos) != 2 {
			return p.usage("usage: proutil db-name -C truncate area area-name")
		}
		return truncateArea(p, dbArg, fs.pos[1])
	}
	return p.usage("truncate %q is not simulated by oesim (bi, area)", fs.pos[0])
}

func truncateBI(p *proc, dbArg string, fs *flagSet) int {
	bi, err := fs.intValue("-bi", 0)
	if err != nil {
		return p.usage("%v", err)
	}
	bbs, err := fs.intValue("-biblocksize", 0)
	if err != nil {
		return p.usage("%v", err)
	}
	if bi != 0 && (bi < 16 || bi > 262128) {
		return p.fail("oesim.truncate.bi", bi)
	}
	switch bbs {
	case 0, 1, 2, 4, 8, 16:
	default:
		return p.fail("oesim.truncate.biblocksize", bbs)
	}
	p.banner()
	s, rc := p.open(dbArg, singleOnly)
	if rc != 0 {
		return rc
	}
	defer s.close()
	if bbs != 0 && bbs*1024 < s.db.Ctl.BlockSize {
		return p.fail("oesim.truncate.bismall", bbs)
	}
	err = s.db.Update(func(c *store.Control) error {
		if bi != 0 {
			c.BIClusterKB = (bi + 15) / 16 * 16
		}
		if bbs != 0 {
			c.BIBlockKB = bbs
		}
		return nil
	})
	if err != nil {
		return p.failErr(err)
	}
	for _, a := range s.db.Ctl.Areas {
		if a.Type != 'b' {
			continue
		}
		for _, e := range a.Extents {
			if !e.Fixed {
				if err := os.Truncate(e.Path, 0); err != nil {
					return p.failErr(err)
				}
			}
		}
	}
	c := s.db.Ctl
	p.msg("1620", c.BIClusterKB)
	p.msg("3781", c.BIBlockKB, c.BIBlockKB*1024)
	s.log(fmt.Sprintf("(1620) Before-image cluster size set to %d kb.", c.BIClusterKB))
	return exitOK
}

func truncateArea(p *proc, dbArg, name string) int {
	p.banner()
	s, rc := p.open(dbArg, singleOnly)
	if rc != 0 {
		return rc
	}
	defer s.close()
	a := s.db.Ctl.AreaByName(name)
	if a == nil || a.Type != 'd' {
		return p.fail("oesim.area.notfound.db", name, s.paths.Base)
	}
	af, err := s.db.Area(a.Number)
	if err != nil {
		return p.failErr(err)
	}
	// The records of the tables in the area go, and with them every key of
	// their indexes, wherever those live; the indexes stay active (an empty
	// index over an empty table is consistent).
	for _, t := range s.db.Ctl.Tables {
		if t.Area != a.Number {
			continue
		}
		for _, ix := range t.Indexes {
			if ix.Area == a.Number {
				continue
			}
			ia, err := s.db.Area(ix.Area)
			if err == nil {
				err = ia.Free(store.KindIndex, ix.Number)
			}
			if err != nil {
				return p.failErr(err)
			}
		}
	}
	if err := af.Truncate(); err != nil {
		return p.failErr(err)
	}
	p.msg("oesim.truncate.area", a.Name, a.Number)
	s.log(fmt.Sprintf("Area %q (%d) truncated.", a.Name, a.Number))
	return exitOK
}
