package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/plan"
)

// fakeOE is a tiny stand-in for the OpenEdge utilities, enough to drive
// the executor's logic (journal, repair, resume) fast and exactly in unit
// tests. The end-to-end tests use oesim, which really stores records.
type fakeOE struct {
	mu     sync.Mutex
	source map[string]int64 // table -> records
	target map[string]int64
	areaOf map[string]string // table -> target area
	served map[string]bool
	// noProc: the brokers cannot be listed (a host with no Linux /proc).
	noProc bool
	// startedBy: database -> the mark of its broker (brokerLister): the
	// WorkEnv of the proserve that started it; a database served with no
	// entry is served by the DBA's broker (no mark).
	startedBy map[string]brokerMark
	// single: database -> in use in single-user mode by someone (holder 14).
	single map[string]bool
	// failLoad: table -> loads that fail half way (records half in).
	failLoad map[string]int
	// hangLoad: table -> the load blocks until its context ends.
	hangLoad map[string]bool
	// together: table -> a table whose load must be in flight too before
	// this one's first load goes on (loads side by side in one area).
	together    map[string]string
	loadStarted map[string]chan struct{} // table -> its first load started
	loads       map[string]int           // completed loads per table
	calls       []string
	// failThreaded: table -> threaded dumps that fail once their second
	// section has been loaded (the dump waits for that load).
	failThreaded  map[string]int
	sectionLoaded map[string]chan struct{} // table -> its second section was loaded
	df            string                   // what dump_df.p writes: the plan's tables
	// holdLimit: database -> its broker's -n for dumps and loads; the
	// calls connected hold their connection until the first refusal, so
	// that the limit is really reached (userlimit_test.go).
	holdLimit map[string]int
	conns     map[string]int
	full      map[string]chan struct{} // closed at the database's first refusal
	// denyLoads: the next loads refused for the user limit (the DBA's
	// users filling the target's -n).
	denyLoads int
	denials   int
	// brokerDiesAt: table -> its first dump takes the source's broker down
	// with it (proshut by someone, a crash) and fails, as the dumps
	// connected to a broker that goes do.
	brokerDiesAt map[string]bool
	// shutdownRace: database -> what happens to its broker between the
	// holder's (276) and the next proshut, which then answers (1423) (a
	// broker dying, or started and not yet listening); run once, with
	// f.mu held.
	shutdownRace map[string]func(f *fakeOE)
	// diskFull: "dump <table>" or "load <table>" -> its next call fills
	// its disk and fails with errno 28, as OpenEdge reports a full disk
	// (a load leaves half its records in).
	diskFull map[string]bool
	// refuse: "dump <table>" -> what its every call prints before it
	// exits 1 (a refusal another attempt does not change, or not).
	refuse map[string]string
	// schemaTables: load_df.p creates the source's tables in the target,
	// empty, so that a tabanalys lists them (oedl prepare checks it).
	schemaTables bool
	// waitFor: call -> a call that must have started before it goes on
	// (it fails after waitForAtMost otherwise): work that must run beside
	// another, not after it.
	waitFor map[string]string
	// seqs: database -> the value of its sequence next-cust (the source's
	// 1000); seqLoadLost: load_seqvals.p sets nothing and exits 0.
	seqs        map[string]int64
	seqSource   string
	seqLoadLost bool
	// describe is what proutil -C describe prints of the source (and
	// empty, of anything else: $DLC/emptyN's copy, the target).
	describe, empty openedge.Description
}

// fakeDescription is a source like $DLC/empty8 in every figure describe
// compares.
var fakeDescription = openedge.Description{BlockSize: 8192, BIBlockSize: 8192, BIClusterKB: 512, Codepage: "ISO8859-1"}

