package sim

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/oedl/oedl/internal/sim/msg"
	"github.com/oedl/oedl/internal/sim/store"
	"github.com/oedl/oedl/internal/sysmem"
	"github.com/oedl/oedl/internal/units"
)

// idxbuildParams are the sort parameters of idxbuild, validated as the
// real utility does (KB 000030594): -TB 1..64, -TM 1..32, -TMB >= -TB.
type idxbuildParams struct {
	TB, TM, TMB, SG, TF, B     int
	threadnum, merge, datascan int
	pfactor                    int
	tempDir                    string
	rusage                     bool
}

func parseIdxbuildParams(fs *flagSet, dbDir string) (*idxbuildParams, error) {
	ip := &idxbuildParams{}
	var err error
	get := func(name string, def int) int {
		if err != nil {
			return 0
		}
		var v int
		v, err = fs.intValue(name, def)
		return v
	}
	ip.TB = get("-TB", 8)
	ip.TM = get("-TM", 5)
	ip.TMB = get("-TMB", ip.TB)
	ip.SG = get("-SG", 48)
	ip.TF = get("-TF", 50)
	ip.B = get("-B", 1024)
	ip.threadnum = get("-threadnum", runtime.NumCPU())
	ip.merge = get("-mergethreads", 2)
	ip.datascan = get("-datascanthreads", ip.threadnum)
	ip.pfactor = get("-pfactor", 100)
	if err != nil {
		return nil, err
	}
	if fs.values["-thread"] == "0" {
		ip.threadnum, ip.merge, ip.datascan = 1, 1, 1
	}
	switch {
	case ip.TB < 1 || ip.TB > 64:
		return nil, msg.E("oesim.idx.tb", ip.TB)
	case ip.TM < 1 || ip.TM > 32:
		return nil, msg.E("oesim.idx.tm", ip.TM)
	case ip.TMB < ip.TB:
		return nil, msg.E("oesim.idx.tmb", ip.TMB, ip.TB)
	case ip.TF < 0 || ip.TF > 100:
		return nil, msg.E("oesim.idx.tf", ip.TF)
	case ip.pfactor < 60 || ip.pfactor > 100:
		return nil, msg.E("oesim.idx.pfactor", ip.pfactor)
	case ip.threadnum < 1 || ip.merge < 1 || ip.datascan < 1:
		return nil, msg.E("oesim.idx.threads")
	}
	ip.tempDir = dbDir
	if v, ok := fs.values["-T"]; ok {
		ip.tempDir = v
	}
	ip.rusage = fs.bools["-rusage"]
	return ip, nil
}

// sortMemory is the memory -TF gives idxbuild's sort: tf percent of the
// machine's memory, at most what is available (KB 000037016: min(phys −
// in use, phys × TF/100)). OESIM_MEMORY (e.g. 64MB) stands for the
// machine's memory, all of it available, so that tests can make a sort
// spill. 0 when -TF is 0 or the memory is unknown: the sort file is used.
func sortMemory(tf int) int64 {
	in := sysmem.Read()
	if v := os.Getenv("OESIM_MEMORY"); v != "" {
		if b, err := units.ParseBytes(v); err == nil {
			in = sysmem.Info{Total: b, Available: b}
		}
	}
	budget := in.Total * int64(tf) / 100
	if in.Available > 0 {
		budget = min(budget, in.Available)
	}
	return budget
}

// idxSelection is what to rebuild: per table number, the indexes.
type idxSelection map[int][]*store.Index

func idxbuildQualifier(p *proc, dbArg string, args []string) int {
	fs, err := parseFlags(args, "-TB", "-TM", "-TMB", "-SG", "-TF", "-B", "-thread", "-threadnum", "-mergethreads",
		"-datascanthreads", "-pfactor", "-T", "-SS", "-freeTF")
	if err != nil {
		return p.usage("%v", err)
	}
	p.banner()
	ip, err := parseIdxbuildParams(fs, filepath.Dir(store.PathsFor(dbArg).Base))
	if err != nil {
		return p.failErr(err)
	}
	s, rc := p.open(dbArg, singleOnly)
	if rc != 0 {
		return rc
	}
	defer s.close()
	sel, rc := selectIndexes(p, s.db.Ctl, fs.pos)
	if rc != 0 {
		return rc
	}
	fp := p.env.fault(p, "idxbuild", "")
	if rc := applyEarlyFault(p, fp); rc >= 0 {
		return rc
	}
	if st, err := os.Stat(ip.tempDir); err != nil || !st.IsDir() {
		return p.fail("43", ip.tempDir, 2)
	}
	return runIdxbuild(p, s, sel, ip, fp)
}

