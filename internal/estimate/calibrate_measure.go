package estimate

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/oedl/oedl/internal/diskstats"
	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/units"
)

// timed runs one utility call alone and returns its wall and CPU time.
// The CPU time is the growth of this process's children rusage: calls are
// sequential here, so it is this call's.
func (c *calibrator) timed(ctx context.Context, cmd execx.Cmd) (execx.Result, float64, error) {
	res, cpu, _, err := c.timedIO(ctx, cmd)
	return res, cpu, err
}

// timedIO is timed with the disk's counters around the call, when
// calibrate reads them (nil otherwise): the requests and bytes the device
// saw for it.
func (c *calibrator) timedIO(ctx context.Context, cmd execx.Cmd) (execx.Result, float64, *diskstats.Counts, error) {
	var before diskstats.Counts
	if c.cfg.Stats != nil {
		var err error
		if before, err = c.cfg.Stats.Read(); err != nil {
			return execx.Result{}, 0, nil, fmt.Errorf("disk counters: %w", err)
		}
	}
	res, cpu, err := c.exec(ctx, cmd)
	if err != nil || c.cfg.Stats == nil {
		return res, cpu, nil, err
	}
	after, err := c.cfg.Stats.Read()
	if err != nil {
		return res, cpu, nil, fmt.Errorf("disk counters: %w", err)
	}
	io := after.Sub(before)
	return res, cpu, &io, nil
}

func (c *calibrator) exec(ctx context.Context, cmd execx.Cmd) (execx.Result, float64, error) {
	before := childCPU()
	cmd.Env = append(cmd.Env, "DLC="+c.cfg.DLC)
	if c.startupPF != "" {
		cmd.Env = append(cmd.Env, "PROSTARTUP="+c.startupPF)
	}
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

func childCPU() float64 { return cpuOf(syscall.RUSAGE_CHILDREN) }

// selfCPU is this process's own CPU so far: what starting utilities and
// reading their output cost the caller.
func selfCPU() float64 { return cpuOf(syscall.RUSAGE_SELF) }

func cpuOf(who int) float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(who, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func tail(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-5):], "\n")
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