func newFakeOE(p *plan.Plan) *fakeOE {
	f := &fakeOE{source: map[string]int64{}, target: map[string]int64{}, areaOf: map[string]string{},
		served: map[string]bool{}, startedBy: map[string]brokerMark{}, single: map[string]bool{}, failLoad: map[string]int{}, hangLoad: map[string]bool{}, loads: map[string]int{},
		together: map[string]string{}, loadStarted: map[string]chan struct{}{},
		failThreaded: map[string]int{}, sectionLoaded: map[string]chan struct{}{}, df: fakeDF(p),
		describe: fakeDescription, empty: fakeDescription,
		holdLimit: map[string]int{}, conns: map[string]int{}, full: map[string]chan struct{}{}, brokerDiesAt: map[string]bool{}, shutdownRace: map[string]func(*fakeOE){}, diskFull: map[string]bool{}, seqs: map[string]int64{}, refuse: map[string]string{}}
	for _, t := range p.Tables {
		f.source[t.Table] = t.Records
		f.areaOf[t.Table] = t.DataArea
	}
	return f
}

func (f *fakeOE) Run(ctx context.Context, c execx.Cmd) (execx.Result, error) {
	prog := filepath.Base(c.Path)
	call := prog + " " + strings.Join(c.Args, " ")
	f.mu.Lock()
	f.calls = append(f.calls, call)
	first := f.waitFor[call]
	f.mu.Unlock()
	if first != "" && !f.awaitCall(first) {
		return execx.Result{Output: "** " + first + " never started\n", ExitCode: 1}, fmt.Errorf("%s: %w", prog, execx.ErrExit)
	}
	out, code := f.exec(ctx, prog, c.Args)
	if prog == "proserve" && code == 0 {
		f.mu.Lock()
		f.startedBy[c.Args[0]] = brokerMark{pid: fakeBrokerPID, work: envValue(c.Env, WorkEnv)}
		f.mu.Unlock()
	}
	if c.Log != nil {
		fmt.Fprintf(c.Log, "$ %s\n%s[exit %d]\n", execx.Quote(append([]string{c.Path}, c.Args...)), out, code)
	}
	res := execx.Result{Output: out, ExitCode: code}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	if code != 0 {
		return res, fmt.Errorf("%s exited with code %d: %w", prog, code, execx.ErrExit)
	}
	return res, nil
}

// fakeBrokerPID is the PID the fake's brokers are listed with.
const fakeBrokerPID = 4242

// brokerMarks lists the fake's broker of db, if one serves it, with the
// mark it was started with (startedBy): the fake's brokers are no
// processes for /proc to show.
func (f *fakeOE) brokerMarks(db string) ([]brokerMark, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.noProc {
		return nil, errors.New("no /proc: the brokers and their marks cannot be listed")
	}
	if !f.served[db] {
		return nil, nil
	}
	m, ok := f.startedBy[db]
	if !ok {
		m = brokerMark{pid: fakeBrokerPID + 1}
	}
	return []brokerMark{m}, nil
}

// envValue is the value of key in env (KEY=VALUE entries), "" without one.
func envValue(env []string, key string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return ""
}

// waitForAtMost bounds how long a call of waitFor waits for the other.
const waitForAtMost = 5 * time.Second

// awaitCall reports whether call has started, waiting for it at most
// waitForAtMost.
func (f *fakeOE) awaitCall(call string) bool {
	deadline := time.Now().Add(waitForAtMost)
	for time.Now().Before(deadline) {
		f.mu.Lock()
		seen := slices.Contains(f.calls, call)
		f.mu.Unlock()
		if seen {
			return true
		}
		time.Sleep(time.Millisecond)
	}
	return false
}

// count counts the calls of the fake that were exactly call.
func (f *fakeOE) count(call string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		if c == call {
			n++
		}
	}
	return n
}

func (f *fakeOE) db(path string) map[string]int64 {
	if strings.HasSuffix(path, "src") {
		return f.source
	}
	return f.target
}

