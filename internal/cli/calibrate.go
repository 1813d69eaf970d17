package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/oedl/oedl/internal/estimate"
	"github.com/oedl/oedl/internal/execx"
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

The source is only read (tabanalys, dump); everything written is under
WORK/calibrate. A missing DLC, source or plan exits 3.`,
		Example: `  oedl calibrate --source /db/prod --dlc $DLC --work /scratch/cal --plan plan/ -o cal.json
  oedl estimate --plan plan/ --calibration cal.json`,
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
	f.BoolVar(&opts.JSON, "json", false, "print the calibration (model and samples) as JSON on stdout")
	return cmd
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
	if err := checkOutputDir("--work", opts.Work); err != nil {
		return err
	}
	if opts.Out != "" {
		if err := checkOutputFile("-o", opts.Out); err != nil {
			return err
		}
	}
	hw := estimate.Hardware{Cores: opts.Cores}
	if hw.Cores <= 0 {
		hw.Cores = runtime.NumCPU()
	}
	if opts.Memory != "" {
		b, err := units.ParseBytes(opts.Memory)
		if err != nil {
			return UsageError("--memory: %v", err)
		}
		hw.MemoryBytes = b
	} else {
		hw.MemoryBytes = sysmem.Read().Total
	}
	max, err := units.ParseBytes(opts.SampleMax)
	if err != nil {
		return UsageError("--sample-max: %v", err)
	}
	cal, err := estimate.Calibrate(ctx, estimate.CalibrateConfig{DLC: opts.DLC, Source: opts.Source, Work: opts.Work,
		PlanDir: opts.Plan, Hardware: hw, SampleTables: opts.SampleTables, SampleMax: max, Streams: opts.Streams,
		Runner: opts.Runner, Log: opts.IO.ErrOut})
	if err != nil {
		if errors.Is(err, estimate.ErrPrecondition) {
			return PreconditionError(err)
		}
		return FailedError(err)
	}
	for _, n := range cal.Notes {
		fmt.Fprintf(opts.IO.ErrOut, "%s\n", n)
	}
	if opts.Out != "" {
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
