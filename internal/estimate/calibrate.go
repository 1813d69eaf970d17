package estimate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/plan"
)

// ErrPrecondition marks calibration errors that something outside oedl
// must fix first (no DLC, no source database, no plan): exit code 3.
var ErrPrecondition = errors.New("precondition")

// CalibrateConfig is one `oedl calibrate`.
type CalibrateConfig struct {
	DLC     string // $DLC: the utilities are $DLC/bin/<name>
	Source  string // source database; only read (tabanalys, dump)
	Work    string // everything calibrate writes goes under Work/calibrate
	PlanDir string // target.st and target.df for the scratch database; plan.json for index counts

	Hardware     Hardware // this machine's cores and memory (the disk is measured)
	SampleTables int      // small tables timed one by one (default 30)
	SampleMax    int64    // the "large" sample is the largest table up to this size (default 256 MiB)
	Streams      int      // concurrent loads of the parallel test (default min(4, cores))

	Runner execx.Runner // default execx.Local
	Log    io.Writer    // progress lines; may be nil
}

// Calibration is the fitted model and the measurements behind it.
type Calibration struct {
	Model   *Model   `json:"model"`
	Samples []sample `json:"samples"`
	Notes   []string `json:"notes"`
}

type calibrator struct {
	cfg     CalibrateConfig
	dir     string
	scratch string
	notes   []string
	samples []sample
	idx     plan.Idxbuild
	indexes map[string]int
}

// Calibrate times a short sample of real utility calls on this machine and
// fits the model to them (performance-model.md §5.5):
//
//  1. tabanalys of the source (read-only): the table list, and the cost of
//     a tabanalys per MB;
//  2. single-stream binary dumps of the largest table up to SampleMax and
//     of SampleTables smaller tables spread over the size ranking: start-up,
//     per-record and per-byte costs by least squares, CPU from the
//     utilities' own rusage;
//  3. a scratch database in Work built from the plan's target.st and
//     target.df (prostrct create, procopy, load .df), and the same tables
//     loaded into it one by one: the load's costs;
//  4. the same loads spread over Streams copies of the scratch database at
//     once: the disk's ceiling and the per-stream latency, which decide
//     how much parallel jobs and overlap gain;
//  5. one idxbuild of the scratch database with the plan's parameters: the
//     per-key cost; one tabanalys of it.
//
// The source is only read: every file written is under Work/calibrate.
func Calibrate(ctx context.Context, cfg CalibrateConfig) (*Calibration, error) {
	if cfg.Runner == nil {
		cfg.Runner = execx.Local{}
	}
	if cfg.SampleTables <= 0 {
		cfg.SampleTables = 30
	}
	if cfg.SampleMax <= 0 {
		cfg.SampleMax = 256 << 20
	}
	if cfg.Hardware.Cores < 1 {
		cfg.Hardware.Cores = 1
	}
	if cfg.Streams <= 0 {
		cfg.Streams = min(4, max(2, cfg.Hardware.Cores))
	}
	for _, p := range []*string{&cfg.DLC, &cfg.Source, &cfg.Work, &cfg.PlanDir} {
		if abs, err := filepath.Abs(*p); err == nil && *p != "" {
			*p = abs // the utilities run in other directories
		}
	}
	cfg.Source = strings.TrimSuffix(cfg.Source, ".db")
	c := &calibrator{cfg: cfg, dir: filepath.Join(cfg.Work, "calibrate"), indexes: map[string]int{}}
	if err := c.preconditions(); err != nil {
		return nil, err
	}
	if err := os.RemoveAll(c.dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(c.dir, "dump"), 0o755); err != nil {
		return nil, err
	}
	return c.run(ctx)
}