func (f *fakeOE) exec(ctx context.Context, prog string, args []string) (string, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch prog {
	case "proserve": // refuses a database someone holds, as proserve does
		if f.served[args[0]] {
			return "** The database is in use in multi-user mode. (276)\n", 1
		}
		if f.single[args[0]] {
			return fmt.Sprintf("** The database %s is in use in single-user mode. (263)\n", args[0]), 1
		}
		f.served[args[0]] = true
		return "", 0
	case "proshut": // refuses a database no broker serves
		race := f.shutdownRace[args[0]]
		if race != nil {
			delete(f.shutdownRace, args[0])
			race(f)
		}
		if race != nil || !f.served[args[0]] {
			return fmt.Sprintf("** There is no server for database %s. (1423)\n", args[0]), 1
		}
		f.served[args[0]] = false
		delete(f.startedBy, args[0])
		return "Shutdown complete. (1614)\n", 0
	case "prostrct":
		if args[0] == "list" { // the source's structure, into the file named
			return "", writeFile(args[2], "b "+args[1]+".b1\nd \"Schema Area\":6,64;1 "+args[1]+".d1\n")
		}
		if slices.Contains(args, "-validate") { // checks, creates nothing
			if exists(args[1] + ".db") {
				return "** The database " + args[1] + " already exists.\n", 1
			}
			return "", 0
		}
		f.target = map[string]int64{}
		return "", writeFile(args[1]+".db", "fake")
	case "procopy":
		return "db copied from " + args[0] + ". (1365)\n", 0
	case "_progres":
		param := args[len(args)-1]
		if slices.Contains(args, "-1") { // a single-user session refuses a database someone holds
			if db := args[2]; f.served[db] {
				return "** The database is in use in multi-user mode. (276)\n", 1
			} else if f.single[db] {
				return fmt.Sprintf("** The database %s is in use in single-user mode. (263)\n", db), 1
			}
		}
		switch {
		case strings.Contains(strings.Join(args, " "), ablDumpSeq):
			db := args[2] // _progres -b -db DB -p ...
			if f.seqSource == "" {
				f.seqSource = db // the dump of the source comes first
			}
			v := f.seqs[db]
			if db == f.seqSource {
				v = 1000
			}
			return "", writeFile(param, fmt.Sprintf("\"next-cust\" %d\n", v))
		case strings.Contains(strings.Join(args, " "), ablLoadSeq):
			if !f.seqLoadLost {
				f.seqs[args[2]] = 1000
			}
			return "", 0
		case strings.Contains(strings.Join(args, " "), ablDumpLastTaskDF): // -param DIR
			if code := writeFile(filepath.Join(param, SourceTaskFile), "1\n"); code != 0 {
				return "cannot write", code
			}
			return "", writeFile(filepath.Join(param, SourceDF), f.df)
		case strings.Contains(strings.Join(args, " "), ablDumpLastTask):
			return "", writeFile(param, "1\n") // nothing writes the fake source
		case strings.Contains(strings.Join(args, " "), ablDumpSecurity):
			sec := openedge.Security{Users: []openedge.User{{ID: "ana", Password: "h", Name: "Ana"}}}
			if err := openedge.WriteSecurity(param, "db", sec, time.Unix(0, 0)); err != nil {
				return err.Error(), 1
			}
			return "", 0
		case strings.Contains(strings.Join(args, " "), "dump_df.p"):
			return "", writeFile(strings.TrimPrefix(param, "ALL,"), f.df)
		case f.schemaTables && strings.Contains(strings.Join(args, " "), "load_df.p"):
			for t := range f.source {
				f.target[t] = 0
			}
		}
		return "", 0
	case "proutil":
	default:
		return "unknown program " + prog, 2
	}
	db, q, rest := args[0], args[2], args[3:]
	if q == "dump" || q == "load" {
		if q == "load" && f.denyLoads > 0 {
			f.denyLoads--
			f.denials++
			return userLimitText, 1
		}
		if lim := f.holdLimit[db]; lim > 0 {
			if f.conns[db] >= lim {
				f.denials++
				if ch := f.full[db]; ch != nil {
					close(ch)
					f.full[db] = nil
				}
				return userLimitText, 1
			}
			f.conns[db]++
			defer func() { f.conns[db]-- }() // f.mu is held again by then
			if _, seen := f.full[db]; !seen {
				f.full[db] = make(chan struct{})
			}
			if ch := f.full[db]; ch != nil {
				f.mu.Unlock()
				select {
				case <-ch:
				case <-ctx.Done():
				}
				f.mu.Lock()
			}
		}
	}
	switch q {
	case "holder":
		if f.served[db] {
			return "** The database is in use in multi-user mode. (276)\n", 16
		}
		if f.single[db] {
			return fmt.Sprintf("** The database %s is in use in single-user mode. (263)\n", db), 14
		}
		return "", 0
	case "tabanalys":
		a := &openedge.Analysis{Database: db, BlockSize: 8192}
		for t, n := range f.db(db) {
			owner, name, _ := strings.Cut(t, ".")
			a.Tables = append(a.Tables, openedge.TableStat{Area: "Data", AreaNum: 7, Owner: owner, Name: name, Records: n, Bytes: n * 100, MinRecord: 100, MaxRecord: 100, MeanRecord: 100, Fragments: n, FragFactor: 1, ScatterFactor: 1})
		}
		var b bytes.Buffer
		if err := openedge.WriteAnalysis(&b, a); err != nil {
			return err.Error(), 1
		}
		return b.String(), 0
	case "dump":
		table, dir := rest[0], rest[1]
		n := f.source[table]
		if f.brokerDiesAt[table] {
			delete(f.brokerDiesAt, table)
			f.served[db] = false
			delete(f.startedBy, db)
			return "** The server has terminated. (oesim)\n", 1
		}
		if out, ok := f.refuse["dump "+table]; ok {
			return out, 1
		}
		if f.diskFull["dump "+table] {
			delete(f.diskFull, "dump "+table)
			return fmt.Sprintf("** Error writing %s, errno = 28. (oesim)\nDumped 0 records. (13932)\n", filepath.Join(dir, dumpBase(table)+".bd")), 1
		}
		if len(rest) > 2 && rest[2] == "-thread" {
			return f.threadedDump(ctx, table, dir, n)
		}
		if code := writeFile(filepath.Join(dir, dumpBase(table)+".bd"), table+"\n"+strconv.FormatInt(n, 10)); code != 0 {
			return "cannot write", code
		}
		return fmt.Sprintf("Dumped %d records. (13932)\nBinary Dump complete. (6254)\n", n), 0
	case "load":
		data, err := os.ReadFile(rest[0])
		if err != nil {
			return fmt.Sprintf("** Cannot find or open file %s, errno = 2. (43)\n", rest[0]), 1
		}
		table, count, _ := strings.Cut(string(data), "\n")
		n, _ := strconv.ParseInt(count, 10, 64)
		if other, ok := f.together[table]; ok {
			delete(f.together, table)
			close(f.started(table))
			wait := f.started(other)
			f.mu.Unlock()
			select {
			case <-wait:
			case <-ctx.Done():
			}
			f.mu.Lock()
		}
		if f.hangLoad[table] {
			f.mu.Unlock()
			<-ctx.Done()
			f.mu.Lock()
			f.target[table] += n / 2
			return "", -1
		}
		if f.diskFull["load "+table] {
			delete(f.diskFull, "load "+table)
			f.target[table] += n / 2
			// What OpenEdge's block I/O prints (Progress KB P4404), as oesim does.
			return "bkioWrite:Insufficient disk space during write, fd 9, len 16384, offset 1073741824, file /target/db_7.d1. (6091)\n", 1
		}
		if f.failLoad[table] > 0 {
			f.failLoad[table]--
			f.target[table] += n / 2
			return "** Insufficient disk space to extend the area. (9450)\n", 1
		}
		f.target[table] += n
		f.loads[table]++
		if ch := f.sectionLoaded[table]; ch != nil && strings.HasSuffix(rest[0], ".bd2") {
			close(ch)
			delete(f.sectionLoaded, table)
		}
		return fmt.Sprintf("Loaded %d records. (15167)\nBinary Load complete. (6256)\n", n), 0
	case "truncate":
		if rest[0] == "area" {
			for t, a := range f.areaOf {
				if a == rest[1] {
					f.target[t] = 0
				}
			}
		}
		return "", 0
	case "idxbuild":
		return "3 indexes were rebuilt. (11465)\nIndex rebuild complete. 0 error(s) encountered.\n", 0
	case "describe":
		if strings.HasSuffix(db, "src") {
			return describeText(f.describe), 0
		}
		return describeText(f.empty), 0
	}
	return "unknown qualifier " + q, 2
}

