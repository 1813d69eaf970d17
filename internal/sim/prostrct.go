package sim

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/oedl/oedl/internal/atomicfile"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/sim/msg"
	"github.com/oedl/oedl/internal/sim/store"
)

// runProstrct: prostrct create|list|add DB ...
func runProstrct(p *proc) int {
	if len(p.args) < 2 {
		return p.usage("usage: prostrct create|list|add db-name [structure-file] [-blocksize N] [-validate]")
	}
	verb, rest := strings.ToLower(p.args[0]), p.args[1:]
	switch verb {
	case "create":
		return prostrctCreate(p, rest)
	case "list":
		return prostrctList(p, rest)
	case "add":
		return prostrctAdd(p, rest)
	}
	return p.usage("unknown qualifier %q (oesim knows create, list, add)", verb)
}

// readStructure parses and validates a .st, printing what is wrong.
func readStructure(p *proc, path string) (*openedge.Structure, int) {
	f, err := os.Open(path)
	if err != nil {
		return nil, p.fail("43", path, 2)
	}
	defer f.Close()
	st, err := openedge.ParseStructure(f, path)
	if err == nil {
		err = st.Validate()
	}
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			p.say("%s", line)
		}
		return nil, p.fail("oesim.st.invalid", path)
	}
	return st, 0
}

// refuseLargeFiles: on an installation without large files
// (OESIM_LARGE_FILES=no) an extent of 2 GiB or more, fixed or a variable
// extent's maximum, cannot be created; every such line is named.
func refuseLargeFiles(p *proc, st *openedge.Structure, blockSize int) int {
	if p.env == nil || !p.env.noLargeFiles {
		return 0
	}
	big := st.LargeFileExtents(blockSize)
	for _, e := range big {
		p.msg("oesim.st.largefiles", st.Source, e.Line, openedge.RoundExtentKB(e.SizeKB, blockSize), openedge.MaxExtentKBWithoutLargeFiles(blockSize))
	}
	if len(big) > 0 {
		return p.fail("oesim.st.invalid", st.Source)
	}
	return 0
}

func prostrctCreate(p *proc, args []string) int {
	fs, err := parseFlags(args, "-blocksize")
	if err != nil || len(fs.pos) < 1 {
		return p.usage("usage: prostrct create db-name [structure-file] [-blocksize N] [-validate]")
	}
	paths := store.PathsFor(fs.pos[0])
	stPath := paths.Base + ".st"
	if len(fs.pos) > 1 {
		stPath = fs.pos[1]
	}
	bs, err := fs.intValue("-blocksize", 8192)
	if err != nil {
		return p.usage("%v", err)
	}
	st, rc := readStructure(p, stPath)
	if rc != 0 {
		return rc
	}
	if rc := refuseLargeFiles(p, st, bs); rc != 0 {
		return rc
	}
	areas, err := areasFromStructure(paths, st, bs)
	if err != nil {
		return p.failErr(err)
	}
	if fs.bools["-validate"] {
		// The create's every check, and the room its fixed extents take
		// (Progress, "Validating structure description files": the file
		// is checked and "PROSTRCT determines if there is currently
		// sufficient disk space to create the new extents"); nothing is
		// written. (store.Create makes the same checks first itself.)
		if err := store.CheckCreate(paths, areas, bs); err != nil {
			return p.failErr(err)
		}
		if rc := refuseNoRoom(p, areas); rc != 0 {
			return rc
		}
		p.msg("oesim.st.valid", stPath)
		return exitOK
	}
	started := time.Now()
	if _, err := store.Create(paths, areas, bs, "", true, p.storeRoom()); err != nil {
		return p.failErr(err)
	}
	// Formatting writes every block of the fixed extents, in order.
	var fixedKB int64
	for _, a := range areas {
		for _, e := range a.Extents {
			if e.Fixed {
				fixedKB += e.SizeKB
			}
		}
	}
	if err := p.env.seqWrite(fixedKB * 1024); err != nil {
		return p.failErr(err)
	}
	printFormatted(p, areas, time.Since(started))
	logLine(paths.Log(), "prostrct", fmt.Sprintf("Database %s created from %s, block size %d.", paths.Base, stPath, bs))
	return exitOK
}

