package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/run"
	"github.com/oedl/oedl/internal/sim"
	"github.com/oedl/oedl/internal/sim/gen"
)

// DemoOptions are the flags of `oedl demo`.
type DemoOptions struct {
	IO      *IOStreams
	Runner  execx.Runner
	Dir     string
	Profile string
	Scale   string
	Seed    int64
	NoTUI   bool
	// Exe is the program installed as the simulated $DLC/bin utilities;
	// default os.Executable() (oedl dispatches utility names to oesim).
	Exe string
}

// demoMarker marks a directory oedl demo created, so that running the demo
// again may clear it and nothing else is ever deleted.
const demoMarker = ".oedl-demo"

// NewCmdDemo builds `oedl demo`.
func NewCmdDemo(io *IOStreams) *cobra.Command {
	opts := &DemoOptions{IO: io, Runner: execx.Local{}}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Install oesim, generate a database, then plan, run and verify it end to end",
		Long: `Demo shows the whole journey on this machine, without OpenEdge: it installs
oesim (the OpenEdge simulator that really stores records) as DIR/dlc, generates
a source database, plans a new layout for it, runs the parallel dump, load,
idxbuild and verification, and prints where everything is. Every step is a
real utility call you can repeat by hand from the work directory's logs.

The demo database is small, so the size thresholds are scaled to it: tables
of at least 5% of its record bytes are planned as large (own area, BPC 512)
and dumped with threads (each .bd section loaded as it lands), tables of at
least 0.5% share medium areas (BPC 64), the rest small areas (BPC 8). The
production defaults of oedl plan and oedl run (--large 1GB, --medium 100MB,
--threaded-dump-min 64MB) are for real databases; the demo prints the
thresholds it used.

Its progress goes to stderr. It has no --json: what a script wants from it
is the run, which oedl report --work DIR/work --json prints.`,
		Example: `  go run ./cmd/oedl demo
  oedl demo --dir /tmp/demo --profile sports --scale 5MB --no-tui
  oedl demo --dir /tmp/demo --scale 500MB     # long enough for the ETA (shown after 20 s)`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return demoRun(c.Context(), opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.Dir, "dir", "demo", "directory for the simulated DLC, the databases, the plan and the work")
	f.StringVar(&opts.Profile, "profile", "erp", "database to generate: erp, seed003 or sports")
	f.StringVar(&opts.Scale, "scale", "30MB", "size of the generated records (erp at 30MB: about 335 tables, 160,000 records, a demo of about 10s on 2 cores)")
	f.Int64Var(&opts.Seed, "seed", 1, "seed of the generated values")
	f.BoolVar(&opts.NoTUI, "no-tui", false, "plain progress lines instead of the live screen")
	f.StringVar(&opts.Exe, "oesim", "", "oesim program to install (default: this oedl, which carries the simulator)")
	_ = f.MarkHidden("oesim")
	return cmd
}

