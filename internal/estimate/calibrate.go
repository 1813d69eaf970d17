package estimate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/oedl/oedl/internal/diskstats"
	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/room"
	"github.com/oedl/oedl/internal/units"
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

	// Hardware is this machine: its cores and memory, and its disk when
	// KnownDisk (the description the user gave: the calibration then fits
	// the utilities' traffic on it and keeps it, so that an estimate on
	// another disk changes only the disk); otherwise the disk is measured,
	// in the model's terms.
	Hardware  Hardware
	KnownDisk bool
	// Stats, when set, are the disk's request counters (a /proc/diskstats
	// line): each timed call's requests and bytes are then measured, not
	// taken from the priors.
	Stats        *diskstats.Source
	SampleTables int   // small tables timed one by one (default 30)
	SampleMax    int64 // the large sample: about this much of the largest table, by dumpspecified (default 256 MiB)
	Streams      int   // concurrent loads of the parallel test (default min(4, cores))

	// SourceRoom finds where the source grows while it is served and the
	// room its disks keep (room.ForSource; it lists the source, so it is
	// asked once the preconditions hold): calibrate writes gigabytes
	// beside a live source when WORK shares its filesystem. nil: only the
	// calibration's own room is checked.
	SourceRoom func(context.Context) (*room.Source, error)

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
	cfg CalibrateConfig
	dir string
	// startupPF is $PROSTARTUP made absolute from oedl's directory: the
	// file preconditions checks, and the name the utilities, which run in
	// the scratch directory, are handed (exec). Empty when unset.
	startupPF string
	scratch   string
	notes     []string
	samples   []sample
	idx       plan.Idxbuild
	tables    map[string]*plan.Placement // the plan's, by name: index counts
	// largeMin is the largest of the sample's other tables: idxbuild prices
	// tables above it at the large table's rate.
	largeMin int64
	// srcKB and dstKB are the source's and the target's database blocks:
	// the size of a random request of a dump, of a load.
	srcKB, dstKB float64
	// measured are the phases whose traffic the disk's counters gave.
	measured map[string]bool
	// sourceRoom is where the source grows (CalibrateConfig.SourceRoom).
	sourceRoom *room.Source
}

