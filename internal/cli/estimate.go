package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/oedl/oedl/internal/estimate"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/units"
)

// EstimateOptions are the flags of `oedl estimate`.
type EstimateOptions struct {
	IO *IOStreams

	Plan        string
	Hardware    string
	Calibration string
	Cores       []int
	DiskMBps    []float64
	IOPS        []float64
	Memory      []string
	LatencyMs   float64
	Volumes     []string
	VolumeGiB   []float64
	BurstSpent  float64

	DumpJobs        []int
	LoadJobs        []int
	LoadsPerArea    []int
	ThreadedDumpMin string
	DumpThreads     int
	Staged          bool
	BuildIndexes    bool
	// Prepared: the target is made before the window (oedl prepare).
	Prepared   bool
	BatchLoads bool
	// NoIntegrity, TuneTarget: how the loads write (oedl run's flags).
	NoIntegrity bool
	TuneTarget  bool

	Samples int
	Seed    uint64
	Tables  int
	Compare bool
	JSON    bool
	HTML    string
	// Hosts is the hosts file: each host's disk, cores and link (its
	// hardware keys over the estimate's machine), and the placement the
	// run will make on them (docs/hosts.md).
	Hosts string
}

// NewCmdEstimate builds `oedl estimate`.
func NewCmdEstimate(io *IOStreams) *cobra.Command {
	opts := &EstimateOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "estimate --plan DIR [--hardware FILE | --cores N --volume CLASS --disk-mbps X --iops Y] [--calibration FILE]",
		Short: "Predict the outage window: total, per phase, per table, critical path",
		Long: `Estimate runs the job graph that oedl run would run, with the same queue rules,
on a simulated clock: each job's CPU, disk bytes and disk requests come from a
cost model, and jobs running at the same time share the cores and the disk.
It prints the window and its phases, the critical path, the tables that hold
the window back (with what to do about them), per-table times and a P50/P90
range from a Monte Carlo over the model's uncertainty.

The hardware comes from --hardware FILE (JSON: cores, memory_bytes, volume,
volume_gib, disk_mbps, disk_iops, disk_latency_ms, ...), else from the
calibration, else from the plan's machine with the model's disk; --cores,
--volume, --volume-gib, --disk-mbps, --iops, --memory, --latency-ms and
--burst-spent override it. The volume class (gp2, gp3, io1, io2, st1, sc1,
local-nvme, local-ssd, hdd) decides what counts as one request, which
ceilings apply and whether the disk bursts (a gp2 under 1000 GiB runs at 3000
IOPS while its credits last). Several values (--cores 4,8 --iops 4000,16000
--volume gp2,gp3) give a what-if table of windows instead. --compare weighs
overlapped against staged, other job counts, and indexes built during the
load, and says which is fastest. --html writes the estimate, the what-if
table or the comparison as a page.

Job-count flags mean what they mean to oedl run (same defaults).`,
		Example: `  oedl estimate --plan plan/ --cores 8 --disk-mbps 250 --iops 4000
  oedl estimate --plan plan/ --calibration cal.json --html estimate.html
  oedl estimate --plan plan/ --hardware box.json --cores 4,8,16 --iops 4000,16000
  oedl estimate --plan plan/ --hardware box.json --volume gp2,io1 --iops 300,16000 --html disks.html
  oedl estimate --plan plan/ --hardware box.json --compare`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return estimateRun(c.Context(), opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.Plan, "plan", "", "plan directory (or its plan.json) written by oedl plan")
	f.StringVar(&opts.Hardware, "hardware", "", "hardware description, JSON")
	f.StringVar(&opts.Calibration, "calibration", "", "model parameters written by oedl calibrate (default: built-in priors)")
	f.IntSliceVar(&opts.Cores, "cores", nil, "cores; several values give a what-if table")
	f.Float64SliceVar(&opts.DiskMBps, "disk-mbps", nil, "disk throughput ceiling in MB/s of 10^6 bytes, as datasheets give it (shown in MiB/s); several values give a what-if table")
	f.Float64SliceVar(&opts.IOPS, "iops", nil, "disk IOPS ceiling; several values give a what-if table")
	f.StringSliceVar(&opts.Memory, "memory", nil, "memory, e.g. 16GB; several values give a what-if table")
	f.Float64Var(&opts.LatencyMs, "latency-ms", 0, "service time of one disk request seen by one stream, ms")
	f.StringSliceVar(&opts.Volumes, "volume", nil, "kind of volume: gp2, gp3, io1, io2, st1, sc1, local-nvme, local-ssd, hdd or generic; several values give a what-if table")
	f.Float64SliceVar(&opts.VolumeGiB, "volume-gib", nil, "volume size in GiB (gp2: 3 IOPS per GiB; st1, sc1: MiB/s per TiB); several values give a what-if table")
	f.Float64Var(&opts.BurstSpent, "burst-spent", -1, "share of the volume's burst credits already spent at the start, 0 (full) to 1 (empty)")
	f.IntSliceVar(&opts.DumpJobs, "dump-jobs", nil, "concurrent dumps (default: sized from what binds, as oedl run: start-ups against cores and disk, 2 per core at least, 32 at most); several values give a what-if table")
	f.IntSliceVar(&opts.LoadJobs, "load-jobs", nil, "concurrent loads (default: sized from what binds, as oedl run: start-ups against cores and disk, 1 per core and 2 at least, 32 at most); several values give a what-if table")
	f.IntSliceVar(&opts.LoadsPerArea, "loads-per-area", nil, "concurrent loads per target area (default: 1 in a Type I area, no cap in a Type II one, as oedl run; negative: no cap); several values give a what-if table")
	f.StringVar(&opts.ThreadedDumpMin, "threaded-dump-min", "", "dump tables this large with threads (default 64MB, as oedl run; 0: never)")
	f.IntVar(&opts.DumpThreads, "dump-threads", 0, "-threadnum of threaded dumps (default: min(4, cores))")
	f.BoolVar(&opts.Staged, "staged", false, "every load waits for every dump (default: overlapped)")
	f.BoolVar(&opts.BuildIndexes, "build-indexes", false, "build indexes during the load instead of one idxbuild")
	f.BoolVar(&opts.Prepared, "prepared", false, "the target is made before the outage with oedl prepare: create-target leaves the window and is stated apart")
	f.BoolVar(&opts.BatchLoads, "batch-loads", true, "load the small tables of an area in batches, one utility call each, as oedl run (false: each table alone)")
	f.BoolVar(&opts.NoIntegrity, "no-integrity", true, "the loads run without crash protection (-i), as oedl run's default: the estimate says what that saves and what a failed load then costs (--no-integrity=false: crash-safe loads)")
	f.BoolVar(&opts.TuneTarget, "tune-target", true, "the target is served for the loads tuned for loading, as oedl run (false: a bare proserve and OpenEdge's default BI)")
	f.IntVar(&opts.Samples, "samples", 100, "Monte Carlo samples for the P50/P90 range (0: none)")
	f.Uint64Var(&opts.Seed, "seed", 1, "seed of the Monte Carlo range")
	f.IntVar(&opts.Tables, "tables", 20, "tables listed in the text output (0: all)")
	f.BoolVar(&opts.Compare, "compare", false, "compare strategies and say which is fastest here and why")
	f.BoolVar(&opts.JSON, "json", false, "the estimate as JSON on stdout")
	f.StringVar(&opts.HTML, "html", "", "also write the estimate (with its Gantt chart), the what-if table or the comparison as an HTML page to this file")
	f.StringVar(&opts.Hosts, "hosts", "", "hosts file: the window on the source, its replicas and the target, each with its own disk and cores (its keys over this machine's), and what the replicas save (docs/hosts.md)")
	return cmd
}