// areasFromStructure turns a .st into areas with numbers and extent files,
// as prostrct does: numbers from 7 where the file gives none, default RPB
// and BPC, fixed sizes rounded to 16 blocks, a directory path expanded to
// db.b1, db.d1, db_N.dM. Relative paths are relative to the current
// directory, as for the real prostrct. Two extents on one file are an
// error naming the line.
func areasFromStructure(paths store.Paths, st *openedge.Structure, bs int) ([]*store.Area, error) {
	var out []*store.Area
	files := newExtentFiles(st.Source, paths)
	// The areas prostrct adds when the .st has none hold their files first.
	defaults := store.DefaultAreas(paths, bs)
	addRecovery, addSchema := true, true
	for _, sa := range st.Areas {
		addRecovery = addRecovery && sa.Type != openedge.AreaBeforeImage
		addSchema = addSchema && !(sa.Type == openedge.AreaData && strings.EqualFold(sa.Name, openedge.SchemaAreaName))
	}
	for _, d := range []struct {
		add  bool
		area *store.Area
	}{{addRecovery, defaults[0]}, {addSchema, defaults[1]}} {
		if d.add {
			files.hold(d.area.Extents[0].Path, "the extent of the "+d.area.Name+" that prostrct adds by default")
		}
	}
	next := openedge.FirstUserAreaNum
	for _, sa := range st.Areas {
		if sa.Number >= next {
			next = sa.Number + 1
		}
	}
	counts := map[byte]int{}
	for _, sa := range st.Areas {
		a := &store.Area{Name: sa.Name, Type: byte(sa.Type), RPB: sa.RPB, BPC: sa.BPC, Number: sa.Number}
		switch {
		case a.Type == 'b':
			a.Number, a.Name = openedge.PrimaryRecovery, "Primary Recovery Area"
		case a.Type == 'd' && strings.EqualFold(a.Name, openedge.SchemaAreaName):
			a.Number, a.Name = openedge.SchemaAreaNum, openedge.SchemaAreaName
			a.RPB, a.BPC = store.DefaultRPB(bs), 1
		case a.Number == 0:
			a.Number = next
			next++
		}
		if a.Type == 'd' || a.Type == 'e' {
			if a.RPB == 0 {
				a.RPB = store.DefaultRPB(bs)
			}
			if a.BPC == 0 {
				a.BPC = 1
				if a.Type == 'e' {
					a.BPC = 8 // the Encryption Policy Area is Type II: CLUSTERSIZE_DEFAULT
				}
			}
		}
		if a.Type == 'a' || a.Type == 't' {
			a.Name = fmt.Sprintf("%s Area %d", map[byte]string{'a': "After Image", 't': "Transaction Log"}[a.Type], counts[a.Type]+1)
		}
		for _, e := range sa.Extents {
			m := 1
			if a.Type == 'd' || a.Type == 'e' {
				m = len(a.Extents) + 1
			} else {
				counts[a.Type]++
				m = counts[a.Type]
			}
			path, err := extentPath(paths, e.Path, a.Type, a.Number, m)
			if err != nil {
				return nil, err
			}
			if err := files.claim(path, e.Line); err != nil {
				return nil, err
			}
			ext := store.Extent{Path: path, Fixed: e.Fixed}
			if e.Fixed {
				ext.SizeKB = openedge.RoundExtentKB(e.SizeKB, bs)
			}
			a.Extents = append(a.Extents, ext)
		}
		if a.Type == 'a' || a.Type == 't' {
			a.Number = next
			next++
		}
		out = append(out, a)
	}
	if addSchema {
		out = append(out, defaults[1])
	}
	if addRecovery {
		out = append([]*store.Area{defaults[0]}, out...)
	}
	return out, nil
}

// extentPath expands a .st path: a directory gives the standard file name.
func extentPath(paths store.Paths, path string, typ byte, area, m int) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if st, err := os.Stat(abs); err == nil && st.IsDir() || path == "." || strings.HasSuffix(path, "/") {
		return paths.ExtentName(abs, typ, area, m), nil
	}
	return abs, nil
}