// selectIndexes applies the selection words, or the interactive menu read
// from stdin when there are none.
func selectIndexes(p *proc, c *store.Control, pos []string) (idxSelection, int) {
	sel := idxSelection{}
	addTable := func(t *store.Table, keep func(*store.Index) bool) {
		for _, ix := range t.Indexes {
			if keep == nil || keep(ix) {
				sel[t.Number] = append(sel[t.Number], ix)
			}
		}
	}
	if len(pos) == 0 {
		return menuSelection(p, c)
	}
	switch strings.ToLower(pos[0]) {
	case "all":
		for _, t := range c.Tables {
			addTable(t, nil)
		}
	case "activeindexes", "inactiveindexes":
		want := strings.EqualFold(pos[0], "activeindexes")
		for _, t := range c.Tables {
			addTable(t, func(ix *store.Index) bool { return ix.Active == want })
		}
	case "table":
		if len(pos) < 2 {
			return nil, p.usage("idxbuild table needs a table name")
		}
		t := c.Table(pos[1])
		if t == nil {
			return nil, p.fail("oesim.table.notfound", pos[1])
		}
		addTable(t, nil)
	case "area":
		if len(pos) < 2 {
			return nil, p.usage("idxbuild area needs an area name")
		}
		a := c.AreaByName(pos[1])
		if a == nil {
			return nil, p.fail("oesim.area.notfound", pos[1])
		}
		for _, t := range c.Tables {
			addTable(t, func(ix *store.Index) bool { return ix.Area == a.Number })
		}
	case "schema":
		if len(pos) < 2 {
			return nil, p.usage("idxbuild schema needs an owner")
		}
		for _, t := range c.Tables {
			if strings.EqualFold(t.Owner, pos[1]) {
				addTable(t, nil)
			}
		}
	default:
		return nil, p.usage("idxbuild: unknown selection %q", pos[0])
	}
	return sel, 0
}

// menuSelection is the Index Rebuild Utility menu answered on stdin, as
// PCT and ProTop script it ("a", or "some" then table/index pairs up to
// "!", then "y" answers).
func menuSelection(p *proc, c *store.Control) (idxSelection, int) {
	p.msg("idxbuild.title")
	p.msg("idxbuild.underline")
	p.say("")
	p.msg("idxbuild.menu.select")
	for _, k := range []string{"all", "some", "area", "schema", "table", "activation"} {
		p.msg("idxbuild.menu." + k)
	}
	p.say("")
	p.msg("idxbuild.menu.quit")
	p.say("")
	p.msg("idxbuild.menu.prompt")
	sc := bufio.NewScanner(p.stdin)
	next := func() string {
		if sc.Scan() {
			return strings.TrimSpace(sc.Text())
		}
		return "q"
	}
	choice := strings.ToLower(next())
	list := func() []string {
		var out []string
		for w := next(); w != "!" && w != "q"; w = next() {
			if w != "" {
				out = append(out, w)
			}
		}
		return out
	}
	var pos []string
	switch {
	case choice == "a" || choice == "all":
		pos = []string{"all"}
	case choice == "t" || choice == "table":
		sel := idxSelection{}
		for _, name := range list() {
			s2, rc := selectIndexes(p, c, []string{"table", name})
			if rc != 0 {
				return nil, rc
			}
			for k, v := range s2 {
				sel[k] = v
			}
		}
		return sel, 0
	case choice == "r" || choice == "area":
		sel := idxSelection{}
		for _, name := range list() {
			s2, rc := selectIndexes(p, c, []string{"area", name})
			if rc != 0 {
				return nil, rc
			}
			for k, v := range s2 {
				sel[k] = append(sel[k], v...)
			}
		}
		return sel, 0
	case choice == "s" || choice == "some":
		sel := idxSelection{}
		words := list()
		for i := 0; i+1 < len(words); i += 2 {
			t := c.Table(words[i])
			if t == nil {
				return nil, p.fail("oesim.table.notfound", words[i])
			}
			found := false
			for _, ix := range t.Indexes {
				if strings.EqualFold(ix.Name, words[i+1]) {
					sel[t.Number] = append(sel[t.Number], ix)
					found = true
				}
			}
			if !found {
				return nil, p.fail("oesim.index.notfound", words[i+1], t.Name)
			}
		}
		return sel, 0
	case choice == "v":
		a := strings.ToLower(next())
		pos = []string{"inactiveindexes"}
		if strings.HasPrefix(a, "a") {
			pos = []string{"activeindexes"}
		}
	default:
		p.msg("oesim.idx.notperformed")
		return nil, exitFail
	}
	return selectIndexes(p, c, pos)
}