func (c *calibrator) preconditions() error {
	cfg := c.cfg
	if cfg.DLC == "" {
		return fmt.Errorf("%w: no DLC (give --dlc or set $DLC)", ErrPrecondition)
	}
	if _, err := os.Stat(c.bin(openedge.ToolProutil)); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrPrecondition, c.bin(openedge.ToolProutil), err)
	}
	if _, err := os.Stat(strings.TrimSuffix(cfg.Source, ".db") + ".db"); err != nil {
		return fmt.Errorf("%w: source database: %v", ErrPrecondition, err)
	}
	for _, f := range []string{"target.st", "target.df", "plan.json"} {
		if _, err := os.Stat(filepath.Join(cfg.PlanDir, f)); err != nil {
			return fmt.Errorf("%w: the scratch database is built from the plan: %v", ErrPrecondition, err)
		}
	}
	if cfg.Work == "" {
		return fmt.Errorf("%w: no work directory", ErrPrecondition)
	}
	return nil
}

func (c *calibrator) bin(name string) string { return filepath.Join(c.cfg.DLC, "bin", name) }

func (c *calibrator) logf(format string, a ...any) {
	if c.cfg.Log != nil {
		fmt.Fprintf(c.cfg.Log, format+"\n", a...)
	}
}

// timed runs one utility call alone and returns its wall and CPU time.
// The CPU time is the growth of this process's children rusage: calls are
// sequential here, so it is this call's.
func (c *calibrator) timed(ctx context.Context, cmd execx.Cmd) (execx.Result, float64, error) {
	before := childCPU()
	cmd.Env = append(cmd.Env, "DLC="+c.cfg.DLC)
	if cmd.Log == nil {
		f, err := os.OpenFile(filepath.Join(c.dir, "calibrate.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err == nil {
			defer f.Close()
			cmd.Log = f
		}
	}
	res, err := c.cfg.Runner.Run(ctx, cmd)
	if err != nil {
		return res, 0, fmt.Errorf("%s: %w\n%s", execx.Quote(append([]string{cmd.Path}, cmd.Args...)), err, tail(res.Output))
	}
	return res, childCPU() - before, nil
}

func childCPU() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func tail(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-5):], "\n")
}

type sampleTable struct {
	name    string
	records int64
	bytes   int64 // from tabanalys
	bd      int64 // .bd bytes written by the dump
	file    string
}

