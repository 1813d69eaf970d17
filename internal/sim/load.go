package sim

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/oedl/oedl/internal/openedge"
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

// loadDisk charges a load's writes to the virtual disk by pattern.
type loadDisk struct{ env *environment }

func (d loadDisk) Sequential(bytes int64) error { return d.env.seqWrite(bytes) }
func (d loadDisk) Random(n, size int64) error   { return d.env.randomWrite(n, size) }

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

// loadOptions are what a load call's flags say for every table it loads.
type loadOptions struct {
	build   bool
	tb, tm  int
	sortDir string
	noSync  bool // -i or -r: nothing is fsynced
	// brokerNoIntegrity: the broker serving the database runs with -i.
	brokerNoIntegrity bool
}

func loadQualifier(p *proc, dbArg string, args []string) int {
	fs, err := parseFlags(args, "-dumplist", "-TB", "-TM", "-T", "-SS", "-G", "-Cipher", "-B", "-TMB", "-TF")
	if err != nil {
		return p.usage("%v", err)
	}
	pos := dropWords(fs.pos, "refresh")
	opts := loadOptions{noSync: fs.bools["-i"] || fs.bools["-r"]}
	var rest []string
	for i := 0; i < len(pos); i++ {
		if strings.EqualFold(pos[i], "build") && i+1 < len(pos) && strings.EqualFold(pos[i+1], "indexes") {
			opts.build = true
			i++
			continue
		}
		rest = append(rest, pos[i])
	}
	dumplist := fs.values["-dumplist"]
	files, err := loadFiles(rest, dumplist)
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
	if rc := s.noIntegrity(fs.bools["-i"], &opts); rc != 0 {
		return rc
	}

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
	if opts.build && len(dumps) > 1 && dumplist == "" {
		return p.fail("oesim.build.onefile")
	}
	groups, err := groupDumps(s, dumps, dumplist)
	if err != nil {
		return p.failErr(err)
	}
	// The sort of "build indexes": -TB/-TM as given (idxbuild's
	// defaults), its files in -T, else the database's directory.
	opts.tb, _ = fs.intValue("-TB", 8)
	opts.tm, _ = fs.intValue("-TM", 5)
	opts.sortDir = fs.values["-T"]
	if opts.sortDir == "" {
		opts.sortDir = filepath.Dir(s.paths.Base)
	}
	opts.sortDir = strings.TrimSuffix(opts.sortDir, "/") + "/"
	if opts.build {
		// Every table is checked before the first is written: a batch
		// refused for one table leaves the others untouched too.
		for _, g := range groups {
			n, err := s.db.CountRecords(g.t)
			if err != nil {
				return p.failErr(err)
			}
			if n > 0 {
				return p.fail("oesim.build.notempty", g.t.Name, n)
			}
		}
	}
	// One table after another, each exactly as its own load call would
	// load it ("the equivalent of issuing N individual load commands"):
	// a table finished is synced before the next begins, so a batch that
	// dies leaves the tables before the dying one loaded and committed.
	// The before-image notes and checkpoints, paid as the load runs.
	bi := openedge.NewLoadLog(loadLogging(s, fs, opts), loadDisk{p.env})
	for _, g := range groups {
		if rc := loadTable(p, s, g, opts, bi); rc != exitOK {
			return rc
		}
	}
	return exitOK
}

// loadGroup is the files of one table in a load call.
type loadGroup struct {
	t     *store.Table
	dumps []*openDump
}

// groupDumps checks the dump files of a load against the database (every
// table known, every CRC equal) before anything is written, and groups
// them by table in list order. A hand-written -dumplist may name several
// tables (Progress: "you can use a dump file created with a multi-threaded
// binary dump, or create your own"), but the files of one table must be
// next to each other: the real load's record numbering (6204's "starting
// with record") is per table, and a table split across the list would be
// loaded in two halves with another between them.
func groupDumps(s *session, dumps []*openDump, dumplist string) ([]loadGroup, error) {
	var groups []loadGroup
	seen := map[*store.Table]bool{}
	for _, d := range dumps {
		h := d.r.Header
		name := h.Owner + "." + h.Table
		t := s.db.Ctl.Table(name)
		if t == nil {
			return nil, msg.E("oesim.bd.table.notfound", name, d.path, s.paths.Base)
		}
		if h.CRC != t.CRC {
			return nil, msg.E("oesim.bd.crc", t.Name, d.path, h.CRC, t.CRC)
		}
		if n := len(groups); n > 0 && groups[n-1].t == t {
			groups[n-1].dumps = append(groups[n-1].dumps, d)
			continue
		}
		if seen[t] {
			return nil, msg.E("oesim.dumplist.split", d.path, t.QualifiedName(), t.QualifiedName(), dumplist)
		}
		seen[t] = true
		groups = append(groups, loadGroup{t: t, dumps: []*openDump{d}})
	}
	return groups, nil
}

// loadTable loads the files of one table and prints what a load of that
// table alone prints after the banner. A load fault is the table's: in a
// batch, crash-after=N strikes at the table's N-th record.
func loadTable(p *proc, s *session, g loadGroup, opts loadOptions, bi *openedge.LoadLog) int {
	t, dumps := g.t, g.dumps
	fp := p.env.fault(p, "load", t.QualifiedName())
	if rc := applyEarlyFault(p, fp); rc >= 0 {
		return rc
	}

	// The indexes are not maintained by a binary load: they go inactive
	// before the first record is written, so a crash leaves them so.
	active := activeIndexes(t)
	if len(active) > 0 {
		if err := deactivate(s.db, t, active, bi); err != nil {
			return p.failErr(err)
		}
		if opts.build {
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
		if opts.build && len(t.Indexes) > 0 && d == dumps[0] {
			p.msg("1526", opts.tb, opts.tm)
			p.msg("11443", opts.sortDir)
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
					return af.NoRoom(bytes)
				}
			}
			// The area grows at its high-water mark: written behind, or
			// by the loader at its checkpoints (openedge.LoadLog).
			return bi.Data(bytes)
		}
		for {
			rec, crc, err := d.r.Next()
			if err == io.EOF {
				break
			}
			if err == nil {
				// The record's note goes to the before-image first.
				if err = bi.Notes(1, int64(len(rec))); err == nil {
					err = w.AddFrame(rec, crc)
				}
			}
			if err != nil {
				var pe *os.PathError
				var full *store.NoRoomError
				switch {
				case errors.As(err, &full):
					return p.failErr(full)
				case errors.As(err, &pe):
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
	if err := bi.End(); err != nil {
		return p.failErr(err)
	}
	if !opts.noSync {
		if err := s.db.Sync(); err != nil {
			return p.failErr(err)
		}
	}
	p.msg("15167", total)
	if opts.build && len(t.Indexes) > 0 {
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

// deactivate marks indexes inactive and frees their stored keys. In
// OpenEdge that is a small schema transaction: a note for each _Index
// record updated and their block of the Schema Area, written as the
// load's other blocks are: charged so through bi.
func deactivate(db *store.DB, t *store.Table, ixs []*store.Index, bi *openedge.LoadLog) error {
	if err := setActive(db, t.Number, ixs, false); err != nil {
		return err
	}
	if err := bi.Notes(int64(len(ixs)), 0); err != nil {
		return err
	}
	if err := bi.Data(int64(db.Ctl.BlockSize)); err != nil {
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
