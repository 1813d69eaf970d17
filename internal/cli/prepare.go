package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/run"
	"github.com/oedl/oedl/internal/tui"
	"github.com/oedl/oedl/internal/units"
)

// NewCmdPrepare builds `oedl prepare`: the target made before the outage.
func NewCmdPrepare(io *IOStreams) *cobra.Command {
	opts := &RunOptions{IO: io, Runner: execx.Local{}}
	cmd := &cobra.Command{
		Use:   "prepare --source DB --target DB --plan DIR --work DIR",
		Short: "Create the target before the outage, so that the run's window starts at the source freeze",
		Long: `Prepare does, hours before the outage, what needs no frozen source: the target
created from the plan's target.st (fixed extents formatted), the empty database
copied in (procopy), target.df loaded, and the target's tabanalys checked against
the plan (every table there, none holding a record). It makes the same proofs as
oedl run before it writes a file (never over anything oedl did not make), lists
the source's files online (prostrct list) and opens nothing else of it, and
journals its steps in WORK/prepare.jsonl.

oedl run with the same --source, --target, --plan and --work then keeps the
prepared target and skips create-target: its window starts at the source
freeze. It proves first that the target is still what prepare left: the plan's
target.st and target.df unchanged, every file the one prepare made (device and
inode, from DB.oedl.json), and its tabanalys the same (no table added or gone,
no record). A target it cannot prove so is refused (exit 3, naming why); --force
creates it again, since oedl made it.

Prepare again to finish one that was interrupted or killed (it continues from
its journal), or to check a finished one (exit 0 when untouched).

EXIT STATUS
  0 prepared (or found prepared and untouched); 1 a step failed; 2 bad usage or
  input; 3 a precondition (DLC, a file in the way, the target in use or written
  into since); 130 interrupted (prepare again to continue).`,
		Example: `  oedl prepare --source /db/prod --target /db/new/prod --plan plan/ --work work/
  oedl run     --source /db/prod --target /db/new/prod --plan plan/ --work work/`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if opts.DLC == "" {
				opts.DLC = os.Getenv("DLC")
			}
			return runPrepare(c.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Source, "source", "", "source database (its files are proven never overwritten; it is only listed)")
	f.StringVar(&opts.Target, "target", "", "target database to create")
	f.StringVar(&opts.PlanDir, "plan", "", "plan directory written by oedl plan")
	f.StringVar(&opts.Work, "work", "", "work directory of the run to come: the preparation's journal goes there")
	f.StringVar(&opts.DLC, "dlc", "", "OpenEdge install directory (default $DLC)")
	f.BoolVar(&opts.Force, "force", false, "replace an existing target database, only one an earlier oedl run or preparation made (its DB.oedl.json record proves each file) and only while it is exactly as that run left it (a target served, opened or written since is refused, exit 3)")
	f.StringVar(&opts.SourceHeadroom, "source-headroom", "", sourceHeadroomFlagHelp)
	f.BoolVar(&opts.JSON, "json", false, "the outcome as JSON on stdout")
	return cmd
}

// prepareOutput is `oedl prepare --json`.
type prepareOutput struct {
	Target    string        `json:"target"`
	Work      string        `json:"work"`
	Journal   string        `json:"journal"`
	Prepared  time.Time     `json:"prepared"`
	ElapsedNS time.Duration `json:"elapsed_ns"`
	// Already: found prepared by an earlier invocation, proven untouched.
	Already bool `json:"already"`
	Tables  int  `json:"tables"`
	Files   int  `json:"files,omitempty"`
}

func runPrepare(ctx context.Context, opts *RunOptions) error {
	cfg, err := opts.config()
	if err != nil {
		return err
	}
	if err := checkOutputDir("--work", cfg.Work); err != nil {
		return err
	}
	if err := run.CheckWorkUnwritten(cfg); err != nil {
		return runExit(ctx, err, cfg.ResumeCommand())
	}
	if err := os.MkdirAll(cfg.Work, 0o755); err != nil {
		return PreconditionError(fmt.Errorf("work directory: %w", err))
	}
	logger, closeLog, err := newRunLogger(filepath.Join(cfg.Work, run.LogFile), opts.IO.ErrOut)
	if err != nil {
		return PreconditionError(err)
	}
	defer closeLog()
	cfg.Log = logger
	lines := tui.NewQueuedWriter(opts.IO.ErrOut) // a stderr nobody reads does not hold the preparation
	p := tui.NewPlain(lines, 10*time.Second)
	cfg.Events = event.SinkFunc(func(e event.Event) {
		if e.Kind != event.Phase { // a run's phases: the preparation is none of them
			p.Emit(e)
		}
	})
	res, err := run.Prepare(ctx, cfg)
	p.Close()
	lines.Close()
	if err != nil {
		return prepareExit(ctx, err)
	}
	if opts.JSON {
		return json.NewEncoder(opts.IO.Out).Encode(prepareOutput{Target: cfg.Target, Work: cfg.Work, Journal: res.Journal,
			Prepared: res.At, ElapsedNS: res.Elapsed, Already: res.Already, Tables: res.Tables, Files: res.Files})
	}
	w := opts.IO.ErrOut
	if res.Already {
		fmt.Fprintf(w, "already prepared at %s, and proven untouched since: its files are the ones prepare made, its %d tables empty\n",
			res.At.Local().Format("2006-01-02 15:04:05"), res.Tables)
	} else {
		fmt.Fprintf(w, "prepared in %s: %s with its %d files, %d tables, no record\n", units.FormatDuration(res.Elapsed), run.DBPath(cfg.Target), res.Files, res.Tables)
	}
	fmt.Fprintf(w, "journal:  %s\nnext, at the outage: oedl run with the same --source, --target, --plan and --work (create-target is then not in the window)\n", res.Journal)
	return nil
}

// prepareExit maps the preparation's outcome to an exit code.
func prepareExit(ctx context.Context, err error) error {
	var pe *run.PreconditionError
	var ue *run.UsageError
	switch {
	case errors.As(err, &ue):
		return &ExitError{Code: ExitUsage, Err: err}
	case errors.As(err, &pe):
		return PreconditionError(err)
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		return &ExitError{Code: ExitInterrupted, Err: fmt.Errorf("interrupted; the preparation's journal is consistent: run oedl prepare again to continue")}
	}
	return FailedError(err)
}