func (c *calibrator) run(ctx context.Context) (*Calibration, error) {
	m := DefaultModel()
	m.Hardware = c.cfg.Hardware
	m.Hardware.DiskModel = DiskSerial
	if p, err := plan.ReadJSON(filepath.Join(c.cfg.PlanDir, "plan.json")); err == nil {
		c.idx = p.Idxbuild
		for _, t := range p.Tables {
			c.indexes[t.Table] = t.Indexes
		}
	}

	// 1. tabanalys of the source.
	c.logf("tabanalys of the source (read-only)")
	res, cpu, err := c.timed(ctx, execx.Cmd{Path: c.bin(openedge.ToolProutil), Args: openedge.TabanalysArgs(c.cfg.Source, false, "")})
	if err != nil {
		return nil, err
	}
	a, err := openedge.ParseAnalysis(strings.NewReader(res.Output), "tabanalys of "+c.cfg.Source)
	if err != nil {
		return nil, err
	}
	var dbBytes int64
	for _, t := range a.Tables {
		dbBytes += t.Bytes
	}
	tabSource := sample{Job: "tabanalys source", Bytes: float64(dbBytes), Wall: res.Elapsed.Seconds(), CPU: cpu}
	tables := pickSample(a.Tables, c.cfg.SampleTables, c.cfg.SampleMax)
	if len(tables) < 3 {
		return nil, fmt.Errorf("%w: the source has %d non-empty tables; calibration needs at least 3", ErrPrecondition, len(tables))
	}

	// 2. Single-user dumps of the source, one at a time: the .bd files of
	// the sample (the source is only read).
	for _, t := range tables {
		dir := filepath.Join(c.dir, "dump", safeFile(t.name))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		res, _, err := c.timed(ctx, execx.Cmd{Path: c.bin(openedge.ToolProutil), Args: openedge.DumpArgs(c.cfg.Source, t.name, dir, openedge.DumpOptions{})})
		if err != nil {
			return nil, err
		}
		if r, err := openedge.ParseDumpOutput(res.Output); err == nil {
			t.records = r.Records
		}
		t.file = firstBD(dir)
	}
	c.logf("dumped %d sample tables from the source (largest %s, %s)", len(tables), tables[0].name, formatBytes(tables[0].bytes))

	// 3. The scratch database, served as oedl run serves its target, and
	// the sample loaded into it one table at a time.
	createStart := time.Now()
	if err := c.createScratch(ctx, c.scratchPath(0)); err != nil {
		return nil, err
	}
	createSec := time.Since(createStart).Seconds()
	res, _, err = c.timed(ctx, execx.Cmd{Path: c.bin(openedge.ToolProserve), Args: openedge.ProserveArgs(c.scratchPath(0))})
	if err != nil {
		return nil, err
	}
	serveSec := res.Elapsed.Seconds()
	served := []string{c.scratchPath(0)}
	defer func() { // never leave a broker behind
		for _, db := range served {
			_, _ = c.cfg.Runner.Run(context.Background(), execx.Cmd{Path: c.bin(openedge.ToolProshut), Args: openedge.ProshutArgs(db), Env: []string{"DLC=" + c.cfg.DLC}})
		}
	}()
	var loads []sample
	for _, t := range tables {
		if t.file == "" {
			continue
		}
		res, cpu, err := c.timed(ctx, execx.Cmd{Path: c.bin(openedge.ToolProutil), Args: openedge.LoadArgs(c.scratchPath(0), t.file, openedge.LoadOptions{})})
		if err != nil {
			return nil, err
		}
		loads = append(loads, sample{Job: "load " + t.name, Records: float64(t.records), Bytes: float64(t.bytes), Wall: res.Elapsed.Seconds(), CPU: cpu})
	}
	c.logf("loaded them into the served scratch database")

	// 4. Shut the scratch down and rebuild its indexes (a binary load
	// leaves them inactive), then serve it again.
	res, _, err = c.timed(ctx, execx.Cmd{Path: c.bin(openedge.ToolProshut), Args: openedge.ProshutArgs(c.scratchPath(0))})
	if err != nil {
		return nil, err
	}
	served = nil
	shutSec := res.Elapsed.Seconds()
	var keys, sampleBytes, sampleRecords float64
	for _, t := range tables {
		k := c.indexes[t.name]
		if k == 0 {
			k = int(m.Idxbuild.KeysPerRecord)
		}
		keys += float64(t.records) * float64(k)
		sampleBytes += float64(t.bytes)
		sampleRecords += float64(t.records)
	}
	res, cpu, err = c.timed(ctx, execx.Cmd{Path: c.bin(openedge.ToolProutil), Stdin: "y\ny\n",
		Args: openedge.IdxbuildArgs(c.scratchPath(0), openedge.IdxbuildAll(), idxParams(c.idx))})
	if err != nil {
		return nil, err
	}
	idx := sample{Job: "idxbuild scratch", Records: keys, Bytes: sampleBytes, Wall: res.Elapsed.Seconds(), CPU: cpu}
	if _, _, err := c.timed(ctx, execx.Cmd{Path: c.bin(openedge.ToolProserve), Args: openedge.ProserveArgs(c.scratchPath(0))}); err != nil {
		return nil, err
	}
	served = append(served, c.scratchPath(0))

	// 5. Dumps from the served scratch database, one at a time, as oedl
	// run dumps a served source.
	var dumps []sample
	for _, t := range tables {
		dir := filepath.Join(c.dir, "dump2", safeFile(t.name))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		res, cpu, err := c.timed(ctx, execx.Cmd{Path: c.bin(openedge.ToolProutil), Args: openedge.DumpArgs(c.scratchPath(0), t.name, dir, openedge.DumpOptions{})})
		if err != nil {
			return nil, err
		}
		dumps = append(dumps, sample{Job: "dump " + t.name, Records: float64(t.records), Bytes: float64(t.bytes), Wall: res.Elapsed.Seconds(), CPU: cpu})
	}
	c.logf("dumped them again from the served scratch database")

	// 6. The small tables again, Streams at a time, as the run does it:
	// dumped from the served scratch, then loaded into a second served
	// scratch. What they take beyond the single-stream costs is what
	// utilities starting at once on one database and disk cost each other.
	smallDumps, err := c.concurrent(ctx, "dump", tables[1:], func(t *sampleTable, dir string) []string {
		return openedge.DumpArgs(c.scratchPath(0), t.name, dir, openedge.DumpOptions{})
	})
	if err != nil {
		return nil, err
	}
	db2 := c.scratchPath(c.cfg.Streams + 1)
	if err := c.createScratch(ctx, db2); err != nil {
		return nil, err
	}
	if _, _, err := c.timed(ctx, execx.Cmd{Path: c.bin(openedge.ToolProserve), Args: openedge.ProserveArgs(db2)}); err != nil {
		return nil, err
	}
	served = append(served, db2)
	smallLoads, err := c.concurrent(ctx, "load", tables[1:], func(t *sampleTable, _ string) []string {
		return openedge.LoadArgs(db2, t.file, openedge.LoadOptions{})
	})
	if err != nil {
		return nil, err
	}

	// 7. The large table loaded into several fresh scratch copies at once:
	// the disk's ceiling.
	parallel, err := c.parallelLoads(ctx, tables, &served)
	if err != nil {
		return nil, err
	}

	// 8. tabanalys of the scratch database.
	res, cpu, err = c.timed(ctx, execx.Cmd{Path: c.bin(openedge.ToolProutil), Args: openedge.TabanalysArgs(c.scratchPath(0), false, "")})
	if err != nil {
		return nil, err
	}
	tabScratch := sample{Job: "tabanalys scratch", Records: sampleRecords, Bytes: sampleBytes, Wall: res.Elapsed.Seconds(), CPU: cpu}
	m.FixedSec["serve"], m.FixedSec["shutdown"] = serveSec, shutSec

	c.samples = append(append(append([]sample{tabSource}, dumps...), loads...), parallel, idx, tabScratch)
	if err := c.fit(m, dumps, loads, parallel, idx, []sample{tabSource, tabScratch}, createSec); err != nil {
		return nil, err
	}
	m.Dump.StartupIOKB = fitStartupIO(m, m.Dump, tables[1:], smallDumps, c.cfg.Streams)
	m.Load.StartupIOKB = fitStartupIO(m, m.Load, tables[1:], smallLoads, c.cfg.Streams)
	c.notes = append(c.notes, fmt.Sprintf("%d small dumps %d at a time: %s; loads: %s; start-up disk traffic fitted: dump %.0f KB, load %.0f KB",
		len(tables)-1, c.cfg.Streams, formatDuration(seconds(smallDumps.Wall)), formatDuration(seconds(smallLoads.Wall)), m.Dump.StartupIOKB, m.Load.StartupIOKB))
	c.samples = append(c.samples, smallDumps, smallLoads)
	m.Origin = fmt.Sprintf("calibrated %s on %s against %s (%d dumps, %d loads, %d-stream load test, 1 idxbuild)",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), hostname(), c.cfg.Source, len(dumps), len(loads), c.cfg.Streams)
	m.Uncertainty.Residuals = c.residuals(m, dumps, loads)
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("calibration produced an invalid model: %w", err)
	}
	return &Calibration{Model: m, Samples: c.samples, Notes: c.notes}, nil
}