// userLimitText is a connection refused for the broker's -n.
const userLimitText = "** The server or the system has no more resources. Try a larger -n. (748)\n"

// started is the channel closed when table's first load starts. Callers
// hold f.mu.
func (f *fakeOE) started(table string) chan struct{} {
	ch := f.loadStarted[table]
	if ch == nil {
		ch = make(chan struct{})
		f.loadStarted[table] = ch
	}
	return ch
}

// threadedDump writes two sections, the second under its temporary name
// first as the utility does. A dump set to fail waits, lock released,
// until its second section has been loaded, then dies.
func (f *fakeOE) threadedDump(ctx context.Context, table, dir string, n int64) (string, int) {
	base := filepath.Join(dir, dumpBase(table))
	half := n / 2
	if code := writeFile(base+".b2.bd", table+"\n"+strconv.FormatInt(n-half, 10)); code != 0 {
		return "cannot write", code
	}
	if err := os.Rename(base+".b2.bd", base+".bd2"); err != nil {
		return err.Error(), 1
	}
	if f.failThreaded[table] > 0 {
		f.failThreaded[table]--
		loaded := make(chan struct{})
		f.sectionLoaded[table] = loaded
		f.mu.Unlock()
		select {
		case <-loaded:
		case <-ctx.Done():
		}
		f.mu.Lock()
		return "** Thread 1 stopped: read error. (oesim)\n", 1
	}
	if code := writeFile(base+".bd", table+"\n"+strconv.FormatInt(half, 10)); code != 0 {
		return "cannot write", code
	}
	return fmt.Sprintf("Thread 2 dumped\n%d records for bracket 2. (17816)\nThread 1 dumped\n%d records for bracket 1. (17816)\nBinary dump started 2 threads. (14776)\nDumped %d records. (13932)\nBinary Dump complete. (6254)\n",
		n-half, half, n), 0
}