// Calibrate times a short sample of real utility calls on this machine and
// fits the model to them (performance-model.md §5.5; docs/estimate.md):
//
//  1. tabanalys of the source (read-only): the table list, a tabanalys cost;
//  2. single-user dumps of the large sample (a dumpspecified slice of
//     about SampleMax of the largest table, or the largest table up to
//     SampleMax when it cannot be sliced: calibrate_slice.go) and of
//     SampleTables smaller ones spread over the size ranking: the sample's
//     .bd files;
//  3. the cost of formatting a fixed extent; a scratch database in Work
//     from the plan's target.st and target.df, on fixed extents sized for
//     the sample (sizeScratch: no timed call grows an extent), served as
//     the run serves its target, and the sample loaded into it one table
//     at a time: start-up,
//     per-record and per-byte load costs by least squares, CPU from the
//     utilities' own rusage;
//  4. three idxbuilds with the plan's parameters: of an empty scratch (the
//     cost per index), of the largest sample table and of the loaded
//     scratch (per byte, per key);
//  5. the sample dumped again from the served scratch, one at a time: the
//     dump's costs (per table, the slower of this and the source's
//     single-user dump: a served database with the source's layout);
//  6. the small tables dumped as many at a time as the run's default
//     queue, then dumped again with their loads running beside them, as
//     the overlapped run does: the disk traffic of a start-up, fitted by
//     simulating those very queues;
//     Then the small tables loaded as the queue runs loads into another
//     scratch with "build indexes": its cost, for oedl run --build-indexes;
//     Then once more in one call beside dumps of the large table, one
//     after another: how long a request queued ahead of a waited one
//     holds the device (Hardware.DiskQueueMs), fitted by simulating it;
//  7. the large table loaded into Streams fresh scratch copies at once: the
//     disk's ceiling and the per-request latency;
//  8. tabanalys of the scratch.
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
	c := &calibrator{cfg: cfg, dir: filepath.Join(cfg.Work, ScratchDir), tables: map[string]*plan.Placement{}}
	if pf := os.Getenv("PROSTARTUP"); pf != "" {
		abs, err := filepath.Abs(pf)
		if err != nil {
			return nil, err
		}
		c.startupPF = abs
	}
	if err := c.preconditions(); err != nil {
		return nil, err
	}
	if err := CheckScratch(cfg.Work, cfg.Source+".db", cfg.PlanDir); err != nil {
		return nil, err // what it holds is not all the calibration's to clear
	}
	if cfg.SourceRoom != nil {
		var err error
		if c.sourceRoom, err = cfg.SourceRoom(ctx); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrPrecondition, err)
		}
	}
	if err := c.stopEarlierBrokers(ctx); err != nil {
		return nil, err
	}
	if err := c.refuseLeftLock(ctx); err != nil {
		return nil, err
	}
	if err := os.RemoveAll(c.dir); err != nil {
		return nil, err
	}
	for _, d := range []string{"dump", "sort"} {
		if err := os.MkdirAll(filepath.Join(c.dir, d), 0o755); err != nil {
			return nil, err
		}
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
	for _, f := range []string{plan.FileStructure, plan.FileDF, plan.FilePlan} {
		if _, err := os.Stat(filepath.Join(cfg.PlanDir, f)); err != nil {
			return fmt.Errorf("%w: the scratch database is built from the plan: %v", ErrPrecondition, err)
		}
	}
	// The scratch database is made from the plan as run makes the target:
	// a plan run would refuse (plan.ReadTarget) is refused here, naming
	// file and line (a *plan.InvalidError: bad input), before any utility.
	p, err := plan.ReadJSON(filepath.Join(cfg.PlanDir, plan.FilePlan))
	if err != nil {
		return &plan.InvalidError{Err: err}
	}
	if _, err := plan.ReadTarget(cfg.PlanDir, p, true); err != nil {
		return err
	}
	if cfg.Work == "" {
		return fmt.Errorf("%w: no work directory", ErrPrecondition)
	}
	// The scratch database gets the plan's .df through load_df.p, in the
	// scratch directory: it is handed the file checked (exec).
	if err := openedge.NoStartupDatabase(c.startupPF, cfg.DLC, os.ReadFile); err != nil {
		return fmt.Errorf("%w: %v", ErrPrecondition, err)
	}
	return nil
}

func (c *calibrator) bin(name string) string { return filepath.Join(c.cfg.DLC, "bin", name) }

func (c *calibrator) logf(format string, a ...any) {
	if c.cfg.Log != nil {
		fmt.Fprintf(c.cfg.Log, format+"\n", a...)
	}
}

// sampleTable is one table of the calibration sample.
type sampleTable struct {
	name    string
	records int64
	bytes   int64 // from tabanalys
	bd      int64 // .bd bytes written by the dump
	file    string
	slice   string // "field OP value" when the sample is a dumpspecified range of the table
}