// estimateSetup is what the flags resolve to.
type estimateSetup struct {
	in      estimate.Input
	grid    estimate.Grid
	strat   func(estimate.Hardware, estimate.Jobs) estimate.Strategy
	whatIf  bool
	hwNotes []string
}

func estimateRun(ctx context.Context, opts *EstimateOptions) error {
	s, err := opts.setup()
	if err != nil {
		return err
	}
	if hf, err := readHosts(opts.Hosts, "", ""); err != nil {
		return err
	} else if hf != nil {
		if s.whatIf || opts.Compare {
			return UsageError("--hosts takes one estimate: leave out --compare and the lists of what-if values")
		}
		s.in.Hosts = estimate.HostsFrom(hf, s.in.Hardware)
	}
	if opts.HTML != "" {
		if err := checkOutputFile("--html", opts.HTML, oedlHTML); err != nil {
			return err
		}
	}
	switch {
	case s.whatIf && opts.Compare:
		return UsageError("--compare takes one machine and one set of job counts; give single values to --cores, --volume, --volume-gib, --disk-mbps, --iops, --memory and the job flags")
	case s.whatIf:
		rows, err := estimate.WhatIf(ctx, s.in, s.grid, s.strat)
		if err != nil {
			return FailedError(err)
		}
		if err := opts.writeHTML(func(path, title string) error { return estimate.WriteWhatIfHTMLFile(path, title+" (what-if)", rows) }, s); err != nil {
			return err
		}
		if opts.JSON {
			return estimateJSON(opts.IO.Out, rows)
		}
		return estimate.WriteWhatIf(opts.IO.Out, rows)
	case opts.Compare:
		c, err := estimate.Compare(ctx, s.in, estimate.Strategies(s.in.Strategy))
		if err != nil {
			return FailedError(err)
		}
		if err := opts.writeHTML(func(path, title string) error { return c.WriteHTMLFile(path, title+" (strategies)") }, s); err != nil {
			return err
		}
		if opts.JSON {
			return estimateJSON(opts.IO.Out, c)
		}
		return estimate.WriteComparison(opts.IO.Out, c)
	}
	est, err := estimate.Run(ctx, s.in)
	if err == nil {
		err = estimate.Advise(ctx, s.in, est)
	}
	if err == nil {
		err = estimate.PriceIntegrity(ctx, s.in, est)
	}
	if err != nil {
		return FailedError(err)
	}
	if err := opts.writeHTML(est.WriteHTMLFile, s); err != nil {
		return err
	}
	for _, n := range s.hwNotes {
		fmt.Fprintf(opts.IO.ErrOut, "note: %s\n", n)
	}
	if opts.JSON {
		return estimateJSON(opts.IO.Out, est)
	}
	return est.WriteText(opts.IO.Out, opts.Tables)
}