// firstBD is the first .bd file a dump wrote into dir ("" if none).
func firstBD(dir string) string {
	files, _ := filepath.Glob(filepath.Join(dir, "*.bd*"))
	sort.Strings(files)
	if len(files) == 0 {
		return ""
	}
	return files[0]
}

func hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return "this machine"
	}
	return h
}

// pickSample is the largest table up to max and n smaller ones spread
// evenly over the size ranking (so that the fit sees both the per-table
// start-up of tiny tables and the per-byte cost of larger ones).
func pickSample(stats []openedge.TableStat, n int, maxBytes int64) []*sampleTable {
	var all []*sampleTable
	for _, t := range stats {
		if t.Records > 0 && t.Tenancy == "" {
			all = append(all, &sampleTable{name: t.QualifiedName(), records: t.Records, bytes: t.Bytes})
		}
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].bytes > all[b].bytes })
	first := 0
	for first < len(all) && all[first].bytes > maxBytes {
		first++
	}
	if first == len(all) {
		return nil
	}
	rest := all[first+1:]
	out := []*sampleTable{all[first]}
	if len(rest) <= n {
		return append(out, rest...)
	}
	for i := range n {
		out = append(out, rest[i*(len(rest)-1)/max(1, n-1)])
	}
	return out
}

func (c *calibrator) scratchPath(i int) string {
	return filepath.Join(c.dir, "scratch"+strconv.Itoa(i), "scratch")
}

