package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/oedl/oedl/internal/diskstats"
	"github.com/oedl/oedl/internal/estimate"
	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/room"
	"github.com/oedl/oedl/internal/run"
	"github.com/oedl/oedl/internal/sysmem"
	"github.com/oedl/oedl/internal/units"
)

// CalibrateOptions are the flags of `oedl calibrate`.
type CalibrateOptions struct {
	IO     *IOStreams
	Runner execx.Runner

	Source       string
	DLC          string
	Work         string
	Plan         string
	Out          string
	Cores        int
	Memory       string
	SampleTables int
	SampleMax    string
	Streams      int
	JSON         bool
	// SourceHeadroom is --source-headroom (sourceHeadroomFlag).
	SourceHeadroom string

	// The disk calibrate runs on, when known (then kept, and the
	// utilities' traffic fitted on it), and its counters.
	Hardware   string
	Volume     string
	VolumeGiB  float64
	DiskMBps   float64
	IOPS       float64
	LatencyMs  float64
	Diskstats  string
	DiskDevice string
}

// NewCmdCalibrate builds `oedl calibrate`.
func NewCmdCalibrate(io *IOStreams) *cobra.Command {
	opts := &CalibrateOptions{IO: io, Runner: execx.Local{}}
	cmd := &cobra.Command{
		Use:   "calibrate --source DB --dlc DIR --work DIR --plan DIR -o FILE",
		Short: "Time a small sample of dumps, loads and an idxbuild here and fit the estimate's model",
		Long: `Calibrate measures this machine with the real utilities: a tabanalys of the
source, single-stream dumps of a slice of its largest table (about --sample-max,
cut with dumpspecified on the leading number or date field of one of its
indexes; the largest table under --sample-max, whole, when it has none) and of a
spread of smaller ones, their loads into a scratch database built in --work from
the plan's target.st and target.df, the same loads into several scratch copies
at once (the disk's ceiling and per-stream latency), the small tables dumped
and loaded as many at a time as oedl run's queue, an idxbuild of an empty and
of the loaded scratch database, and one tabanalys of it. It fits the model's
start-up, per-record, per-byte and per-index costs and writes them as JSON
for oedl estimate --calibration.

The disk: without a description, calibrate measures it in the model's terms
(a throughput and a latency, good for estimates on this machine). Describe it
(--hardware FILE, or --volume, --volume-gib, --disk-mbps, --iops, --latency-ms
as for oedl estimate) and calibrate keeps it and fits the utilities' traffic
on it, so that an estimate on another disk (oedl estimate --iops 16000) changes
only the disk. --diskstats FILE (a /proc/diskstats) measures that traffic from
the device's request counters around each call instead of taking the priors';
--disk-device names the device (default: the one --work is on). Read on a
quiet machine: the counters are the device's, whoever does the I/O.

The source is only read (tabanalys, dump); everything written is under
WORK/calibrate. A missing DLC, source or plan exits 3.`,
		Example: `  oedl calibrate --source /db/prod --dlc $DLC --work /scratch/cal --plan plan/ -o cal.json
  oedl calibrate --source /db/prod --dlc $DLC --work /scratch/cal --plan plan/ -o cal.json \
      --volume gp3 --iops 4000 --diskstats /proc/diskstats
  oedl estimate --plan plan/ --calibration cal.json --iops 16000`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if opts.DLC == "" {
				opts.DLC = os.Getenv("DLC")
			}
			return calibrateRun(c.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Source, "source", "", "source database (only read)")
	f.StringVar(&opts.DLC, "dlc", "", "OpenEdge install directory (default $DLC)")
	f.StringVar(&opts.Work, "work", "", "scratch directory for dumps and scratch databases")
	f.StringVar(&opts.Plan, "plan", "", "plan directory: target.st and target.df shape the scratch database")
	f.StringVarP(&opts.Out, "out", "o", "", "calibration file to write")
	f.IntVar(&opts.Cores, "cores", 0, "cores of this machine (default: all it has)")
	f.StringVar(&opts.Memory, "memory", "", "memory of this machine, e.g. 16GB (default: from /proc/meminfo)")
	f.IntVar(&opts.SampleTables, "sample-tables", 30, "small tables timed one by one")
	f.StringVar(&opts.SampleMax, "sample-max", "256MB", "the large sample: about this much of the largest table (dumpspecified slice)")
	f.IntVar(&opts.Streams, "streams", 0, "concurrent loads of the parallel test (default min(4, cores))")
	f.StringVar(&opts.SourceHeadroom, "source-headroom", "", sourceHeadroomFlagHelp)
	f.BoolVar(&opts.JSON, "json", false, "print the calibration (model and samples) as JSON on stdout")
	f.StringVar(&opts.Hardware, "hardware", "", "this machine's disk (and cores, memory), JSON as for oedl estimate: kept, the traffic fitted on it")
	f.StringVar(&opts.Volume, "volume", "", "the disk's kind: gp2, gp3, io1, io2, st1, sc1, local-nvme, local-ssd, hdd or generic")
	f.Float64Var(&opts.VolumeGiB, "volume-gib", 0, "the volume's size in GiB")
	f.Float64Var(&opts.DiskMBps, "disk-mbps", 0, "the disk's throughput ceiling, MB/s")
	f.Float64Var(&opts.IOPS, "iops", 0, "the disk's IOPS ceiling (gp2: its baseline)")
	f.Float64Var(&opts.LatencyMs, "latency-ms", 0, "the wait one stream sees for a request, ms (default: fitted)")
	f.StringVar(&opts.Diskstats, "diskstats", "", "read the disk's request counters from this /proc/diskstats-form file around each call")
	f.StringVar(&opts.DiskDevice, "disk-device", "", "the device's name in --diskstats (default: the one --work is on)")
	return cmd
}

// machine is this machine as the flags describe it: cores and memory
// (given, else counted), and the disk when described (known).
func (opts *CalibrateOptions) machine() (hw estimate.Hardware, known bool, err error) {
	if opts.Hardware != "" {
		if hw, err = estimate.ReadHardware(opts.Hardware); err != nil {
			return hw, false, UsageError("--hardware: %v", err)
		}
		known = true
	}
	if opts.Volume != "" || opts.VolumeGiB > 0 || opts.DiskMBps > 0 || opts.IOPS > 0 {
		known = true
		if opts.Volume != "" {
			if opts.Volume != "generic" && !slices.Contains(estimate.Volumes, opts.Volume) {
				return hw, false, UsageError("--volume %s: want one of %s or generic", opts.Volume, strings.Join(estimate.Volumes, ", "))
			}
			hw.Volume = strings.TrimPrefix(opts.Volume, "generic")
		}
		if opts.VolumeGiB > 0 {
			hw.VolumeGiB = opts.VolumeGiB
		}
		if opts.DiskMBps > 0 {
			hw.DiskMBps = opts.DiskMBps
		}
		if opts.IOPS > 0 {
			hw.DiskIOPS = opts.IOPS
		}
	}
	if opts.LatencyMs > 0 {
		hw.DiskLatencyMs = opts.LatencyMs
	}
	if opts.Cores > 0 || hw.Cores <= 0 {
		hw.Cores = opts.Cores
		if hw.Cores <= 0 {
			hw.Cores = runtime.NumCPU()
		}
	}
	switch {
	case opts.Memory != "":
		b, err := units.ParseBytes(opts.Memory)
		if err != nil {
			return hw, false, UsageError("--memory: %v", err)
		}
		hw.MemoryBytes = b
	case hw.MemoryBytes <= 0:
		hw.MemoryBytes = sysmem.Read().Total
	}
	if known {
		if err := hw.Validate(); err != nil {
			return hw, false, UsageError("the disk: %v", err)
		}
	}
	return hw, known, nil
}

func calibrateRun(ctx context.Context, opts *CalibrateOptions) error {
	switch {
	case opts.Source == "":
		return UsageError("give --source DB")
	case opts.Work == "":
		return UsageError("give --work DIR")
	case opts.Plan == "":
		return UsageError("give --plan DIR (its target.st and target.df shape the scratch database)")
	case opts.Out == "" && !opts.JSON:
		return UsageError("give -o FILE")
	}
	if p, err := plan.ReadJSON(filepath.Join(opts.Plan, plan.FilePlan)); err == nil {
		if err := plan.NeedTargetDF(p, opts.Plan); err != nil {
			return UsageError("--plan: %v", err)
		}
	}
	if err := checkOutputDir("--work", opts.Work); err != nil {
		return err
	}
	if err := checkCalibrateScratch(opts.Work, strings.TrimSuffix(opts.Source, ".db")+".db", opts.Plan, opts.Out); err != nil {
		return err
	}
	if opts.Out != "" {
		if err := checkOutputFile("-o", opts.Out, oedlCalibration); err != nil {
			return err
		}
	}
	hw, known, err := opts.machine()
	if err != nil {
		return err
	}
	headroom, err := sourceHeadroomFlag(opts.SourceHeadroom)
	if err != nil {
		return err
	}
	// Where the source grows, as the run's preflight reads it (prostrct
	// list, online): the calibration leaves it its room.
	grows := func(ctx context.Context) (*room.Source, error) {
		return run.SourceRoom(ctx, run.Config{DLC: opts.DLC, Source: opts.Source, Runner: opts.Runner, SourceHeadroom: headroom})
	}
	// Before the calibration clears WORK/calibrate: another one (or a run)
	// may be working there now.
	unlock, err := run.LockCalibration(opts.Work)
	if err != nil {
		return PreconditionError(err)
	}
	defer unlock()
	var stats *diskstats.Source
	if opts.Diskstats != "" {
		dev := opts.DiskDevice
		if dev == "" {
			if err := os.MkdirAll(opts.Work, 0o755); err != nil {
				return FailedError(err)
			}
			if dev, err = diskstats.DeviceOf(opts.Diskstats, opts.Work); err != nil {
				return UsageError("--diskstats: %v; name the device with --disk-device", err)
			}
		}
		stats = &diskstats.Source{Path: opts.Diskstats, Device: dev}
		if _, err := stats.Read(); err != nil {
			return UsageError("--diskstats: %v", err)
		}
	}
	max, err := units.ParseBytes(opts.SampleMax)
	if err != nil {
		return UsageError("--sample-max: %v", err)
	}
	cal, err := estimate.Calibrate(ctx, estimate.CalibrateConfig{DLC: opts.DLC, Source: opts.Source, Work: opts.Work,
		PlanDir: opts.Plan, Hardware: hw, KnownDisk: known, Stats: stats, SampleTables: opts.SampleTables, SampleMax: max, Streams: opts.Streams,
		SourceRoom: grows, Runner: opts.Runner, Log: opts.IO.ErrOut})
	if err != nil {
		var invalid *plan.InvalidError
		switch {
		case errors.As(err, &invalid):
			return UsageError("%v", err)
		case errors.Is(err, estimate.ErrPrecondition):
			return PreconditionError(err)
		}
		return FailedError(err)
	}
	for _, n := range cal.Notes {
		fmt.Fprintf(opts.IO.ErrOut, "%s\n", n)
	}
	if opts.Out != "" {
		if err := makeOutputParent("-o", opts.Out); err != nil {
			return err
		}
		if err := cal.Model.WriteFile(opts.Out); err != nil {
			return FailedError(fmt.Errorf("write %s: %w", opts.Out, err))
		}
		fmt.Fprintf(opts.IO.ErrOut, "wrote %s: %s\n", opts.Out, cal.Model.Hardware)
	}
	if opts.JSON {
		return estimateJSON(opts.IO.Out, cal)
	}
	return nil
}

// checkCalibrateScratch refuses a WORK/calibrate that calibrate may not
// clear (estimate.CheckScratch): calibrate clears that directory before it
// builds its scratch database there, and it must not clear someone's
// files (a DBA's ~/calibrate given --work ~), nor the source, the plan or
// the output kept in it.
func checkCalibrateScratch(work string, keep ...string) error {
	if err := estimate.CheckScratch(work, keep...); err != nil {
		return UsageError("--work %s: %v: choose another --work", work, err)
	}
	return nil
}