// writeHTML writes the --html page with write, if asked for.
func (opts *EstimateOptions) writeHTML(write func(path, title string) error, s *estimateSetup) error {
	if opts.HTML == "" {
		return nil
	}
	if err := makeOutputParent("--html", opts.HTML); err != nil {
		return err
	}
	if err := write(opts.HTML, "oedl estimate: "+s.in.Plan.Source.Database); err != nil {
		return FailedError(fmt.Errorf("write %s: %w", opts.HTML, err))
	}
	fmt.Fprintf(opts.IO.ErrOut, "wrote %s\n", opts.HTML)
	return nil
}

// setup reads the plan, model and hardware and applies the flags.
func (opts *EstimateOptions) setup() (*estimateSetup, error) {
	if opts.Plan == "" {
		return nil, UsageError("give --plan DIR (written by oedl plan)")
	}
	p, err := estimatePlan(opts.Plan)
	if err != nil {
		return nil, err
	}
	s := &estimateSetup{}
	m := estimate.DefaultModel()
	hw := m.Hardware
	calibrated := false
	if opts.Calibration != "" {
		if m, err = estimate.ReadModel(opts.Calibration); err != nil {
			return nil, UsageError("calibration: %v", err)
		}
		if m.Older != "" {
			s.hwNotes = append(s.hwNotes, m.Older)
		}
		hw, calibrated = m.Hardware, true
	}
	switch {
	case opts.Hardware != "":
		if hw, err = estimate.ReadHardware(opts.Hardware); err != nil {
			return nil, UsageError("hardware: %v", err)
		}
	case !calibrated && p.Machine.Cores > 0:
		hw.Cores, hw.MemoryBytes = p.Machine.Cores, p.Machine.MemoryBytes
		if len(opts.DiskMBps) == 0 && len(opts.IOPS) == 0 && len(opts.Volumes) == 0 {
			s.hwNotes = append(s.hwNotes, fmt.Sprintf("no --hardware, --calibration or disk flags: the disk is the model's (%s)", hw.DiskString()))
		}
	}
	if opts.LatencyMs > 0 {
		hw.DiskLatencyMs = opts.LatencyMs
	}
	if opts.BurstSpent >= 0 {
		if opts.BurstSpent > 1 {
			return nil, UsageError("--burst-spent %g: a share from 0 (full) to 1 (empty)", opts.BurstSpent)
		}
		hw.BurstSpent = opts.BurstSpent
	}
	volumes := make([]string, len(opts.Volumes))
	for i, v := range opts.Volumes {
		if v != "generic" && !slices.Contains(estimate.Volumes, v) {
			return nil, UsageError("--volume %s: want one of %s or generic", v, strings.Join(estimate.Volumes, ", "))
		}
		volumes[i] = strings.TrimPrefix(v, "generic")
	}
	for _, v := range opts.VolumeGiB {
		if v <= 0 {
			return nil, UsageError("--volume-gib must be positive (got %g)", v)
		}
	}
	var mem []int64
	for _, v := range opts.Memory {
		b, err := units.ParseBytes(v)
		if err != nil {
			return nil, UsageError("--memory: %v", err)
		}
		mem = append(mem, b)
	}
	for _, c := range opts.Cores {
		if c < 1 {
			return nil, UsageError("--cores %d: must be at least 1", c)
		}
	}
	for _, v := range append(append([]float64{}, opts.DiskMBps...), opts.IOPS...) {
		if v <= 0 {
			return nil, UsageError("--disk-mbps and --iops must be positive (got %g)", v)
		}
	}
	for _, v := range append(append([]int{}, opts.DumpJobs...), opts.LoadJobs...) {
		if v < 1 {
			return nil, UsageError("--dump-jobs and --load-jobs must be at least 1 (got %d)", v)
		}
	}
	s.grid = estimate.Grid{Cores: opts.Cores, DiskMBps: opts.DiskMBps, DiskIOPS: opts.IOPS, Memory: mem, Volumes: volumes, VolumeGiB: opts.VolumeGiB,
		DumpJobs: opts.DumpJobs, LoadJobs: opts.LoadJobs, LoadsPerArea: opts.LoadsPerArea}
	s.whatIf = s.grid.Size() > 1
	var jobs estimate.Jobs
	if !s.whatIf { // single values set the machine and the job counts
		pt := s.grid.Points(hw)[0]
		hw, jobs = pt.Hardware, pt.Jobs
		s.grid = estimate.Grid{}
	}
	if err := hw.Validate(); err != nil {
		return nil, UsageError("hardware: %v", err)
	}
	var threadedMin int64 // 0: the run's default
	if opts.ThreadedDumpMin != "" {
		if threadedMin, err = units.ParseBytes(opts.ThreadedDumpMin); err != nil {
			return nil, UsageError("--threaded-dump-min: %v", err)
		}
		if threadedMin == 0 {
			threadedMin = -1 // never
		}
	}
	s.strat = func(h estimate.Hardware, j estimate.Jobs) estimate.Strategy {
		st := estimate.RunStrategy(h, m, p, j.DumpJobs, j.LoadJobs, j.LoadsPerArea, threadedMin, opts.DumpThreads)
		st.Staged, st.BuildIndexes, st.Prepared, st.BatchLoads = opts.Staged, opts.BuildIndexes, opts.Prepared, opts.BatchLoads
		st.NoIntegrity, st.UntunedTarget = opts.NoIntegrity, !opts.TuneTarget
		return st
	}
	if opts.Samples < 0 {
		return nil, UsageError("--samples must not be negative")
	}
	s.in = estimate.Input{Plan: p, Hardware: hw, Model: m, Strategy: s.strat(hw, jobs), Samples: opts.Samples, Seed: opts.Seed}
	return s, nil
}

// estimatePlan reads plan.json from a plan directory or names the file
// itself, and holds it together with the directory's target.st and
// target.df as oedl run does (plan.ReadTarget): a plan run would refuse
// is not priced.
func estimatePlan(path string) (*plan.Plan, error) {
	dir := path
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, plan.FilePlan)
	} else {
		dir = filepath.Dir(path)
	}
	p, err := plan.ReadJSON(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, UsageError("%s: no plan here (write one with oedl plan)", path)
		}
		return nil, UsageError("%v", err)
	}
	if len(p.Tables) == 0 {
		return nil, UsageError("%s: the plan has no tables", path)
	}
	if _, err := plan.ReadTarget(dir, p, false); err != nil {
		return nil, UsageError("%v", err)
	}
	return p, nil
}

func estimateJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