func writeFile(path, data string) int {
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		return 1
	}
	return 0
}

// fakeSetup lays out a DLC with the programs preflight looks for, a source
// database file, a plan directory and a work directory.
func fakeSetup(t *testing.T, tables ...plan.Placement) Config {
	t.Helper()
	dir := t.TempDir()
	dlc := filepath.Join(dir, "dlc")
	require.NoError(t, os.MkdirAll(filepath.Join(dlc, "bin"), 0o755))
	for _, u := range utilitiesNeeded {
		require.NoError(t, os.WriteFile(filepath.Join(dlc, "bin", u), []byte("#!/bin/false\n"), 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dlc, "empty8.db"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "src.db"), nil, 0o644))
	planDir := filepath.Join(dir, "plan")
	require.NoError(t, os.MkdirAll(planDir, 0o755))
	// A copy: tests change their plan's tables, and callers pass shared lists (testTables...).
	p := &plan.Plan{Version: plan.PlanVersion, BlockSize: 8192, Tables: slices.Clone(tables),
		Idxbuild: plan.Idxbuild{TB: 64, TM: 32, TMB: 256, SG: 64, TF: 50, Threadnum: 2, Mergethreads: 2, Datascanthreads: 2},
		BI:       plan.BI{BlockSizeKB: 16, ClusterSizeKB: 16384}}
	for _, tb := range tables {
		p.Totals.Records += tb.Records
		p.Totals.Bytes += tb.Bytes
	}
	p.Areas = fakeAreas(tables)
	var st bytes.Buffer
	require.NoError(t, openedge.WriteStructure(&st, p.Structure()))
	require.NoError(t, os.WriteFile(filepath.Join(planDir, "target.st"), st.Bytes(), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(planDir, "target.df"), []byte(fakeDF(p)), 0o644))
	return Config{DLC: dlc, Source: filepath.Join(dir, "src"), Target: filepath.Join(dir, "new", "tgt"),
		PlanDir: planDir, Work: filepath.Join(dir, "work"), Plan: p, MinTimeout: 0}
}