// createScratch builds an empty database with the target's structure and
// schema. The plan's extents are moved into the scratch directory so that
// nothing is written where the real target will go.
func (c *calibrator) createScratch(ctx context.Context, db string) error {
	dir := filepath.Dir(db)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.Open(filepath.Join(c.cfg.PlanDir, "target.st"))
	if err != nil {
		return err
	}
	st, err := openedge.ParseStructure(f, f.Name())
	f.Close()
	if err != nil {
		return err
	}
	for _, a := range st.Areas {
		// One variable extent per area, here: the scratch holds a sample.
		if len(a.Extents) > 0 {
			a.Extents = []openedge.Extent{{Path: ".", Line: a.Extents[0].Line}}
		}
	}
	var buf bytes.Buffer
	if err := openedge.WriteStructure(&buf, st); err != nil {
		return err
	}
	stPath := filepath.Join(dir, "scratch.st")
	if err := os.WriteFile(stPath, buf.Bytes(), 0o644); err != nil {
		return err
	}
	bs := 8192
	if p, err := plan.ReadJSON(filepath.Join(c.cfg.PlanDir, "plan.json")); err == nil && p.BlockSize > 0 {
		bs = p.BlockSize
	}
	steps := []execx.Cmd{
		{Path: c.bin(openedge.ToolProstrct), Args: openedge.ProstrctCreateArgs(db, stPath, bs), Dir: dir},
		{Path: c.bin(openedge.ToolProcopy), Args: openedge.ProcopyArgs(filepath.Join(c.cfg.DLC, "empty"+strconv.Itoa(bs/1024)), db), Dir: dir},
		{Path: c.bin(openedge.ToolProgres), Args: []string{"-b", "-db", db, "-1", "-p", "prodict/load_df.p", "-param", filepath.Join(c.cfg.PlanDir, "target.df")}, Dir: dir},
	}
	for _, s := range steps {
		if _, _, err := c.timed(ctx, s); err != nil {
			return fmt.Errorf("scratch database: %w", err)
		}
	}
	return nil
}

