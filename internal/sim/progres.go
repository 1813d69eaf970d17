package sim

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/oedl/oedl/internal/atomicfile"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/sim/msg"
	"github.com/oedl/oedl/internal/sim/store"
)

// _progres runs no ABL. It recognises, by base name, the eight procedures
// oedl needs and does what they do:
//
//	prodict/load_df.p  -param FILE        load a .df into the database
//	prodict/dump_df.p  -param "ALL,FILE," dump the schema as a .df
//	dump_seqvals.p     -param FILE        write `"name" current-value` lines (EXPORT)
//	load_seqvals.p     -param FILE        set sequence values from such lines (IMPORT)
//	dump_security.p    -param DIR         write _user.d, _sysauth.d, _sysviews.d
//	load_security.p    -param DIR         add their users, grants and views
//	dump_lasttask.p    -param FILE        write _MstrBlk-Lasttask (lasttask.go)
//	dump_lasttask_df.p -param DIR         DIR/source.lasttask and DIR/source.df, one session
//
// Any other procedure fails with OpenEdge's "not found" message (293).
var procedures = map[string]func(p *proc, s *session, param string) int{
	"load_df.p":      loadDFProcedure,
	"dump_df.p":      dumpDFProcedure,
	"dump_seqvals.p": dumpSeqvalsProcedure,
	"load_seqvals.p": loadSeqvalsProcedure,
	// security.go
	"dump_security.p": dumpSecurityProcedure,
	"load_security.p": loadSecurityProcedure,
	// lasttask.go
	"dump_lasttask.p":    dumpLastTaskProcedure,
	"dump_lasttask_df.p": dumpLastTaskDFProcedure,
}

func runProgres(p *proc) int {
	fs, err := parseFlags(p.args, "-db", "-p", "-param", "-pf", "-ld", "-cpinternal", "-cpstream", "-T", "-s", "-mmax",
		"-d", "-E", "-yy", "-U", "-P", "-H", "-S", "-N", "-inp", "-tok", "-Bt", "-D", "-l", "-ini", "-basekey", "-cprcodein")
	if err != nil {
		return p.usage("%v", err)
	}
	if _, ok := p.dlc(); !ok {
		return exitFail
	}
	if !fs.bools["-b"] {
		return p.usage("oesim's _progres runs only in batch mode (-b)")
	}
	// -1 (single-user) reads as a number to parseFlags, so it is among
	// the positional arguments, not the database's name.
	single := slices.Contains(fs.pos, "-1")
	pos := slices.DeleteFunc(slices.Clone(fs.pos), func(a string) bool { return a == "-1" })
	dbArg, ok := fs.values["-db"]
	if !ok && len(pos) > 0 {
		dbArg = pos[0]
	}
	if dbArg == "" {
		return p.fail("oesim.nodb")
	}
	procPath := fs.values["-p"]
	fn, ok := procedures[filepath.Base(procPath)]
	if !ok {
		return p.fail("293", procPath)
	}
	// A single-user session is refused on a database a broker serves
	// (276), as OpenEdge refuses it. -1 was looked for among the flags
	// and never found there: oesim connected such a session to the broker.
	acc := client
	if single {
		acc = singleOnly
	}
	s, rc := p.open(dbArg, acc)
	if rc != 0 {
		return rc
	}
	defer s.close()
	return fn(p, s, fs.values["-param"])
}

func loadDFProcedure(p *proc, s *session, param string) int {
	if param == "" {
		return p.fail("oesim.loaddf.param")
	}
	f, err := os.Open(param)
	if err != nil {
		return p.fail("43", param, 2)
	}
	defer f.Close()
	df, err := openedge.ParseDF(f, param)
	if err != nil {
		return p.failErr(err)
	}
	if err := p.takeSchema(s, param); err != nil {
		return p.failErr(err)
	}
	l := &dfLoad{df: df, records: s.db.CountRecords}
	err = s.db.Update(func(c *store.Control) error {
		l.c = c
		return l.apply()
	})
	if err != nil {
		// load_df.p writes its errors to DB.e next to the database.
		var out strings.Builder
		var de *dfError
		if errors.As(err, &de) {
			p.sayErr(de.line)
			p.sayErr(de.cause)
			out.WriteString(p.texts.Sprintf(de.line.Key, de.line.Args...) + "\n" + p.texts.Sprintf(de.cause.Key, de.cause.Args...) + "\n")
		} else {
			p.sayErr(err)
			out.WriteString(err.Error() + "\n")
		}
		os.WriteFile(s.paths.Base+".e", []byte(out.String()), 0o644)
		return exitFail
	}
	// The storage of what was dropped goes once the schema no longer
	// names it.
	for _, o := range l.freed {
		if af, err := s.db.Area(o.area); err == nil {
			if err := af.Free(o.kind, o.object); err != nil {
				return p.failErr(err)
			}
		}
	}
	s.log(fmt.Sprintf("Definitions loaded from %s: %d statements.", param, len(df.Steps())))
	return exitOK
}

