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
		return nil, fmt.Errorf("** -TB %d is not valid: the sort block size is 1 to 64 KB. (oesim)", ip.TB)
	case ip.TM < 1 || ip.TM > 32:
		return nil, fmt.Errorf("** -TM %d is not valid: the merge number is 1 to 32. (oesim)", ip.TM)
	case ip.TMB < ip.TB:
		return nil, fmt.Errorf("** -TMB %d is smaller than -TB %d; the merge block size must be at least the sort block size. (oesim)", ip.TMB, ip.TB)
	case ip.TF < 0 || ip.TF > 100:
		return nil, fmt.Errorf("** -TF %d is not a percentage. (oesim)", ip.TF)
	case ip.pfactor < 60 || ip.pfactor > 100:
		return nil, fmt.Errorf("** -pfactor %d is not valid: the packing factor is 60 to 100. (oesim)", ip.pfactor)
	case ip.threadnum < 1 || ip.merge < 1 || ip.datascan < 1:
		return nil, fmt.Errorf("** thread counts must be positive. (oesim)")
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
		return p.fail("%v", err)
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
		return p.fail("** Cannot find or open file %s, errno = 2. (43)", ip.tempDir)
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
			return nil, p.fail("** Table %s was not found in the database. (oesim)", pos[1])
		}
		addTable(t, nil)
	case "area":
		if len(pos) < 2 {
			return nil, p.usage("idxbuild area needs an area name")
		}
		a := c.AreaByName(pos[1])
		if a == nil {
			return nil, p.fail("** Area %q was not found in the database. (oesim)", pos[1])
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
	p.say("Index Rebuild Utility")
	p.say("=====================")
	p.say("")
	p.say("Select one of the following:")
	p.say("All (a/A) - Rebuild all the indexes")
	p.say("Some (s/S) - Rebuild only some of the indexes")
	p.say("By Area (r/R) - Rebuild indexes in selected areas")
	p.say("By Schema (c/C) - Rebuild indexes by schema owners")
	p.say("By Table (t/T) - Rebuild indexes in selected tables")
	p.say("By Activation (v/V) - Rebuild selected active or inactive indexes")
	p.say("")
	p.say("Quit (q/Q) - Quit, do not rebuild")
	p.say("")
	p.say("Enter your selection:")
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
				return nil, p.fail("** Table %s was not found in the database. (oesim)", words[i])
			}
			found := false
			for _, ix := range t.Indexes {
				if strings.EqualFold(ix.Name, words[i+1]) {
					sel[t.Number] = append(sel[t.Number], ix)
					found = true
				}
			}
			if !found {
				return nil, p.fail("** Index %s of table %s was not found. (oesim)", words[i+1], t.Name)
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
		p.say("Index rebuild not performed. (oesim)")
		return nil, exitFail
	}
	return selectIndexes(p, c, pos)
}