// parallelLoads loads the large sample table into Streams fresh scratch
// databases at once (single-user, one stream each): n times the bytes of
// one stream, so the time it takes against one stream's says how much of
// the disk one stream leaves unused.
func (c *calibrator) parallelLoads(ctx context.Context, tables []*sampleTable, _ *[]string) (sample, error) {
	n := c.cfg.Streams
	big := tables[0]
	for i := 1; i <= n; i++ {
		if err := c.createScratch(ctx, c.scratchPath(i)); err != nil {
			return sample{}, err
		}
	}
	s := sample{Job: fmt.Sprintf("%d loads of %s at once", n, big.name),
		Records: float64(big.records) * float64(n), Bytes: float64(big.bytes) * float64(n)}
	start := time.Now()
	g, gctx := errgroup.WithContext(ctx)
	for i := 1; i <= n; i++ {
		g.Go(func() error {
			cmd := execx.Cmd{Path: c.bin(openedge.ToolProutil), Args: openedge.LoadArgs(c.scratchPath(i), big.file, openedge.LoadOptions{}),
				Env: []string{"DLC=" + c.cfg.DLC}}
			if res, err := c.cfg.Runner.Run(gctx, cmd); err != nil {
				return fmt.Errorf("parallel load: %w\n%s", err, tail(res.Output))
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return s, err
	}
	s.Wall = time.Since(start).Seconds()
	c.logf("%d loads of %s at once: %s", n, formatBytes(big.bytes), formatDuration(seconds(s.Wall)))
	return s, nil
}

// concurrent runs one utility call per table, Streams at a time, as a
// queue with Streams slots does, and times the whole.
func (c *calibrator) concurrent(ctx context.Context, what string, tables []*sampleTable, argv func(*sampleTable, string) []string) (sample, error) {
	s := sample{Job: fmt.Sprintf("%d small %ss, %d at a time", len(tables), what, c.cfg.Streams)}
	for _, t := range tables {
		s.Records += float64(t.records)
		s.Bytes += float64(t.bytes)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(c.cfg.Streams)
	start := time.Now()
	for i, t := range tables {
		if t.file == "" {
			continue
		}
		dir := filepath.Join(c.dir, what+"3", strconv.Itoa(i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return s, err
		}
		g.Go(func() error {
			cmd := execx.Cmd{Path: c.bin(openedge.ToolProutil), Args: argv(t, dir), Env: []string{"DLC=" + c.cfg.DLC}}
			if res, err := c.cfg.Runner.Run(gctx, cmd); err != nil {
				return fmt.Errorf("concurrent %s: %w\n%s", what, err, tail(res.Output))
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return s, err
	}
	s.Wall = time.Since(start).Seconds()
	return s, nil
}

// fitStartupIO finds the disk traffic per start (KB) that makes the
// simulated concurrent run of the small tables take as long as it did:
// bisection on the simulation, which is monotone in it.
func fitStartupIO(m *Model, p PhaseCost, tables []*sampleTable, measured sample, streams int) float64 {
	wall := func(kb float64) float64 {
		q := p
		q.StartupIOKB = kb
		var works []jobWork
		for _, t := range tables {
			works = append(works, jobWork{startup: q.startup(), flows: []flowDemand{q.demand(float64(t.records), float64(t.bytes))}})
		}
		return queueWall(works, streams, m.Hardware)
	}
	if m.Hardware.DiskMBps <= 0 || wall(0) >= measured.Wall {
		return 0
	}
	lo, hi := 0.0, 1.0
	for wall(hi) < measured.Wall && hi < 1e7 {
		hi *= 4
	}
	for range 40 {
		mid := (lo + hi) / 2
		if wall(mid) < measured.Wall {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// queueWall simulates works through a queue with n slots, in order, and
// returns when the last ends.
func queueWall(works []jobWork, n int, hw Hardware) float64 {
	s := newSim(hw)
	next := 0
	for ; next < len(works) && next < n; next++ {
		s.add(next, works[next])
	}
	for !s.idle() {
		for _, ev := range s.step() {
			if ev.taskDone && next < len(works) {
				s.add(next, works[next])
				next++
			}
		}
	}
	return s.now
}

func idxParams(p plan.Idxbuild) openedge.IdxbuildParams {
	return openedge.IdxbuildParams{SG: p.SG, TB: p.TB, TM: p.TM, TMB: p.TMB, B: p.B, TF: p.TF,
		Threadnum: p.Threadnum, Mergethreads: p.Mergethreads, Datascanthreads: p.Datascanthreads, Pfactor: p.Pfactor}
}

func safeFile(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ' ' {
			return '_'
		}
		return r
	}, s)
}

// fit turns the measurements into model parameters.
//
// CPU: the utilities' rusage, fitted against records and bytes. Wall time:
// start-up + per-record + per-byte by least squares; what the wall time
// has beyond the CPU is I/O. The parallel test tells the disk: when n
// streams at once move the sample's bytes no faster than one stream would,
// the disk is the limit and its throughput is what they achieved; the
// single stream's I/O time beyond that is the per-request latency.
func (c *calibrator) fit(m *Model, dumps, loads []sample, par, idx sample, tabs []sample, createSec float64) error {
	var err error
	dumpIO, err := fitPhase(&m.Dump, dumps)
	if err != nil {
		return fmt.Errorf("dump fit: %w", err)
	}
	loadIO, err := fitPhase(&m.Load, loads)
	if err != nil {
		return fmt.Errorf("load fit: %w", err)
	}
	// The disk in the model's terms: device bytes at a MB/s ceiling
	// (requests are folded into the throughput: IOPS 0).
	m.Hardware.DiskIOPS = 0
	loadDev := m.Load.ReadPerByte + m.Load.WritePerByte
	single := loadIO // s of I/O per table byte, one stream
	// Aggregate: the parallel loads minus their start-ups, spread over n.
	n := float64(c.cfg.Streams)
	parCPU := loads[0].CPU * n // the same large load, n times
	parIO := par.Wall - m.Load.StartupSec - parCPU/math.Min(n, float64(m.Hardware.Cores))
	perByte := math.Max(parIO, 1e-3) / math.Max(par.Bytes, 1) // s per table byte, all streams together
	switch {
	case single <= 0:
		// The disk did at least what the parallel test made it do.
		m.Hardware.DiskMBps = loadDev * par.Bytes / math.Max(par.Wall, 1e-3) / 1e6
		m.Hardware.DiskLatencyMs = 0
		c.notes = append(c.notes, fmt.Sprintf("I/O too fast to tell from CPU: the disk is set to what the parallel test reached, %.0f MB/s", m.Hardware.DiskMBps))
	default:
		// The device: at least as fast as the aggregate, no faster than n
		// single streams.
		devPerByte := math.Max(perByte, single/n)
		m.Hardware.DiskMBps = loadDev / devPerByte / 1e6
		// One stream's I/O beyond its share of device time is latency.
		opsPerByte := loadDev / (m.Load.IOSizeKB * 1024)
		if single > devPerByte*1.05 {
			m.Hardware.DiskLatencyMs = single / opsPerByte * 1000
		} else {
			m.Hardware.DiskLatencyMs = 0
		}
		c.notes = append(c.notes, fmt.Sprintf("load I/O: %.3g s/MB one stream, %.3g s/MB with %d streams: disk %.0f MB/s, per-request latency %.2g ms",
			single*1e6, perByte*1e6, c.cfg.Streams, m.Hardware.DiskMBps, m.Hardware.DiskLatencyMs))
	}
	// The dump's device traffic per table byte, in the same disk's terms.
	if dumpIO > 0 {
		dev := deviceFactor(dumpIO, m.Hardware, m.Dump.IOSizeKB, 1)
		m.Dump.ReadPerByte, m.Dump.WritePerByte = dev/2, dev/2
	}
	// idxbuild: CPU per key from its rusage; I/O per byte from the rest.
	if idx.Records > 0 {
		cpuKeys := math.Max(0, idx.CPU-idx.Bytes/1e6*m.Idxbuild.CPUPerMB)
		m.Idxbuild.CPUPerKeyUs = cpuKeys / idx.Records * 1e6
		par := math.Max(1, math.Min(float64(m.Hardware.Cores), float64(max(1, c.idx.Threadnum*max(1, c.idx.Mergethreads), c.idx.Datascanthreads))))
		io := idx.Wall - m.Idxbuild.StartupSec - idx.CPU/par
		if io > 0 && idx.Bytes > 0 {
			qd := math.Max(1, math.Max(float64(c.idx.Datascanthreads), float64(c.idx.Threadnum)))
			dev := deviceFactor(io/idx.Bytes, m.Hardware, m.Idxbuild.IOSizeKB, qd)
			m.Idxbuild.ReadPerByte, m.Idxbuild.WritePerByte = dev/2, dev/2
		} else {
			m.Idxbuild.StartupSec = math.Max(0, idx.Wall-idx.CPU/par)
			m.Idxbuild.ReadPerByte, m.Idxbuild.WritePerByte = 0, 0
		}
	}
	// tabanalys: two points (source, scratch): start-up + per byte.
	if len(tabs) == 2 && tabs[0].Bytes != tabs[1].Bytes {
		slope := (tabs[0].Wall - tabs[1].Wall) / (tabs[0].Bytes - tabs[1].Bytes)
		m.Tabanalys.StartupSec = math.Max(0, tabs[1].Wall-slope*tabs[1].Bytes)
		if slope > 0 {
			m.Tabanalys.ReadPerByte = deviceFactor(slope, m.Hardware, m.Tabanalys.IOSizeKB, 1)
			m.Tabanalys.CPUPerMB = 0
		}
	}
	// One utility call each; preflight and verify are oedl's own Go code.
	m.FixedSec["create-target"] = createSec
	m.DFPerTableSec = 0 // createSec loaded the whole .df
	for _, k := range []string{"dump-df", "dump-sequences", "load-sequences", "post"} {
		m.FixedSec[k] = m.Load.StartupSec
	}
	m.FixedSec["preflight"], m.FixedSec["verify"] = 0.1, 0.1
	return nil
}

// deviceFactor is the device bytes per table byte that make a stream
// with qd requests in flight spend ioPerByte seconds of I/O per table byte
// on hw, alone: the larger of its device time and its requests × latency
// / qd is its I/O time.
func deviceFactor(ioPerByte float64, hw Hardware, ioSizeKB, qd float64) float64 {
	d := math.Inf(1)
	if hw.DiskMBps > 0 {
		d = ioPerByte * hw.DiskMBps * 1e6
	}
	if hw.DiskLatencyMs > 0 {
		d = math.Min(d, ioPerByte*qd*ioSizeKB*1024/(hw.DiskLatencyMs/1000))
	}
	if math.IsInf(d, 1) {
		return 0
	}
	return d
}

// fitPhase fits start-up, CPU and I/O costs of one kind of stream and
// returns its I/O time per table byte (0 when the CPU explains it all).
func fitPhase(p *PhaseCost, s []sample) (ioPerByte float64, err error) {
	rec, byt, wall, cpu := make([]float64, len(s)), make([]float64, len(s)), make([]float64, len(s)), make([]float64, len(s))
	for i, x := range s {
		rec[i], byt[i], wall[i], cpu[i] = x.Records, x.Bytes, x.Wall, x.CPU
	}
	t0, wr, wb, err := robustFit(rec, byt, wall)
	if err != nil {
		return 0, err
	}
	c0, cr, cb, err := fitLinear(rec, byt, cpu)
	if err != nil {
		return 0, err
	}
	p.StartupSec = t0
	p.StartupCPUSec = math.Min(c0, t0)
	p.CPUPerRecordUs = cr * 1e6
	p.CPUPerMB = cb * 1e6
	// Wall per record beyond CPU per record goes with the bytes (records
	// and bytes move together; the I/O is what is left of the wall time).
	ioPerByte = wb - cb
	if extra := wr - cr; extra > 0 {
		var r, b float64
		for i := range s {
			r += rec[i]
			b += byt[i]
		}
		if b > 0 {
			ioPerByte += extra * r / b
		}
	}
	return math.Max(0, ioPerByte), nil
}

// robustFit is fitLinear, refitted without the samples whose residual is
// beyond 3 median absolute deviations: one call that lost the CPU to a
// neighbour for half a second must not set the per-byte cost.
func robustFit(x1, x2, y []float64) (a, b, c float64, err error) {
	a, b, c, err = fitLinear(x1, x2, y)
	if err != nil || len(y) < 6 {
		return a, b, c, err
	}
	res := make([]float64, len(y))
	for i := range y {
		res[i] = math.Abs(y[i] - a - b*x1[i] - c*x2[i])
	}
	sorted := append([]float64(nil), res...)
	sort.Float64s(sorted)
	mad := sorted[len(sorted)/2]
	var k1, k2, ky []float64
	for i := range y {
		if res[i] <= 3*mad || mad == 0 {
			k1, k2, ky = append(k1, x1[i]), append(k2, x2[i]), append(ky, y[i])
		}
	}
	if len(ky) < 3 || len(ky) == len(y) {
		return a, b, c, nil
	}
	return fitLinear(k1, k2, ky)
}

// residuals are log(measured / modelled alone) of the timed jobs, for the
// Monte Carlo range.
func (c *calibrator) residuals(m *Model, dumps, loads []sample) []float64 {
	var out []float64
	for _, group := range []struct {
		p PhaseCost
		s []sample
	}{{m.Dump, dumps}, {m.Load, loads}} {
		for _, x := range group.s {
			w := jobWork{startup: group.p.startup(), flows: []flowDemand{group.p.demand(x.Records, x.Bytes)}}
			pred := aloneDuration(w, m.Hardware).Seconds()
			if pred > 0 && x.Wall > 0 {
				out = append(out, math.Log(x.Wall/pred))
			}
		}
	}
	return out
}