func demoRun(ctx context.Context, opts *DemoOptions) error {
	if _, err := parseSizeFlag("--scale", opts.Scale); err != nil {
		return err
	}
	if !slices.Contains(gen.Profiles(), opts.Profile) {
		return UsageError("--profile %q: unknown profile (profiles: %s)", opts.Profile, strings.Join(gen.Profiles(), ", "))
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return UsageError("--dir: %v", err)
	}
	if err := checkOutputDir("--dir", dir); err != nil {
		return err
	}
	if err := prepareDemoDir(dir); err != nil {
		return err
	}
	exe := opts.Exe
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return FailedError(fmt.Errorf("cannot find the oedl program to install as oesim: %w", err))
		}
	}
	var (
		dlc     = filepath.Join(dir, "dlc")
		source  = filepath.Join(dir, "db", "source", opts.Profile)
		target  = filepath.Join(dir, "db", "target", opts.Profile)
		planDir = filepath.Join(dir, "plan")
		work    = filepath.Join(dir, "work")
	)
	say := func(format string, a ...any) { fmt.Fprintf(opts.IO.ErrOut, "demo: "+format+"\n", a...) }
	start := time.Now()

	say("installing oesim as %s", dlc)
	if err := sim.Install(dlc, exe); err != nil {
		return FailedError(fmt.Errorf("install oesim: %w", err))
	}
	for _, d := range []string{filepath.Dir(source), filepath.Dir(target)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return FailedError(err)
		}
	}
	say("generating the %s database %s (%s, seed %d)", opts.Profile, source, opts.Scale, opts.Seed)
	gen := []string{filepath.Join(dlc, "bin", "oesim"), "gen", "--dlc", dlc, "--db", source,
		"--profile", opts.Profile, "--scale", opts.Scale, "--seed", fmt.Sprint(opts.Seed)}
	if res, err := opts.Runner.Run(ctx, execx.Cmd{Path: gen[0], Args: gen[1:], Dir: dir, Env: []string{"DLC=" + dlc}}); err != nil {
		return FailedError(fmt.Errorf("%s: %w\n%s", execx.Quote(gen), err, res.Output))
	}

	total, err := demoSourceSize(ctx, opts.Runner, dlc, source)
	if err != nil {
		return FailedError(err)
	}
	th := scaleThresholds(total)
	say("thresholds scaled to this database: %s", th)
	say("planning the new layout into %s", planDir)
	planOpts := &PlanOptions{IO: &IOStreams{In: opts.IO.In, Out: opts.IO.ErrOut, ErrOut: opts.IO.ErrOut}, Runner: opts.Runner,
		Source: source, DLC: dlc, Out: planDir, Target: target}
	if err := bindPlanDefaults(planOpts); err != nil {
		return err
	}
	planOpts.Large, planOpts.Medium = fmt.Sprint(th.Large), fmt.Sprint(th.Medium)
	if err := planRun(ctx, planOpts); err != nil {
		return err
	}

	say("running the migration (work directory %s)", work)
	// oedl run's own defaults (batched loads, the target tuned for
	// loading, -i, the areas' load caps): the demo shows what a run does.
	ropts := &RunOptions{IO: opts.IO, Runner: opts.Runner}
	ropts.addFlags(pflag.NewFlagSet("run", pflag.ContinueOnError))
	ropts.Source, ropts.Target, ropts.PlanDir, ropts.Work, ropts.DLC = source, target, planDir, work, dlc
	ropts.ThreadedMin, ropts.NoTUI = fmt.Sprint(th.Threaded), opts.NoTUI
	// The source is the demo's own (generated above, in a directory the
	// demo made, served by no one): no room to keep for it to grow, which
	// refused the demo on a disk with less than 1 GiB free. That oedl's
	// files fit is still checked (docs/decisions.md, "The demo's source
	// is oedl's (safety-hosts)").
	ropts.SourceHeadroom = "0"
	cfg, err := ropts.config()
	if err != nil {
		return err
	}
	model, _, err := ropts.costModel(cfg.Plan)
	if err != nil {
		return err
	}
	logger, closeLog, err := newRunLogger(filepath.Join(work, run.LogFile), opts.IO.ErrOut)
	if err != nil {
		if err := os.MkdirAll(work, 0o755); err != nil {
			return FailedError(err)
		}
		if logger, closeLog, err = newRunLogger(filepath.Join(work, run.LogFile), opts.IO.ErrOut); err != nil {
			return FailedError(err)
		}
	}
	defer closeLog()
	cfg.Log = logger
	cfg.Model = model
	if _, err := executeRun(ctx, opts.IO, cfg, opts.NoTUI, false); err != nil {
		return err
	}
	w := opts.IO.ErrOut
	fmt.Fprintf(w, "\ndemo done in %s. Everything is in %s:\n", time.Since(start).Round(100*time.Millisecond), dir)
	fmt.Fprintf(w, "  dlc/                  oesim, the simulated OpenEdge ($DLC)\n")
	fmt.Fprintf(w, "  db/source/            the generated source database\n")
	fmt.Fprintf(w, "  plan/                 target.st, target.df, placement.md, target.pf, plan.json\n")
	fmt.Fprintf(w, "  db/target/            the new database, verified\n")
	fmt.Fprintf(w, "  work/journal.jsonl    every job state change; work/logs/ every utility call\n")
	fmt.Fprintf(w, "  work/verify.json      per-table counts before and after, and their checksums\n")
	fmt.Fprintf(w, "next:\n  oedl status --work %s\n  oedl report --work %[1]s --json\n  oedl verify --before %s --after %s\n  oedl estimate --plan %s\n",
		work, filepath.Join(work, run.SourceAnalysis), filepath.Join(work, run.TargetAnalysis), planDir)
	return nil
}

// prepareDemoDir makes dir ready: created if absent, cleared if an earlier
// demo made it, refused if it holds anything else.
func prepareDemoDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return UsageError("--dir: %v", err)
	case len(entries) > 0:
		if _, err := os.Stat(filepath.Join(dir, demoMarker)); err != nil {
			return UsageError("--dir %s is not empty and was not made by oedl demo: choose another directory", dir)
		}
		if err := demoClearable(dir); err != nil {
			return err
		}
		for _, sub := range []string{"db", "plan", "work"} {
			if err := os.RemoveAll(filepath.Join(dir, sub)); err != nil {
				return FailedError(err)
			}
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return UsageError("--dir: %v", err)
	}
	return os.WriteFile(filepath.Join(dir, demoMarker), []byte("made by oedl demo; oedl demo may clear this directory\n"), 0o644)
}

// bindPlanDefaults fills the plan flags' defaults the way cobra would for
// `oedl plan` (the demo calls planRun without parsing a command line).
func bindPlanDefaults(o *PlanOptions) error {
	cmd := NewCmdPlan(o.IO)
	f := cmd.Flags()
	get := func(name string) string { return f.Lookup(name).DefValue }
	o.Large, o.Medium, o.MaxExtent = get("large"), get("medium"), get("max-extent")
	fmt.Sscan(get("block-size"), &o.BlockSize)
	fmt.Sscan(get("headroom"), &o.Headroom)
	return nil
}
