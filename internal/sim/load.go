package sim

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/oedl/oedl/internal/sim/bd"
	"github.com/oedl/oedl/internal/sim/fault"
	"github.com/oedl/oedl/internal/sim/msg"
	"github.com/oedl/oedl/internal/sim/store"
)

// chargedReader charges the virtual disk for what a load reads.
type chargedReader struct {
	r   io.Reader
	env *environment
}

func (c *chargedReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	if n > 0 {
		// On a failed charge the bytes are not handed over: a reader that
		// got the last of the file with the error could finish without
		// ever seeing it.
		if cerr := c.env.seqRead(int64(n)); cerr != nil {
			return 0, cerr
		}
	}
	return n, err
}

// loadFiles lists the .bd files of a load: the argument, or the -dumplist.
func loadFiles(pos []string, dumplist string) ([]string, error) {
	if dumplist == "" {
		if len(pos) != 1 {
			return nil, errors.New("usage: proutil db-name -C load filename [build indexes] [-dumplist file] [-i] [-r]")
		}
		return pos, nil
	}
	f, err := os.Open(dumplist)
	if err != nil {
		return nil, msg.E("43", dumplist, 2)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			out = append(out, line)
		}
	}
	if len(out) == 0 {
		return nil, msg.E("oesim.dumplist.empty", dumplist)
	}
	return out, sc.Err()
}

type openDump struct {
	path string
	f    *os.File
	r    *bd.Reader
}

func openDumpFile(path string, env *environment) (*openDump, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, msg.E("43", path, 2)
	}
	r, err := bd.NewReader(&chargedReader{r: f, env: env})
	if err != nil {
		f.Close()
		if errors.Is(err, bd.ErrNotDump) || errors.Is(err, bd.ErrTruncated) || errors.Is(err, bd.ErrCorrupt) {
			return nil, msg.E("oesim.bd.invalid", path, err)
		}
		return nil, msg.E("oesim.bd.unreadable", path, err)
	}
	return &openDump{path: path, f: f, r: r}, nil
}