// createScratch builds an empty database with the target's areas and
// schema, its extents in the scratch directory (nothing is written where
// the real target will go) and sized for what fill will put in it
// (sizeScratch).
func (c *calibrator) createScratch(ctx context.Context, db string, fill scratchFill) error {
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
	bs := 8192
	if p, err := plan.ReadJSON(filepath.Join(c.cfg.PlanDir, "plan.json")); err == nil && p.BlockSize > 0 {
		bs = p.BlockSize
	}
	sizeScratch(st, fill, c.tables, bs)
	var buf bytes.Buffer
	if err := openedge.WriteStructure(&buf, st); err != nil {
		return err
	}
	stPath := filepath.Join(dir, "scratch.st")
	if err := os.WriteFile(stPath, buf.Bytes(), 0o644); err != nil {
		return err
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

// servedScratch creates a scratch database at db and serves it, as the
// run serves its target; served gets it, for calibrate to shut it down at
// the end.
func (c *calibrator) servedScratch(ctx context.Context, db string, fill scratchFill, served *[]string) error {
	if err := c.createScratch(ctx, db, fill); err != nil {
		return err
	}
	if _, _, err := c.timed(ctx, execx.Cmd{Path: c.bin(openedge.ToolProserve), Args: openedge.ProserveArgs(db)}); err != nil {
		return err
	}
	*served = append(*served, db)
	return nil
}

// parallelLoads loads the large sample table into Streams fresh scratch
// databases at once (single-user, one stream each): n times the bytes of
// one stream, so the time it takes against one stream's says how much of
// the disk one stream leaves unused.
func (c *calibrator) parallelLoads(ctx context.Context, tables []*sampleTable) (sample, error) {
	n := c.cfg.Streams
	big := tables[0]
	for i := 1; i <= n; i++ {
		if err := c.createScratch(ctx, c.scratchPath(i), scratchFill{tables: []*sampleTable{big}}); err != nil {
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
	c.logf("%d loads of %s at once: %s", n, units.FormatIEC(big.bytes), units.FormatDuration(seconds(s.Wall)))
	return s, nil
}

// sampleQueue is one queue of a concurrency test: one utility call per
// table, slots at a time, its files under dir.
type sampleQueue struct {
	what   string
	dir    string
	slots  int
	tables []*sampleTable
	argv   func(t *sampleTable, dir string) []string
}

// concurrent runs the queues at the same time, each as a queue with its
// slots does, and times each from the common start to its last call's end.
func (c *calibrator) concurrent(ctx context.Context, queues ...sampleQueue) ([]sample, error) {
	out := make([]sample, len(queues))
	g, gctx := errgroup.WithContext(ctx)
	start := time.Now()
	for qi, q := range queues {
		s := &out[qi]
		s.Job = fmt.Sprintf("%d small %s, %d at a time", len(q.tables), q.what, q.slots)
		if len(queues) > 1 {
			s.Job += ", beside the other queue"
		}
		for _, t := range q.tables {
			s.Records += float64(t.records)
			s.Bytes += float64(t.bytes)
		}
		g.Go(func() error {
			qg, qctx := errgroup.WithContext(gctx)
			qg.SetLimit(q.slots)
			for i, t := range q.tables {
				if t.file == "" {
					continue
				}
				dir := filepath.Join(c.dir, q.dir, strconv.Itoa(i))
				if err := os.MkdirAll(dir, 0o755); err != nil {
					return err
				}
				qg.Go(func() error {
					cmd := execx.Cmd{Path: c.bin(openedge.ToolProutil), Args: q.argv(t, dir), Env: []string{"DLC=" + c.cfg.DLC}}
					if res, err := c.cfg.Runner.Run(qctx, cmd); err != nil {
						return fmt.Errorf("concurrent %s: %w\n%s", q.what, err, tail(res.Output))
					}
					return nil
				})
			}
			err := qg.Wait()
			s.Wall = time.Since(start).Seconds()
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// idxParams are the plan's idxbuild parameters with a sort directory and
// -rusage, as oedl run passes them.
func (c *calibrator) idxParams() openedge.IdxbuildParams {
	p := c.idx.Params()
	p.TempDir, p.Rusage = filepath.Join(c.dir, "sort"), true
	return p
}

func safeFile(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ' ' {
			return '_'
		}
		return r
	}, s)
}

// extentCost is what formatting a fixed extent cost: the time beyond a
// variable extent's, and, when the disk's counters are read, the bytes
// written beyond (counted).
type extentCost struct {
	sec, bytes, written float64
	counted             bool
}

// extentTestBytes is the fixed extent fixedExtentCost formats (and
// removes once timed).
const extentTestBytes = 64 << 20

// fixedExtentCost creates a database with one 64 MB fixed data extent and
// one with a variable extent, in the work directory, and returns how much
// longer the fixed one took: what formatting fixed extents costs here
// (prostrct create writes every block of a fixed extent).
func (c *calibrator) fixedExtentCost(ctx context.Context) (extentCost, error) {
	const sizeKB = extentTestBytes >> 10
	ec := extentCost{bytes: sizeKB * 1024}
	create := func(name string, fixed bool) (float64, error) {
		sign := -1.0
		if fixed {
			sign = 1
		}
		dir := filepath.Join(c.dir, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return 0, err
		}
		lines := "b .\n"
		if fixed {
			lines += "d \"Data\":7,64;8 . f " + strconv.Itoa(sizeKB) + "\n"
		}
		lines += "d \"Data\":7,64;8 .\n"
		st := filepath.Join(dir, name+".st")
		if err := os.WriteFile(st, []byte(lines), 0o644); err != nil {
			return 0, err
		}
		res, _, io, err := c.timedIO(ctx, execx.Cmd{Path: c.bin(openedge.ToolProstrct), Dir: dir,
			Args: openedge.ProstrctCreateArgs(filepath.Join(dir, name), st, 8192)})
		if io != nil {
			ec.written += sign * float64(io.SectorsWritten) * 512
			ec.counted = true
		}
		return res.Elapsed.Seconds(), err
	}
	variable, err := create("extentvar", false)
	if err != nil {
		return ec, err
	}
	fixed, err := create("extentfixed", true)
	if err != nil {
		return ec, err
	}
	_ = os.RemoveAll(filepath.Join(c.dir, "extentfixed"))
	ec.sec = fixed - variable
	return ec, nil
}

// batchLoad loads the tables in one -dumplist call into a fresh served
// scratch, as oedl run loads a batch: one start-up for all of them, and
// whatever each table costs again (fitLoadTableSec). It returns the
// call's sample.
func (c *calibrator) batchLoad(ctx context.Context, db string, tables []*sampleTable, served *[]string) (sample, error) {
	if err := c.servedScratch(ctx, db, scratchFill{tables: tables}, served); err != nil {
		return sample{}, err
	}
	list, s, err := c.batchList(tables)
	if err != nil {
		return sample{}, err
	}
	res, cpu, io, err := c.timedIO(ctx, execx.Cmd{Path: c.bin(openedge.ToolProutil), Args: openedge.LoadArgs(db, "", openedge.LoadOptions{Dumplist: list})})
	if err != nil {
		return sample{}, err
	}
	s.Wall, s.CPU, s.IO = res.Elapsed.Seconds(), cpu, io
	return s, nil
}

// batchList writes the -dumplist file of the tables' dump files and
// returns it with the sample it loads (its records and bytes).
func (c *calibrator) batchList(tables []*sampleTable) (string, sample, error) {
	var files []string
	var s sample
	for _, t := range tables {
		if t.file == "" {
			continue
		}
		files = append(files, t.file)
		s.Records += float64(t.records)
		s.Bytes += float64(t.bytes)
	}
	s.Job = fmt.Sprintf("%d small loads in one -dumplist call", len(files))
	list := filepath.Join(c.dir, "batch.lst")
	return list, s, os.WriteFile(list, []byte(strings.Join(files, "\n")+"\n"), 0o644)
}

// batchBesideDumps loads the tables in one -dumplist call into a fresh
// served scratch db while big is dumped from the served scratch src, one
// dump after another, dumps times: the batch's wall time from the common
// start, with a stream beside it all along (its requests queued before
// the batch's waited ones: Hardware.DiskQueueMs).
func (c *calibrator) batchBesideDumps(ctx context.Context, db, src string, tables []*sampleTable, big *sampleTable, dumps int, served *[]string) (sample, error) {
	if err := c.servedScratch(ctx, db, scratchFill{tables: tables}, served); err != nil {
		return sample{}, err
	}
	list, s, err := c.batchList(tables)
	if err != nil {
		return sample{}, err
	}
	batch := sampleQueue{what: "loads in one call", dir: "batch5", slots: 1, tables: []*sampleTable{{name: "batch", file: list}},
		argv: func(*sampleTable, string) []string {
			return openedge.LoadArgs(db, "", openedge.LoadOptions{Dumplist: list})
		}}
	repeat := make([]*sampleTable, dumps)
	for i := range repeat {
		repeat[i] = big
	}
	beside := sampleQueue{what: "dumps of " + big.name, dir: "dump5", slots: 1, tables: repeat,
		argv: func(t *sampleTable, dir string) []string {
			return openedge.DumpArgs(src, t.name, dir, openedge.DumpOptions{})
		}}
	out, err := c.concurrent(ctx, batch, beside)
	if err != nil {
		return sample{}, err
	}
	s.Job = fmt.Sprintf("%s beside %d dumps of %s one after another", s.Job, dumps, big.name)
	s.Wall = out[0].Wall
	return s, nil
}

// loadsOf picks, from the single loads (one call a table), those of
// tables with a dump file: the tables batchLoad loads in one call.
func loadsOf(tables []*sampleTable, loads []sample) []sample {
	byJob := make(map[string]sample, len(loads))
	for _, l := range loads {
		byJob[l.Job] = l
	}
	var out []sample
	for _, t := range tables {
		if l, ok := byJob["load "+t.name]; ok && t.file != "" {
			out = append(out, l)
		}
	}
	return out
}

// fastest times call twice and keeps the faster: a neighbour's burst of
// work only ever adds time to a call, and a single call that sets a cost
// for the whole database must not carry one.
func fastest(call func() (sample, error)) (sample, error) {
	a, err := call()
	if err != nil {
		return a, err
	}
	b, err := call()
	if err != nil {
		return b, err
	}
	if b.Wall < a.Wall {
		return b, nil
	}
	return a, nil
}

// asRunDumps are the dumps as a run does them: it dumps a served database
// with the source's layout, so per table the slower wall time (and its
// traffic) of the source's single-user dump and the served scratch's, and
// the source's CPU. A call's CPU is mostly its start-up, and a start-up's
// CPU is mostly decoding the database's control file (oesim's profile:
// 90 % in store.Open): the run's dumps open the source's (0.5 MB on
// seed003 40MB), the scratch's is the target's schema (2 MB), and a
// served-source dump costs what the source's single-user one does (9.5
// ms and 9 ms a call). The scratch's CPU, which the maximum took, was
// both the dearer and the noisier figure: 15.5 to 17.7 ms a call between
// two calibrations where the source's gave 9.5 and 9.6 (branch
// cal-stable, docs/benchmarks/run.md).
func asRunDumps(served, source []sample) []sample {
	out := append([]sample(nil), served...)
	for i := range out {
		if i >= len(source) {
			continue
		}
		if source[i].Wall > out[i].Wall {
			out[i].Wall, out[i].IO = source[i].Wall, source[i].IO
		}
		out[i].CPU = source[i].CPU
	}
	return out
}

// startupBoundTables are the tables whose single load (loads: one call a
// table) took at most 1.5 times the median one: calls that were mostly
// their start-up, which the batch load compares a table's cost against
// (fitLoadTableSec). A table whose data took longer, or a call that lost
// the CPU to a neighbour, would bring its noise into a difference that is
// divided over the batch's tables.
func startupBoundTables(tables []*sampleTable, loads []sample) []*sampleTable {
	singles := loadsOf(tables, loads)
	if len(singles) == 0 {
		return nil
	}
	walls := make([]float64, len(singles))
	wall := make(map[string]float64, len(singles))
	for i, s := range singles {
		walls[i] = s.Wall
		wall[s.Job] = s.Wall
	}
	limit := 1.5 * median(walls)
	var out []*sampleTable
	for _, t := range tables {
		if w, ok := wall["load "+t.name]; ok && t.file != "" && w <= limit {
			out = append(out, t)
		}
	}
	return out
}