func prostrctList(p *proc, args []string) int {
	fs, err := parseFlags(args)
	if err != nil || len(fs.pos) < 1 {
		return p.usage("usage: prostrct list db-name [structure-file]")
	}
	paths := store.PathsFor(fs.pos[0])
	c, err := store.ReadControl(paths)
	if err != nil {
		return p.failErr(err)
	}
	out := paths.Base + ".st"
	if len(fs.pos) > 1 {
		out = fs.pos[1]
	}
	st := structureOf(c)
	var buf bytes.Buffer
	if err := openedge.WriteStructure(&buf, st); err != nil {
		return p.failErr(err)
	}
	if err := atomicfile.WriteFileNoSync(out, buf.Bytes()); err != nil {
		return p.failErr(err)
	}
	p.say("Area Name: Control Area, Type 6, Block Size %d, Extents 1, Records/Block 32, Cluster Size 1", c.BlockSize)
	control := paths.Control()
	if c.RelativePath() {
		control = "./" + filepath.Base(control) // as prostrct list shows a relative-path database
	}
	p.say("   Ext # 1, Type VARIABLE, Size 32 KByte, Name: %s", control)
	p.say("")
	for _, a := range c.Areas {
		typ := map[byte]int{'b': 3, 'd': 6, 'a': 7, 't': 4}[a.Type]
		if a.Type == 'd' {
			p.say("Area Name: %s, Type %d, Block Size %d, Extents %d, Records/Block %d, Cluster Size %d", a.Name, typ, c.BlockSize, len(a.Extents), a.RPB, a.BPC)
		} else {
			p.say("Area Name: %s, Type %d, Block Size %d, Extents %d", a.Name, typ, c.BlockSize, len(a.Extents))
		}
		for i, e := range a.Extents {
			kind, size := "VARIABLE", extentSizeKB(e)
			if e.Fixed {
				kind = "FIXED"
			}
			p.say("   Ext # %d, Type %s, Size %d KByte, Name: %s", i+1, kind, size, storedPath(e))
		}
		p.say("")
	}
	return exitOK
}

func extentSizeKB(e store.Extent) int64 {
	if e.Fixed {
		return e.SizeKB
	}
	if st, err := os.Stat(e.Path); err == nil {
		return st.Size() / 1024
	}
	return 0
}

// storedPath is an extent's path as the control area holds it: relative
// to the .db's directory in a relative-path database.
func storedPath(e store.Extent) string {
	if e.Relative != "" {
		return e.Relative
	}
	return e.Path
}

// structureOf is the .st that describes a database as it is.
func structureOf(c *store.Control) *openedge.Structure {
	st := &openedge.Structure{}
	for _, a := range c.Areas {
		sa := &openedge.StructArea{Type: openedge.AreaType(a.Type)}
		if a.Type == 'd' || a.Type == 'e' {
			sa.Name, sa.Number, sa.RPB, sa.BPC = a.Name, a.Number, a.RPB, a.BPC
		}
		for _, e := range a.Extents {
			sa.Extents = append(sa.Extents, openedge.Extent{Path: storedPath(e), Fixed: e.Fixed, SizeKB: e.SizeKB})
		}
		st.Areas = append(st.Areas, sa)
	}
	return st
}

func prostrctAdd(p *proc, args []string) int {
	fs, err := parseFlags(args)
	if err != nil || len(fs.pos) < 2 {
		return p.usage("usage: prostrct add db-name structure-file [-validate]")
	}
	s, rc := p.open(fs.pos[0], singleOnly)
	if rc != 0 {
		p.msg("12867")
		return rc
	}
	defer s.close()
	st, rc := readStructure(p, fs.pos[1])
	if rc == 0 {
		rc = refuseLargeFiles(p, st, s.db.Ctl.BlockSize)
	}
	if rc != 0 {
		p.msg("12867")
		return rc
	}
	if fs.bools["-validate"] {
		p.msg("oesim.st.valid", fs.pos[1])
		return exitOK
	}
	// Adding areas or extents makes a relative-path database an
	// absolute-path one (Progress: "PROSTRCT ADD and pathnames").
	var formatted int64
	err = s.db.Update(func(c *store.Control) error {
		c.MakeAbsolute()
		var err error
		formatted, err = addAreas(s.paths, c, st, p.storeRoom())
		return err
	})
	if err == nil {
		// The blocks of the new fixed extents are formatted, in order, as
		// prostrct create's are.
		err = p.env.seqWrite(formatted)
	}
	if err != nil {
		p.sayErr(err)
		return p.fail("12867")
	}
	s.log("prostrct add " + fs.pos[1])
	return exitOK
}