func runIdxbuild(p *proc, s *session, sel idxSelection, ip *idxbuildParams, fp *faultPlan) int {
	start := time.Now()
	s.log("(451) idxbuild session begin.")
	p.say("TB value is %d, TM value is %d, SG value is %d, packing factor is %d. (13943)", ip.TB, ip.TM, ip.SG, ip.pfactor)
	s.log(fmt.Sprintf("(13943) TB value is %d, TM value is %d, SG value is %d, packing factor is %d.", ip.TB, ip.TM, ip.SG, ip.pfactor))
	c := s.db.Ctl
	byArea := map[int][]*store.Table{}
	for num := range sel {
		t := c.TableByNumber(num)
		byArea[t.Area] = append(byArea[t.Area], t)
	}
	areas := make([]int, 0, len(byArea))
	for a := range byArea {
		areas = append(areas, a)
	}
	sort.Ints(areas)
	opt := sortOptions{scanThreads: ip.datascan, sortThreads: ip.threadnum, mergeThreads: ip.merge, pfactor: ip.pfactor,
		charge: p.env.charge, sortDir: ip.tempDir, env: p.env, fault: fp, sortMemory: sortMemory(ip.TF)}
	// The indexes being rebuilt are inactive until the end: a rebuild that
	// fails or is killed leaves them so, and they must be rebuilt again.
	if err := markSelected(s.db, sel, false); err != nil {
		p.say("** %v", err)
		return exitFail
	}
	rebuilt, errorsFound := 0, 0
	var totalSort int64
	for _, area := range areas {
		tables := byArea[area]
		sort.Slice(tables, func(i, j int) bool { return tables[i].Number < tables[j].Number })
		areaStart := time.Now()
		p.say("Processing area %d : (11463)", area)
		if ip.datascan > 1 {
			p.say("Start %d threads for the area. (14536)", ip.datascan)
		}
		var areaSort int64
		for _, t := range tables {
			ixs := sel[t.Number]
			res, err := buildTableIndexes(s.db, t, ixs, opt)
			if err != nil {
				var pe *os.PathError
				if errors.As(err, &pe) {
					p.say("SYSTEM ERROR: I/O error writing the sort file: %s", ioErrorText(err))
				} else {
					p.say("** %v", err)
				}
				p.say("Index rebuild complete. 1 error(s) encountered.")
				s.log("Index rebuild complete. 1 error(s) encountered.")
				return exitFail
			}
			areaSort += res.Spilled
			for _, ix := range ixs {
				p.say("Building index %d (%s) of group %d", ix.Number, ix.Name, area)
				if d := res.Duplicates[ix.Number]; d > 0 {
					p.say("** Unique index %s of table %s has %d duplicate key(s). (oesim)", ix.Name, t.Name, d)
					errorsFound++
				}
			}
			rebuilt += len(ixs)
		}
		p.say("Area %d: Multi-threaded record scan (Type II) complete. Elapsed time: %.3f", area, time.Since(areaStart).Seconds())
		if ip.merge > 1 {
			p.say("Spawning %d threads for merging of group %d.", ip.merge, area)
		}
		p.say("Building of indexes in group %d completed. Elapsed time: %.3f", area, time.Since(areaStart).Seconds())
		p.say("A total of %dK of temporary sort disk space was used for area %d. (11483)", (areaSort+1023)/1024, area)
		totalSort += areaSort
	}
	// One schema update for every index rebuilt: DB.db is rewritten once.
	if err := markSelected(s.db, sel, true); err != nil {
		p.say("** %v", err)
		return exitFail
	}
	p.say("Multi-threaded index sorting and building complete. Elapsed time: %.3f", time.Since(start).Seconds())
	s.log(fmt.Sprintf("(11480) Temporary sort file at %s used up %dK of disk space.", ip.tempDir, (totalSort+1023)/1024))
	p.say("%d indexes were rebuilt. (11465)", rebuilt)
	p.say("Index rebuild complete. %d error(s) encountered.", errorsFound)
	if ip.rusage {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		p.say("Resource usage: CPU user %.6f, system %.6f", tv(ru.Utime), tv(ru.Stime))
		p.say(": DISK reads: %d KB at 0 MB/sec, writes: %d KB at 0 MB/sec", ru.Inblock/2, ru.Oublock/2)
	}
	s.log(fmt.Sprintf("Index rebuild complete. %d error(s) encountered.", errorsFound))
	if errorsFound > 0 {
		return exitFail
	}
	return exitOK
}

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

// markSelected sets the active flag of every selected index in one
// DB.db rewrite.
func markSelected(db *store.DB, sel idxSelection, active bool) error {
	return db.Update(func(c *store.Control) error {
		for num, ixs := range sel {
			t := c.TableByNumber(num)
			if t == nil {
				return fmt.Errorf("table number %d vanished from the schema", num)
			}
			for _, ix := range t.Indexes {
				for _, sel := range ixs {
					if sel.Number == ix.Number {
						ix.Active = active
					}
				}
			}
		}
		return nil
	})
}