func loadQualifier(p *proc, dbArg string, args []string) int {
	fs, err := parseFlags(args, "-dumplist", "-TB", "-TM", "-T", "-SS", "-G", "-Cipher", "-B", "-TMB", "-TF")
	if err != nil {
		return p.usage("%v", err)
	}
	pos := dropWords(fs.pos, "refresh")
	build := false
	var rest []string
	for i := 0; i < len(pos); i++ {
		if strings.EqualFold(pos[i], "build") && i+1 < len(pos) && strings.EqualFold(pos[i+1], "indexes") {
			build = true
			i++
			continue
		}
		rest = append(rest, pos[i])
	}
	files, err := loadFiles(rest, fs.values["-dumplist"])
	if err != nil {
		var me *msg.Error
		if errors.As(err, &me) {
			return p.failErr(err)
		}
		return p.usage("%v", err)
	}
	p.banner()
	if fs.bools["-i"] {
		p.msg("512")
	}
	s, rc := p.open(dbArg, client)
	if rc != 0 {
		return rc
	}
	defer s.close()

	dumps := make([]*openDump, 0, len(files))
	defer func() {
		for _, d := range dumps {
			d.f.Close()
		}
	}()
	for _, f := range files {
		d, err := openDumpFile(f, p.env)
		if err != nil {
			return p.failErr(err)
		}
		dumps = append(dumps, d)
	}
	h0 := dumps[0].r.Header
	name := h0.Owner + "." + h0.Table
	t := s.db.Ctl.Table(name)
	if t == nil {
		return p.fail("oesim.bd.table.notfound", name, dumps[0].path, s.paths.Base)
	}
	for _, d := range dumps {
		h := d.r.Header
		if !strings.EqualFold(h.Table, h0.Table) || !strings.EqualFold(h.Owner, h0.Owner) {
			return p.fail("oesim.bd.other.table", d.path, h.Owner, h.Table, name)
		}
		if h.CRC != t.CRC {
			return p.fail("oesim.bd.crc",
				t.Name, d.path, h.CRC, t.CRC)
		}
	}
	// The sort of "build indexes": -TB/-TM as given (idxbuild's
	// defaults), its files in -T, else the database's directory.
	tb, _ := fs.intValue("-TB", 8)
	tm, _ := fs.intValue("-TM", 5)
	sortDir := fs.values["-T"]
	if sortDir == "" {
		sortDir = filepath.Dir(s.paths.Base)
	}
	sortDir = strings.TrimSuffix(sortDir, "/") + "/"
	if build {
		if len(dumps) > 1 && fs.values["-dumplist"] == "" {
			return p.fail("oesim.build.onefile")
		}
		n, err := s.db.CountRecords(t)
		if err != nil {
			return p.failErr(err)
		}
		if n > 0 {
			return p.fail("oesim.build.notempty", t.Name, n)
		}
	}
	fp := p.env.fault(p, "load", t.QualifiedName())
	if rc := applyEarlyFault(p, fp); rc >= 0 {
		return rc
	}

	// The indexes are not maintained by a binary load: they go inactive
	// before the first record is written, so a crash leaves them so.
	active := activeIndexes(t)
	if len(active) > 0 {
		if err := deactivate(s.db, t, active); err != nil {
			return p.failErr(err)
		}
		if build {
			for _, ix := range active {
				p.msg("1515", ix.Name)
			}
		}
	}
	af, err := s.db.Area(t.Area)
	if err != nil {
		return p.failErr(err)
	}
	var total int64
	for _, d := range dumps {
		h := d.r.Header
		p.msg("6203", h.Created.Format("Mon Jan _2 15:04:05 2006"), h.Database)
		p.msg("6204", t.Name, t.Number, h.FirstRecord, h.Section)
		if build && len(t.Indexes) > 0 && d == dumps[0] {
			p.msg("1526", tb, tm)
			p.msg("11443", sortDir)
		}
		w := store.NewRecordWriter(af, t.Number)
		// Each segment written draws from the virtual disk, and a
		// diskfull fault fails the segment that would pass its limit
		// (the ones before it stay, as on a real full disk).
		budget := int64(-1)
		if fp.is(fault.DiskFullAfter) {
			budget = fp.n()
		}
		w.BeforeFlush = func(bytes int64) error {
			if budget >= 0 {
				if budget -= bytes; budget < 0 && fp.strike() {
					return &os.PathError{Op: "write", Path: af.Area.Extents[len(af.Area.Extents)-1].Path, Err: syscall.ENOSPC}
				}
			}
			return p.env.seqWrite(bytes) // the area grows at its high-water mark
		}
		for {
			rec, crc, err := d.r.Next()
			if err == io.EOF {
				break
			}
			if err == nil {
				err = w.AddFrame(rec, crc)
			}
			if err != nil {
				var pe *os.PathError
				if errors.As(err, &pe) {
					return p.failErr(ioError(err))
				}
				w.Flush()
				return p.fail("oesim.load.stopped", d.path, err)
			}
			fp.recordFault(total+d.r.Count(), func() { w.Flush() })
		}
		if err := w.Flush(); err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				return p.failErr(ioError(err))
			}
			return p.failErr(err)
		}
		total += w.Written()
	}
	if !fs.bools["-i"] && !fs.bools["-r"] {
		if err := s.db.Sync(); err != nil {
			return p.failErr(err)
		}
	}
	p.msg("15167", total)
	if build && len(t.Indexes) > 0 {
		p.msg("16761", t.QualifiedName(), len(t.Indexes))
		if err := rebuildIndexes(s.db, t, t.Indexes, sortOptions{scanThreads: 1, sortThreads: 2, mergeThreads: 1, pfactor: 100, io: p.env}); err != nil {
			return p.failErr(err)
		}
		for _, ix := range t.Indexes {
			p.msg("16757", ix.Number, ix.Name, 0)
		}
		p.msg("16762", t.QualifiedName(), len(t.Indexes))
	} else if len(active) > 0 {
		// The indexes left to rebuild, one name a line under the warning,
		// as the real load prints them.
		p.msg("load.rebuild.head", t.QualifiedName())
		for _, ix := range active {
			p.say("%s", ix.Name)
		}
	}
	p.msg("6256")
	s.log(fmt.Sprintf("Binary load of table %s: %d records. (6256)", t.QualifiedName(), total))
	return exitOK
}

func activeIndexes(t *store.Table) []*store.Index {
	var out []*store.Index
	for _, ix := range t.Indexes {
		if ix.Active {
			out = append(out, ix)
		}
	}
	return out
}

// deactivate marks indexes inactive and frees their stored keys.
func deactivate(db *store.DB, t *store.Table, ixs []*store.Index) error {
	if err := setActive(db, t.Number, ixs, false); err != nil {
		return err
	}
	for _, ix := range ixs {
		af, err := db.Area(ix.Area)
		if err != nil {
			return err
		}
		if err := af.Free(store.KindIndex, ix.Number); err != nil {
			return err
		}
	}
	return nil
}