func seqByName(c *store.Control, name string) *store.Sequence {
	for _, s := range c.Sequences {
		if strings.EqualFold(s.Name, name) {
			return s
		}
	}
	return nil
}

// schemaDF is the database's schema as a .df.
func schemaDF(c *store.Control) *openedge.DF {
	tables := append([]*store.Table(nil), c.Tables...)
	sort.Slice(tables, func(i, j int) bool { return lessFold(tables[i].Name, tables[j].Name) })
	var dts []*openedge.DFTable
	for _, t := range tables {
		dts = append(dts, t.ToDF(c.AreaName))
	}
	var seqs []*openedge.DFSequence
	for _, s := range c.Sequences {
		seqs = append(seqs, &openedge.DFSequence{Name: s.Name, Initial: s.Initial, Increment: s.Increment, Min: s.Min,
			Max: s.Max, Cycle: s.Cycle, Options: s.Options})
	}
	return openedge.NewDF(dts, seqs, dumpCodepage(c))
}

// dumpCodepage is the cpstream dump_df.p writes: that of the bytes it
// writes, which are those of the .df the definitions were loaded from.
func dumpCodepage(c *store.Control) string {
	if c.DFCodepage != "" {
		return c.DFCodepage
	}
	return c.Codepage
}

func dumpDFProcedure(p *proc, s *session, param string) int {
	// -param "tables,file,codepage": "ALL" or a comma-less table list.
	parts := strings.Split(param, ",")
	if len(parts) < 2 || parts[1] == "" {
		return p.fail("oesim.dumpdf.param")
	}
	return writeSchemaDF(p, s, parts[0], parts[1])
}

// writeSchemaDF is prodict/dump_df.p's work, as RUN with its three input
// parameters (tables, file, codepage): the tables' definitions ("ALL":
// every one, with the sequences) written to file.
func writeSchemaDF(p *proc, s *session, which, file string) int {
	df := schemaDF(s.db.Ctl)
	if !strings.EqualFold(which, "ALL") {
		var keep []*openedge.DFTable
		for _, name := range strings.Fields(strings.ReplaceAll(which, " ", " ")) {
			t := s.db.Ctl.Table(name)
			if t == nil {
				return p.fail("oesim.table.notfound", name)
			}
			keep = append(keep, t.ToDF(s.db.Ctl.AreaName))
		}
		df = openedge.NewDF(keep, nil, dumpCodepage(s.db.Ctl))
	}
	var buf bytes.Buffer
	if _, err := df.WriteTo(&buf); err != nil {
		return p.failErr(err)
	}
	if err := atomicfile.WriteFileNoSync(file, buf.Bytes()); err != nil {
		return p.failErr(err)
	}
	return exitOK
}

func dumpSeqvalsProcedure(p *proc, s *session, param string) int {
	if param == "" {
		return p.fail("oesim.dumpseq.param")
	}
	var buf []byte
	for _, sq := range s.db.Ctl.Sequences {
		buf = openedge.AppendSeqval(buf, sq.Name, sq.Current)
	}
	if err := atomicfile.WriteFileNoSync(param, buf); err != nil {
		return p.failErr(err)
	}
	return exitOK
}

func loadSeqvalsProcedure(p *proc, s *session, param string) int {
	f, err := os.Open(param)
	if err != nil {
		return p.fail("43", param, 2)
	}
	defer f.Close()
	// IMPORT cName iValue: the layout dump_seqvals.p EXPORTs; a line that
	// starts with a sequence number (a _seqvals.d) fails its IMPORT.
	seqs, err := openedge.ParseSeqvals(f, param)
	if err != nil {
		return p.fail("oesim.seq.read", err)
	}
	vals := map[string]int64{}
	var order []string
	for _, sq := range seqs {
		if sq.Num >= 0 {
			return p.fail("oesim.seq.read", fmt.Errorf("%s:%d: a sequence number before the name: IMPORT cName iValue reads %d as the name", param, sq.Line, sq.Num))
		}
		vals[sq.Name] = sq.Value
		order = append(order, sq.Name)
	}
	if err := p.takeSchema(s, param); err != nil {
		return p.failErr(err)
	}
	err = s.db.Update(func(c *store.Control) error {
		for _, name := range order {
			sq := seqByName(c, name)
			if sq == nil {
				return msg.E("oesim.seq.notfound", name)
			}
			sq.Current = vals[name]
		}
		return nil
	})
	if err != nil {
		return p.failErr(err)
	}
	return exitOK
}