func runIdxbuild(p *proc, s *session, sel idxSelection, ip *idxbuildParams, fp *faultPlan) int {
	start := time.Now()
	s.log("(451) idxbuild session begin.")
	p.msg("idxbuild.title")
	p.msg("idxbuild.underline")
	p.msg("13942", ip.threadnum)
	p.msg("16758", ip.datascan, ip.merge)
	p.msg("16141", ip.TMB, ip.TM, ip.SG, ip.pfactor)
	s.log(fmt.Sprintf("(16141) TMB value is %d, TM value is %d, SG value is %d, packing factor is %d.", ip.TMB, ip.TM, ip.SG, ip.pfactor))
	sortDir := strings.TrimSuffix(ip.tempDir, "/") + "/"
	p.msg("11443", sortDir)
	c := s.db.Ctl
	byArea := map[int][]*store.Table{}
	var all []*store.Index // every selected index, in table order
	ixTable := map[int]*store.Table{}
	ixAreas := map[int]bool{}
	for _, t := range c.Tables {
		ixs, ok := sel[t.Number]
		if !ok {
			continue
		}
		byArea[t.Area] = append(byArea[t.Area], t)
		for _, ix := range ixs {
			all, ixTable[ix.Number] = append(all, ix), t
			ixAreas[ix.Area] = true
		}
	}
	areas := sortedKeys(byArea)
	opt := sortOptions{scanThreads: ip.datascan, sortThreads: ip.threadnum, mergeThreads: ip.merge, pfactor: ip.pfactor,
		io: p.env, sortDir: ip.tempDir, env: p.env, fault: fp, sortMemory: sortMemory(ip.TF)}
	// The indexes being rebuilt are inactive until the end: a rebuild that
	// fails or is killed leaves them so, and they must be rebuilt again.
	if err := markSelected(s.db, sel, false); err != nil {
		return p.failErr(err)
	}
	for _, ix := range all {
		p.msg("8831", ix.Number, ixTable[ix.Number].QualifiedName(), ix.Name)
	}
	// The index areas are scanned first, their old blocks freed.
	for _, a := range sortedKeys(ixAreas) {
		if len(byArea[a]) == 0 {
			p.msg("idxbuild.scan.index", a, 0.0)
			p.rusage(ip.rusage)
		}
	}
	rebuilt, errorsFound := 0, 0
	var totalSort int64
	for _, area := range areas {
		tables := byArea[area]
		areaStart := time.Now()
		p.msg("11463", area)
		p.scanProgress(s, area)
		if a := c.AreaByNumber(area); a != nil && a.BPC > 1 {
			p.msg("idxbuild.scan.record", area, time.Since(areaStart).Seconds())
		} else {
			p.msg("idxbuild.scan.full", area, time.Since(areaStart).Seconds())
		}
		p.rusage(ip.rusage)
		p.msg("14536", ip.datascan)
		var areaSort int64
		groups := map[int][]*store.Index{}
		for _, t := range tables {
			ixs := sel[t.Number]
			res, err := buildTableIndexes(s.db, t, ixs, opt)
			if err != nil {
				var pe *os.PathError
				if m, ok := systemIOError(err); ok {
					p.sayErr(m) // the sort file's write: (290) with its errno
				} else if errors.As(err, &pe) {
					p.msg("oesim.idx.sortio", ioError(err))
				} else {
					p.sayErr(err)
				}
				p.msg("idxbuild.done", 1, time.Since(start).Seconds())
				s.log("Index rebuild complete. 1 error(s) encountered.")
				return exitFail
			}
			areaSort += res.Spilled
			for _, ix := range ixs {
				if d := res.Duplicates[ix.Number]; d > 0 {
					p.msg("oesim.idx.duplicates", ix.Name, t.Name, d)
					errorsFound++
				}
				g := sortGroup(ix.Number, ip.SG)
				groups[g] = append(groups[g], ix)
			}
			rebuilt += len(ixs)
		}
		// Keys are sorted in sort groups (index number modulo -SG), each
		// merged by -mergethreads threads, then the groups are built.
		gs := sortedKeys(groups)
		for _, g := range gs {
			p.msg("idxbuild.sort", g)
			if ip.merge > 1 {
				p.msg("idxbuild.merge", ip.merge, g)
			}
			p.msg("idxbuild.sort.done", g, time.Since(areaStart).Seconds())
		}
		for _, g := range gs {
			for _, ix := range groups[g] {
				p.msg("16757", ix.Number, ix.Name, g)
			}
			p.msg("idxbuild.group.done", g, time.Since(areaStart).Seconds())
		}
		p.msg("idxbuild.sorted", time.Since(areaStart).Seconds())
		p.rusage(ip.rusage)
		n := 0
		for _, t := range tables {
			n += len(sel[t.Number])
		}
		p.msg("16171", n, area, time.Since(areaStart).Seconds())
		p.rusage(ip.rusage)
		p.msg("11480", sortDir, (areaSort+1023)/1024)
		p.msg("11483", (areaSort+1023)/1024, area)
		totalSort += areaSort
	}
	// The areas holding only indexes come last, with nothing to scan.
	for _, a := range sortedKeys(ixAreas) {
		if len(byArea[a]) == 0 {
			p.msg("11463", a)
		}
	}
	// One schema update for every index rebuilt: DB.db is rewritten once.
	if err := markSelected(s.db, sel, true); err != nil {
		return p.failErr(err)
	}
	for _, ix := range all {
		p.msg("8830", ix.Number, ixTable[ix.Number].QualifiedName(), ix.Name)
	}
	s.log(fmt.Sprintf("(11480) Temporary sort file at %s used up %dK of disk space.", sortDir, (totalSort+1023)/1024))
	p.msg("11465", rebuilt)
	// The closing line has no message number: oedl finds it as the line
	// right after (11465), as it must on a real idxbuild.
	p.msg("idxbuild.done", errorsFound, time.Since(start).Seconds())
	p.rusage(ip.rusage)
	s.log(fmt.Sprintf("Index rebuild complete. %d error(s) encountered.", errorsFound))
	if errorsFound > 0 {
		return exitFail
	}
	return exitOK
}