// addAreas merges new areas and extents into a database. Adding extents to
// an existing area turns its variable extent into a fixed one of its
// current size, as prostrct add does. Everything is checked (numbers,
// extent files) before any file is touched, so that a refused .st leaves
// the database as it was. It returns the bytes of fixed extent it
// formatted; room is what the call may write (nil: the filesystem's).
func addAreas(paths store.Paths, c *store.Control, st *openedge.Structure, room store.Room) (int64, error) {
	files := newExtentFiles(st.Source, paths)
	for _, a := range c.Areas {
		for i, e := range a.Extents {
			files.hold(e.Path, fmt.Sprintf("extent %d of area %q", i+1, a.Name))
		}
	}
	next := openedge.FirstUserAreaNum
	for _, a := range c.Areas {
		if a.Number >= next {
			next = a.Number + 1
		}
	}
	// change is what one area of the .st does to the database's files.
	type change struct {
		area      *store.Area
		fresh     bool
		start     int  // first extent added
		fixedLast bool // the variable extent before start became fixed
	}
	var changes []change
	for _, sa := range st.Areas {
		if sa.Type != openedge.AreaData {
			return 0, msg.E("oesim.st.addarea", sa.Line)
		}
		ch := change{area: c.AreaByName(sa.Name)}
		a := ch.area
		if ch.fresh = a == nil; ch.fresh {
			num := sa.Number
			if num == 0 {
				num = next
			}
			if c.AreaByNumber(num) != nil {
				return 0, msg.E("oesim.area.number.used", num)
			}
			next = max(next, num+1)
			a = &store.Area{Number: num, Name: sa.Name, Type: 'd', RPB: sa.RPB, BPC: sa.BPC}
			if a.RPB == 0 {
				a.RPB = store.DefaultRPB(c.BlockSize)
			}
			if a.BPC == 0 {
				a.BPC = 1
				if a.Type == 'e' {
					a.BPC = 8 // the Encryption Policy Area is Type II: CLUSTERSIZE_DEFAULT
				}
			}
			ch.area = a
			c.Areas = append(c.Areas, a)
		} else if n := len(a.Extents); n > 0 && !a.Extents[n-1].Fixed {
			last := &a.Extents[n-1]
			size := extentSizeKB(*last)
			last.Fixed, last.SizeKB = true, openedge.RoundExtentKB(max(size, int64(c.BlockSize)/1024*16), c.BlockSize)
			ch.fixedLast = true
		}
		ch.start = len(a.Extents)
		for _, e := range sa.Extents {
			path, err := extentPath(paths, e.Path, 'd', a.Number, len(a.Extents)+1)
			if err != nil {
				return 0, err
			}
			if err := files.claim(path, e.Line); err != nil {
				return 0, err
			}
			ext := store.Extent{Path: path, Fixed: e.Fixed}
			if e.Fixed {
				ext.SizeKB = openedge.RoundExtentKB(e.SizeKB, c.BlockSize)
			}
			a.Extents = append(a.Extents, ext)
		}
		changes = append(changes, ch)
	}
	var formatted int64
	for _, ch := range changes {
		a := ch.area
		for _, e := range a.Extents[ch.start:] {
			if e.Fixed {
				formatted += e.SizeKB * 1024
			}
		}
		if ch.fresh {
			if err := store.Format(a, c.BlockSize, room); err != nil {
				return 0, err
			}
			continue
		}
		if ch.fixedLast {
			// The variable extent, fixed at its size rounded up: the
			// blocks of the rounding are formatted too.
			last := a.Extents[ch.start-1]
			if f, err := os.OpenFile(last.Path, os.O_RDWR, 0); err == nil {
				if st, err := f.Stat(); err == nil {
					formatted += max(0, last.SizeKB*1024-st.Size())
				}
				err = store.AllocateFixed(f, last.SizeKB*1024, nil)
				f.Close()
				if err != nil {
					return 0, err
				}
			}
		}
		for _, e := range a.Extents[ch.start:] {
			f, err := os.OpenFile(e.Path, os.O_RDWR|os.O_CREATE, 0o644)
			if err != nil {
				return 0, err
			}
			if e.Fixed {
				err = store.AllocateFixed(f, e.SizeKB*1024, room)
			}
			f.Close()
			if err != nil {
				return 0, err
			}
		}
	}
	return formatted, nil
}

// printFormatted is prostrct create's listing: each extent's size in KB
// (a variable extent's initial size), its area and path, and the time its
// formatting took; the real listing is printed extent by extent as it
// goes, so the time of the whole create is shared by size.
func printFormatted(p *proc, areas []*store.Area, took time.Duration) {
	p.msg("prostrct.formatting")
	p.msg("prostrct.columns")
	var total int64
	sizes := map[string]int64{}
	for _, a := range areas {
		for _, e := range a.Extents {
			kb := e.SizeKB
			if !e.Fixed {
				if st, err := os.Stat(e.Path); err == nil {
					kb = (st.Size() + 1023) / 1024
				}
				kb = max(kb, 4)
			}
			sizes[e.Path] = kb
			total += kb
		}
	}
	for _, a := range areas {
		for _, e := range a.Extents {
			share := time.Duration(0)
			if total > 0 {
				share = took * time.Duration(sizes[e.Path]) / time.Duration(total)
			}
			sec := int(share.Seconds())
			p.say("%7d %24s %s %02d:%02d:%02d", sizes[e.Path], a.Name, e.Path, sec/3600, sec/60%60, sec%60)
		}
	}
}