func (c *calibrator) run(ctx context.Context) (*Calibration, error) {
	m := DefaultModel()
	m.Hardware = c.cfg.Hardware
	if !c.cfg.KnownDisk {
		m.Hardware.DiskModel = DiskSerial
	}
	c.srcKB, c.dstKB = defaultRandomKB, defaultRandomKB
	if p, err := plan.ReadJSON(filepath.Join(c.cfg.PlanDir, "plan.json")); err == nil {
		if p.Source.BlockSize > 0 {
			c.srcKB = float64(p.Source.BlockSize) / 1024
		}
		if p.BlockSize > 0 {
			c.dstKB = float64(p.BlockSize) / 1024
		}
		c.idx = p.Idxbuild
		for _, t := range p.Tables {
			c.tables[t.Table] = &t
		}
	}

	// 1. tabanalys of the source.
	c.logf("tabanalys of the source (read-only)")
	res, cpu, io, err := c.timedIO(ctx, execx.Cmd{Path: c.bin(openedge.ToolProutil), Args: openedge.TabanalysArgs(c.cfg.Source, false, "")})
	if err != nil {
		return nil, err
	}
	a, err := openedge.ParseAnalysis(strings.NewReader(res.Output), "tabanalys of "+c.cfg.Source)
	if err != nil {
		return nil, err
	}
	// The report lists the meta-schema too (PUB._Field, ...): not dumped.
	a.Tables = slices.DeleteFunc(a.Tables, openedge.TableStat.System)
	var dbBytes int64
	for _, t := range a.Tables {
		dbBytes += t.Bytes
	}
	tabSource := sample{Job: "tabanalys source", Bytes: float64(dbBytes), Wall: res.Elapsed.Seconds(), CPU: cpu, IO: io}
	tables := pickSample(a.Tables, c.cfg.SampleTables, c.cfg.SampleMax)
	// The largest table, when it is over SampleMax: a slice of it replaces
	// the largest table under SampleMax as the large sample.
	// Its room, before the first dump: the large sample counted at
	// SampleMax when the largest table is sliced to it.
	take, err := c.calibrationTake(c.withLargeSample(tables, a.Tables))
	if err != nil {
		return nil, err
	}
	if err := c.checkRoom(take); err != nil {
		return nil, err
	}
	slice, sliceDump, err := c.largeSample(ctx, a.Tables)
	if err != nil {
		return nil, err
	}
	if slice != nil {
		if len(tables) == 0 {
			tables = []*sampleTable{slice}
		} else {
			tables[0] = slice
		}
	}
	if len(tables) < 3 {
		return nil, fmt.Errorf("%w: the source has %d non-empty tables; calibration needs at least 3", ErrPrecondition, len(tables))
	}

	// 2. Single-user dumps of the source, one at a time: the .bd files of
	// the sample (the source is only read), and the dump's costs on the
	// source's own layout (a table's blocks among its area's neighbours).
	var sourceDumps []sample
	for _, t := range tables {
		if t == slice {
			sourceDumps = append(sourceDumps, *sliceDump)
			continue
		}
		dir := filepath.Join(c.dir, "dump", safeFile(t.name))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		res, cpu, io, err := c.timedIO(ctx, execx.Cmd{Path: c.bin(openedge.ToolProutil), Args: openedge.DumpArgs(c.cfg.Source, t.name, dir, openedge.DumpOptions{})})
		if err != nil {
			return nil, err
		}
		if r, err := openedge.ParseDumpOutput(res.Output); err == nil {
			t.records = r.Records
		}
		t.file = firstBD(dir)
		sourceDumps = append(sourceDumps, sample{Job: "dump " + t.name + " (source)", Records: float64(t.records), Bytes: float64(t.bytes), Wall: res.Elapsed.Seconds(), CPU: cpu, IO: io})
	}
	c.logf("dumped %d sample tables from the source (largest %s, %s)", len(tables), tables[0].name, units.FormatIEC(tables[0].bytes))

	// 3. The scratch database, served as oedl run serves its target, and
	// the sample loaded into it one table at a time.
	// Its indexes are rebuilt four times (the large table twice, then the
	// whole sample twice: fastest), each writing new blocks.
	if err := c.createScratch(ctx, c.scratchPath(0), scratchFill{tables: tables, indexWrites: 4}); err != nil {
		return nil, err
	}
	extent, err := c.fixedExtentCost(ctx)
	if err != nil {
		return nil, err
	}
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
		res, cpu, io, err := c.timedIO(ctx, execx.Cmd{Path: c.bin(openedge.ToolProutil), Args: openedge.LoadArgs(c.scratchPath(0), t.file, openedge.LoadOptions{})})
		if err != nil {
			return nil, err
		}
		loads = append(loads, sample{Job: "load " + t.name, Records: float64(t.records), Bytes: float64(t.bytes), Wall: res.Elapsed.Seconds(), CPU: cpu, IO: io})
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
	var keys, sampleBytes, sampleRecords, schemaIndexes float64
	indexesOf := func(t *sampleTable) float64 {
		if p := c.tables[t.name]; p != nil && p.Indexes > 0 {
			return float64(p.Indexes)
		}
		return math.Round(m.Idxbuild.KeysPerRecord)
	}
	// The keys as the estimate counts them (a WORD index's per word), so
	// that the cost per key fitted here is the one it multiplies.
	keysOf := func(t *sampleTable) float64 {
		if p := c.tables[t.name]; p != nil && p.Indexes > 0 {
			return float64(t.records) * m.keysPerRecord(p)
		}
		return float64(t.records) * indexesOf(t)
	}
	for _, t := range tables {
		keys += keysOf(t)
		sampleBytes += float64(t.bytes)
		sampleRecords += float64(t.records)
	}
	for name := range c.tables {
		schemaIndexes += indexesOf(&sampleTable{name: name})
	}
	// Three rebuilds: the schema without data (every index, no keys: what
	// an index costs whatever its size), the largest table alone, then the
	// whole sample (every index, the sample's keys): the cost per index,
	// per byte of the large table and per byte of the others.
	// The empty one's creation is create-target's fixed time: its extents
	// are all variable, as the formatting of the target's fixed extents
	// is priced on its own (Model.ExtentWritePerByte).
	emptyDB := c.scratchPath(c.cfg.Streams + 2)
	createStart := time.Now()
	if err := c.createScratch(ctx, emptyDB, scratchFill{}); err != nil {
		return nil, err
	}
	createSec := time.Since(createStart).Seconds()
	res, cpu, io, err = c.timedIO(ctx, execx.Cmd{Path: c.bin(openedge.ToolProutil), Stdin: "y\ny\n",
		Args: openedge.IdxbuildArgs(emptyDB, openedge.IdxbuildAll(), c.idxParams())})
	if err != nil {
		return nil, err
	}
	idxEmpty := sample{Job: "idxbuild of the schema without data", Indexes: schemaIndexes, Wall: res.Elapsed.Seconds(), CPU: cpu, IO: io}
	_ = os.RemoveAll(filepath.Dir(emptyDB))
	big := tables[0]
	for _, t := range tables[1:] {
		c.largeMin = max(c.largeMin, t.bytes)
	}
	// Each rebuild twice, the faster kept (fastest): one call sets
	// idxbuild's costs per byte and per key for the whole database.
	rebuild := func(sel openedge.IdxbuildTarget, s sample) (sample, error) {
		return fastest(func() (sample, error) {
			res, cpu, io, err := c.timedIO(ctx, execx.Cmd{Path: c.bin(openedge.ToolProutil), Stdin: "y\ny\n",
				Args: openedge.IdxbuildArgs(c.scratchPath(0), sel, c.idxParams())})
			s.Wall, s.CPU, s.IO = res.Elapsed.Seconds(), cpu, io
			return s, err
		})
	}
	idxBig, err := rebuild(openedge.IdxbuildTable(big.name), sample{Job: "idxbuild " + big.name,
		Records: keysOf(big), Bytes: float64(big.bytes), Indexes: indexesOf(big)})
	if err != nil {
		return nil, err
	}
	idx, err := rebuild(openedge.IdxbuildAll(), sample{Job: "idxbuild scratch", Records: keys, Bytes: sampleBytes, Indexes: schemaIndexes})
	if err != nil {
		return nil, err
	}
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
		res, cpu, io, err := c.timedIO(ctx, execx.Cmd{Path: c.bin(openedge.ToolProutil), Args: openedge.DumpArgs(c.scratchPath(0), t.name, dir, openedge.DumpOptions{})})
		if err != nil {
			return nil, err
		}
		dumps = append(dumps, sample{Job: "dump " + t.name, Records: float64(t.records), Bytes: float64(t.bytes), Wall: res.Elapsed.Seconds(), CPU: cpu, IO: io})
	}
	c.logf("dumped them again from the served scratch database")

	// 6. The small tables again, several at a time, as the run does it:
	// dumped from the served scratch, as many at a time as the core rule
	// of oedl run's defaults gives this machine (DefaultStrategy: the
	// model that DefaultJobs would size them with is what this measures);
	// then dumped again while their
	// loads run into a second served scratch beside them, as the
	// overlapped run does. What they take beyond the single-stream costs is
	// what utilities starting at once on one database and disk cost each
	// other (their start-up's disk traffic, fitted below).
	queue := DefaultStrategy(c.cfg.Hardware)
	dumpQueue := func(dir string) sampleQueue {
		return sampleQueue{what: "dumps", dir: dir, slots: queue.DumpJobs, tables: tables[1:], argv: func(t *sampleTable, dir string) []string {
			return openedge.DumpArgs(c.scratchPath(0), t.name, dir, openedge.DumpOptions{})
		}}
	}
	self := selfCPU()
	only, err := c.concurrent(ctx, dumpQueue("dump3"))
	if err != nil {
		return nil, err
	}
	// What those calls cost this process (starting each, waiting for it,
	// reading its output): the part of oedl run's own CPU per job that
	// calibrate can see (Model.RunCPUPerJobSec).
	m.RunCPUPerJobSec = (selfCPU() - self) / float64(max(1, len(tables)-1))
	smallDumps := only[0]
	db2 := c.scratchPath(c.cfg.Streams + 1)
	if err := c.servedScratch(ctx, db2, scratchFill{tables: tables[1:]}, &served); err != nil {
		return nil, err
	}
	both, err := c.concurrent(ctx, sampleQueue{what: "loads", dir: "load3", slots: queue.LoadJobs, tables: tables[1:],
		argv: func(t *sampleTable, _ string) []string { return openedge.LoadArgs(db2, t.file, openedge.LoadOptions{}) }},
		dumpQueue("dump4"))
	if err != nil {
		return nil, err
	}
	smallLoads := both[0]

	// 6b. The small tables loaded once more, as many at a time as the
	// queue runs loads, into a fresh served scratch with "build indexes":
	// what building the indexes during the loads costs here (oedl run
	// --build-indexes), contention between the loads included.
	biDB := c.scratchPath(c.cfg.Streams + 3)
	if err := c.servedScratch(ctx, biDB, scratchFill{tables: tables[1:], buildsIndexes: true}, &served); err != nil {
		return nil, err
	}
	bi, err := c.concurrent(ctx, sampleQueue{what: "loads with build indexes", dir: "load4", slots: queue.LoadJobs, tables: tables[1:],
		argv: func(t *sampleTable, _ string) []string {
			return openedge.LoadArgs(biDB, t.file, openedge.LoadOptions{BuildIndexes: true, TempDir: filepath.Join(c.dir, "sort")})
		}})
	if err != nil {
		return nil, err
	}

	// 6c. The small tables loaded once more, all in one -dumplist call, as
	// the run loads a batch, into a fresh served scratch: what each table
	// costs a load beyond one start-up and its data (its indexes
	// deactivated, under the schema lock: Model.LoadTableSec).
	// Only the tables whose single load was mostly its start-up: a
	// table's cost is a few ms against each call's 0.17 s, and one table
	// whose data took a second (seed003's second-largest) adds its data
	// time's noise on both sides of the difference (fitLoadTableSec).
	startupBound := startupBoundTables(tables[1:], loads)
	batch, err := c.batchLoad(ctx, c.scratchPath(c.cfg.Streams+4), startupBound, &served)
	if err != nil {
		return nil, err
	}

	// 6d. The small tables in one call once more, into a fresh served
	// scratch, while the large table is dumped from the first one, one
	// dump after another, all along: what the batch's waited requests
	// (each table's .bd and commit) wait behind a stream's queued ones
	// (Hardware.DiskQueueMs).
	// The batch of all the small tables takes what the start-up-bound
	// ones took in one call and at most each other table's single load:
	// enough dumps to last it (more only run after its end).
	allBatch := batch.Wall
	for _, l := range loadsOf(tables[1:], loads) {
		if !slices.ContainsFunc(startupBound, func(t *sampleTable) bool { return "load "+t.name == l.Job }) {
			allBatch += l.Wall
		}
	}
	besideDumps := 1
	if len(dumps) > 0 && dumps[0].Wall > 0 {
		besideDumps += int(math.Ceil(allBatch / dumps[0].Wall))
	}
	if err := c.checkRoom(room.Take{Dir: c.dir, Bytes: int64(besideDumps) * tables[0].bytes,
		What: []string{fmt.Sprintf("%d dumps of %s beside the batch", besideDumps, tables[0].name)}}); err != nil {
		return nil, err
	}
	beside, err := c.batchBesideDumps(ctx, c.scratchPath(c.cfg.Streams+5), c.scratchPath(0), tables[1:], tables[0], besideDumps, &served)
	if err != nil {
		return nil, err
	}

	// 7. The large table loaded into several fresh scratch copies at once:
	// the disk's ceiling.
	parallel, err := c.parallelLoads(ctx, tables)
	if err != nil {
		return nil, err
	}

	// 8. tabanalys of the scratch database.
	res, cpu, io, err = c.timedIO(ctx, execx.Cmd{Path: c.bin(openedge.ToolProutil), Args: openedge.TabanalysArgs(c.scratchPath(0), false, "")})
	if err != nil {
		return nil, err
	}
	tabScratch := sample{Job: "tabanalys scratch", Records: sampleRecords, Bytes: sampleBytes, Wall: res.Elapsed.Seconds(), CPU: cpu, IO: io}
	m.FixedSec["serve"], m.FixedSec["shutdown"] = serveSec, shutSec

	c.samples = append(append(append([]sample{tabSource}, dumps...), loads...), parallel, idxEmpty, idxBig, idx, tabScratch)
	dumps = asRunDumps(dumps, sourceDumps)
	c.samples = append(c.samples, sourceDumps...)
	if err := c.fit(m, dumps, loads, parallel, [3]sample{idxEmpty, idxBig, idx}, []sample{tabSource, tabScratch}, createSec); err != nil {
		return nil, err
	}
	switch _, mbps, _, _ := m.Hardware.Ceilings(); {
	case extent.counted:
		m.ExtentWritePerByte = math.Max(0, extent.written) / extent.bytes
	case mbps > 0:
		m.ExtentWritePerByte = math.Max(0, extent.sec) * mbps * 1e6 / extent.bytes
	}
	// The disk traffic of a start: counted (the counters' intercepts), or
	// fitted to the queues' time.
	if !c.measured["dump"] {
		m.Dump.StartupIOKB = fitStartupIO(m, m.Dump, tables[1:], smallDumps, queue.DumpJobs)
	}
	if !c.measured["load"] {
		m.Load.StartupIOKB = fitStartupIO(m, m.Load, tables[1:], smallLoads, queue.LoadJobs, m.Dump.queue(tables[1:], queue.DumpJobs, m.Hardware))
	}
	c.notes = append(c.notes, fmt.Sprintf("%d small dumps %d at a time: %s; their loads %d at a time beside them again: %s; start-up disk traffic: dump %s, load %s",
		len(tables)-1, queue.DumpJobs, units.FormatDuration(seconds(smallDumps.Wall)), queue.LoadJobs, units.FormatDuration(seconds(smallLoads.Wall)), units.FormatIEC(int64(m.Dump.StartupIOKB*1024)), units.FormatIEC(int64(m.Load.StartupIOKB*1024))))
	c.samples = append(c.samples, smallDumps, both[0], both[1])
	c.samples = append(c.samples, bi[0], batch)
	c.fitLoadKeyFactor(m, tables[1:], bi[0], queue.LoadJobs)
	c.notes = append(c.notes, fitLoadTableSec(m, batch, loadsOf(startupBound, loads)))
	c.samples = append(c.samples, beside)
	c.notes = append(c.notes, fitDiskQueue(m, tables[1:], beside, tables[0], besideDumps))
	m.Origin = fmt.Sprintf("calibrated %s on %s against %s (%d dumps, %d loads, %d-stream load test, 2 idxbuilds)",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), hostname(), c.cfg.Source, len(dumps), len(loads), c.cfg.Streams)
	m.Uncertainty.Residuals = c.residuals(m, dumps, loads)
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("calibration produced an invalid model: %w", err)
	}
	return &Calibration{Model: m, Samples: c.samples, Notes: c.notes}, nil
}

// refuseLeftLock refuses a source whose DB.lk nobody holds: the
// calibration's first tabanalys would open it and so run OpenEdge's crash
// recovery on it, writing the source (openedge.LeftLockRefusal; safety
// trial 14: calibrate removed the DB.lk a killed broker left and said
// nothing).
func (c *calibrator) refuseLeftLock(ctx context.Context) error {
	if _, err := os.Lstat(c.cfg.Source + ".lk"); err != nil {
		return nil // no lock, or none this user can see: the utilities answer
	}
	res, err := c.cfg.Runner.Run(ctx, execx.Cmd{Path: c.bin(openedge.ToolProutil), Args: []string{c.cfg.Source, "-C", "holder"}, Timeout: time.Minute})
	if err != nil && !errors.Is(err, execx.ErrExit) {
		return fmt.Errorf("proutil %s -C holder: %w", c.cfg.Source, err)
	}
	if res.ExitCode != 0 { // held (14, 16): the source's holder is the utilities' to refuse
		return nil
	}
	return fmt.Errorf("%w: %s", ErrPrecondition, openedge.LeftLockRefusal(c.cfg.Source, ""))
}