// sortGroup is the sort group of an index: its number modulo -SG, as the
// real idxbuild's "Building index 32 (...) of group 0" lines show for
// -SG 16.
func sortGroup(index, sg int) int {
	if sg <= 0 {
		return 0
	}
	return ((index % sg) + sg) % sg
}

// scanProgress prints the (8367) lines of an area's record scan: about
// eight, every 128 blocks or more, as the real one prints its progress.
func (p *proc) scanProgress(s *session, area int) {
	af, err := s.db.Area(area)
	if err != nil {
		return
	}
	total, err := af.HighWater()
	if err != nil || total <= 0 {
		return
	}
	step := max(int64(128), (total/8+127)/128*128)
	for b := step; b < total; b += step {
		p.msg("8367", b, total, area)
	}
}

// rusage prints idxbuild's -rusage pair of lines.
func (p *proc) rusage(on bool) {
	if !on {
		return
	}
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	p.msg("rusage.cpu", tv(ru.Utime), tv(ru.Stime))
	p.msg("rusage.disk", ru.Inblock/2, 0, ru.Oublock/2, 0)
}

// sortedKeys returns the keys of an int-keyed map in order.
func sortedKeys[V any](m map[int]V) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	return keys
}

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

// markSelected sets the active flag of every selected index in one
// schema change.
func markSelected(db *store.DB, sel idxSelection, active bool) error {
	var states []store.IndexState
	for _, num := range sortedKeys(sel) {
		for _, ix := range sel[num] {
			states = append(states, store.IndexState{Table: num, Index: ix.Number, Active: active})
		}
	}
	return db.SetIndexesActive(states)
}