func placement(table, area string, records int64) plan.Placement {
	owner, name, _ := strings.Cut(table, ".")
	return plan.Placement{Table: table, Owner: owner, Name: name, Records: records, Bytes: records * 100, DataArea: area, IndexArea: area + "_idx"}
}

// fakeAreas are the areas the tables' placements name: a data and an
// index area for each, numbered from 7 in order of first use.
func fakeAreas(tables []plan.Placement) []plan.Area {
	var out []plan.Area
	index := map[string]int{}
	add := func(name string, kind plan.AreaKind, table string) {
		i, ok := index[name]
		if !ok {
			i = len(out)
			index[name] = i
			out = append(out, plan.Area{Name: name, Number: openedge.FirstUserAreaNum + i, Kind: kind, RPB: 64, BPC: 8,
				Extents: []plan.Extent{{Path: "."}}})
		}
		out[i].Tables = append(out[i].Tables, table)
	}
	for _, t := range tables {
		add(t.DataArea, plan.AreaData, t.Table)
		add(t.IndexArea, plan.AreaIndex, t.Table)
	}
	return out
}

// fakeDF is target.df for the plan (and, since the plan is the source's,
// what dump_df.p of the source writes): one field and index per table.
func fakeDF(p *plan.Plan) string {
	var tables []*openedge.DFTable
	for _, t := range p.Tables {
		tables = append(tables, &openedge.DFTable{Name: t.Name, Area: t.DataArea,
			Fields:  []*openedge.DFField{{Name: "id", Type: "integer"}},
			Indexes: []*openedge.DFIndex{{Name: "id", Area: t.IndexArea, Primary: true, Fields: []openedge.DFIndexField{{Name: "id"}}}}})
	}
	var b bytes.Buffer
	if _, err := openedge.NewDF(tables, nil, "UTF-8").WriteTo(&b); err != nil {
		panic(err)
	}
	return b.String()
}

// describeText prints d in the layout of proutil -C describe (12.x), the
// sections ParseDescribe reads.
func describeText(d openedge.Description) string {
	var b strings.Builder
	fmt.Fprintf(&b, "OpenEdge Database Description\n\nDatabase Name               : fake\nVersion                     : 184.0\nBlock Size                  : %d\n\n", d.BlockSize)
	fmt.Fprintf(&b, " Before Imaging information\n  Block Size                : %d\n  Cluster Size (16K Units)  : %d\n\n", d.BIBlockSize, d.BIClusterKB/16)
	if d.AI() {
		fmt.Fprintf(&b, " After Imaging Information\n  Block Size                : %d\n\n", d.AIBlockSize)
	}
	b.WriteString(" Backup Information\n  Last Full Backup Date     : *** Not yet performed ***\n\n")
	if d.Codepage != "" {
		fmt.Fprintf(&b, " Collation and Character Set Information\n  Database code page        : %s\n\n", d.Codepage)
	}
	b.WriteString(" Database Features\n\n    ID   Feature                            Active  Details\n    ----  ---------------------------------  ------  -------\n")
	for _, ft := range d.Features {
		fmt.Fprintf(&b, "    %3d  %-33s  %-6s\n", ft.ID, ft.Name, ft.Active)
	}
	return b.String()
}
