package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/oedl/oedl/internal/diskstats"
	"github.com/oedl/oedl/internal/estimate"
	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/run"
	"github.com/oedl/oedl/internal/schedule"
	"github.com/oedl/oedl/internal/tui"
	"github.com/oedl/oedl/internal/units"
)

// RunOptions are the flags of `oedl run`.
type RunOptions struct {
	IO     *IOStreams
	Runner execx.Runner

	Source, Target string
	PlanDir, Work  string
	DLC            string
	DumpJobs       int
	LoadJobs       int
	LoadsPerArea   int
	ThreadedMin    string
	SourceHeadroom string
	BuildIndexes   bool
	BatchLoads     bool
	NoIntegrity    bool
	TuneTarget     bool
	Tune           string // auto, off
	Diskstats      string
	DiskDevice     string
	ETATrace       bool
	Retries        int
	JobTimeout     time.Duration
	Resume, Force  bool
	OnlineSource   bool
	AllowChange    []string
	NoTUI, JSON    bool
	DryRun         bool
	// Hardware and Calibration set the cost model of the estimate the run
	// makes of its own graph (journalled, the report's estimate against
	// actual), of its live ETA and of the dry run (as oedl estimate).
	Hardware, Calibration string
	// Hosts is the hosts file: the source, replicas and target on several
	// machines (docs/hosts.md).
	Hosts string
}

// NewCmdRun builds `oedl run`.
func NewCmdRun(io *IOStreams) *cobra.Command {
	opts := &RunOptions{IO: io, Runner: execx.Local{}}
	cmd := &cobra.Command{
		Use:   "run --source DB --target DB --plan DIR --work DIR",
		Short: "Dump, load, rebuild indexes and verify: the whole migration, resumable",
		Long: `Run executes a plan: preflight checks, the source's tabanalys baseline, the .df
and sequence values, the target created from the plan's target.st and target.df,
every table dumped and loaded in parallel (a table's load starts as soon as its
dump exists; one load at a time into a Type I storage area, any number into a
Type II one, --loads-per-area), idxbuild with the plan's
parameters, sequences restored, the target's tabanalys and a table-by-table
verification against the baseline, then the plan's post steps.

Every job state change is journalled (WORK/journal.jsonl, fsynced) before it is
acted on. After a crash, kill -9, Ctrl-C or a failed job, run again with
--resume: done work is skipped when its outputs prove it, and a storage area
that a load left half-filled is truncated and all its tables loaded again.

A resume continues with the same --source, --target and --plan: other ones
are refused (exit 2). A second run on a target another run is writing is
refused once its preflight has proven the target's files (exit 3, naming
the other run's work directory).

EXIT STATUS
  0 verified; 1 a job failed or the counts differ; 2 bad usage or input
  (a --resume with other inputs than its journal's); 3 a precondition (DLC,
  database in use, disk space, the target in another run's hands);
  130 interrupted.`,
		Example: `  oedl run --source /db/prod --target /db/new/prod --plan plan/ --work work/
  oedl run --source /db/prod --target /db/new/prod --plan plan/ --work work/ --resume
  oedl run ... --no-tui --dump-jobs 8 --load-jobs 4 > run.log`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if opts.DLC == "" {
				opts.DLC = os.Getenv("DLC")
			}
			return runRun(c.Context(), opts)
		},
	}
	opts.addFlags(cmd.Flags())
	return cmd
}

// addFlags defines run's flags on f, their defaults set into opts: oedl
// demo takes the same defaults, so the demo shows what oedl run does.
func (opts *RunOptions) addFlags(f *pflag.FlagSet) {
	f.StringVar(&opts.Source, "source", "", "source database")
	f.StringVar(&opts.Target, "target", "", "target database to create")
	f.StringVar(&opts.PlanDir, "plan", "", "plan directory written by oedl plan")
	f.StringVar(&opts.Work, "work", "", "work directory: journal, dumps, logs, reports")
	f.StringVar(&opts.DLC, "dlc", "", "OpenEdge install directory (default $DLC)")
	f.IntVar(&opts.DumpJobs, "dump-jobs", 0, "concurrent dumps (default: sized from what binds with the cost model: start-ups against cores and disk; 2 per core at least, 32 at most)")
	f.IntVar(&opts.LoadJobs, "load-jobs", 0, "concurrent loads (default: sized from what binds with the cost model: start-ups against cores and disk; 1 per core and 2 at least, 32 at most)")
	f.IntVar(&opts.LoadsPerArea, "loads-per-area", 0, "concurrent loads into one storage area (default: 1 in a Type I area, no cap in a Type II one; negative: no cap)")
	f.StringVar(&opts.ThreadedMin, "threaded-dump-min", "64MB", "dump tables this large with -thread 1 (needs a served source; 0 = never)")
	f.BoolVar(&opts.BuildIndexes, "build-indexes", false, "load tables dumped whole with \"build indexes\"; idxbuild then rebuilds only the inactive indexes (threaded tables)")
	f.BoolVar(&opts.BatchLoads, "batch-loads", true, "load the small tables of an area (whose load is mostly start-up, by the cost model) in batches, one proutil -C load -dumplist call each; journal, repair and resume stay per table (--batch-loads=false: each table alone)")
	f.BoolVar(&opts.NoIntegrity, "no-integrity", true, "load into the target without crash protection (-i: the broker serving it for the loads, or each single-user load), faster; the target is oedl's own and holds only the dumps' records, so a load that fails costs time, not data: the run creates the target again and reloads every table, since a database that dies under -i cannot be repaired (509); the estimate says how long that takes (--no-integrity=false: crash-safe loads, a failed load repairs its area alone)")
	f.BoolVar(&opts.TuneTarget, "tune-target", true, "serve the target for the loads tuned for loading (Progress's binary-load advice): the plan's BI cluster before the first load, target.pf's parameters, a BI writer and the plan's page writers; none of it outlives the loads (--tune-target=false: a bare proserve)")
	f.StringVar(&opts.Tune, "tune", "off", "re-size the dump and load concurrency while the run goes: auto raises it while jobs wait for a slot and neither the cores nor the disk is busy, holds when one is, and takes a raise back when the busy one's throughput did not rise with it; --dump-jobs/--load-jobs are then where it starts (off: they hold throughout)")
	f.StringVar(&opts.Diskstats, "diskstats", "/proc/diskstats", "the disk's counters --tune reads, in /proc/diskstats form (oesim: $OESIM_STATE/diskstats)")
	f.StringVar(&opts.DiskDevice, "disk-device", "", "the device --tune watches in --diskstats (default: the one --work is on)")
	f.IntVar(&opts.Retries, "retries", 2, "retries of a failed job (a load: repairs of its area)")
	f.DurationVar(&opts.JobTimeout, "job-timeout", 10*time.Minute, "a utility call is killed after this plus 1s per MiB of its table")
	f.BoolVar(&opts.Resume, "resume", false, "continue the run journalled in --work")
	f.BoolVar(&opts.Force, "force", false, "replace an existing target database, only one an earlier oedl run made (its DB.oedl.json record proves each file) and only while it is exactly as that run left it (a target served, opened or written since is refused, exit 3)")
	f.StringVar(&opts.SourceHeadroom, "source-headroom", "", sourceHeadroomFlagHelp)
	f.BoolVar(&opts.OnlineSource, "online-source", false, "dump a source served by a broker oedl did not start (users may still be writing: the copy is not consistent; warned on screen and in the report)")
	f.StringSliceVar(&opts.AllowChange, "allow-change", nil, "let the target differ from the source in "+strings.Join(run.Changes, ", ")+" (describe; refused with exit 3 otherwise unless the plan decided it): warned on screen and in the report")
	f.BoolVar(&opts.NoTUI, "no-tui", false, "plain progress lines instead of the live screen")
	f.BoolVar(&opts.JSON, "json", false, "JSON events on stdout, one per line")
	f.BoolVar(&opts.DryRun, "dry-run", false, "print the commands in queue order and run nothing")
	f.StringVar(&opts.Hardware, "hardware", "", "hardware description, JSON (as oedl estimate): the machine of the run's estimate, its live ETA and the dry run")
	f.StringVar(&opts.Calibration, "calibration", "", "model parameters written by oedl calibrate: the run's estimate and its default dump and load job counts come from them, as in oedl estimate --calibration (default: built-in priors)")
	f.StringVar(&opts.Hosts, "hosts", "", "hosts file: the source, its replicas and the target on several machines, over ssh (docs/hosts.md); it names the databases")
	// A diagnosis of the ETA, not a DBA's option (docs/events.md, "The ETA").
	f.BoolVar(&opts.ETATrace, "eta-trace", false, "write each live ETA forecast with the job plan it simulated to WORK/eta-trace.jsonl")
	_ = f.MarkHidden("eta-trace")
}

func (opts *RunOptions) config() (run.Config, error) {
	var cfg run.Config
	hf, err := readHosts(opts.Hosts, opts.Source, opts.Target)
	if err != nil {
		return cfg, err
	}
	switch {
	case hf != nil:
	case opts.Source == "":
		return cfg, UsageError("give the source database with --source")
	case opts.Target == "":
		return cfg, UsageError("give the target database with --target")
	case opts.PlanDir == "":
		return cfg, UsageError("give the plan directory with --plan")
	case opts.Work == "" && !opts.DryRun:
		return cfg, UsageError("give the work directory with --work")
	case strings.ContainsRune(opts.Work, ','):
		// prodict/dump_df.p takes "tables,file" in one -param: a comma in
		// the path would make it write source.df somewhere else.
		return cfg, UsageError("--work %s: a comma in the path cannot be passed to prodict/dump_df.p (its -param is comma-separated): choose a work directory without one", opts.Work)
	case opts.DumpJobs < 0 || opts.LoadJobs < 0:
		return cfg, UsageError("--dump-jobs and --load-jobs cannot be negative")
	}
	switch {
	case opts.Tune != "auto" && opts.Tune != "off" && opts.Tune != "": // "": oedl prepare, which has no --tune
		return cfg, UsageError("--tune %s: want auto or off", opts.Tune)
	case opts.Tune == "auto" && hf != nil:
		// The tuner reads this machine's counters, not the hosts': it
		// would steer the hosts' jobs by the wrong machine.
		return cfg, UsageError("--tune auto: not with --hosts (the tuner reads this machine's cores and disk only)")
	}
	for _, a := range opts.AllowChange {
		if !slices.Contains(run.Changes, a) {
			return cfg, UsageError("--allow-change %s: want one of %s", a, strings.Join(run.Changes, ", "))
		}
	}
	p, err := plan.ReadJSON(filepath.Join(opts.PlanDir, "plan.json"))
	if err != nil {
		return cfg, UsageError("--plan: %v", err)
	}
	if err := plan.NeedTargetDF(p, opts.PlanDir); err != nil {
		return cfg, UsageError("--plan: %v", err)
	}
	threaded, err := parseSizeFlag("--threaded-dump-min", opts.ThreadedMin)
	if err != nil {
		return cfg, err
	}
	if threaded == 0 {
		threaded = -1
	}
	headroom, err := sourceHeadroomFlag(opts.SourceHeadroom)
	if err != nil {
		return cfg, err
	}
	retries := opts.Retries
	if retries == 0 {
		retries = -1
	}
	work := opts.Work
	if work != "" {
		work, _ = filepath.Abs(work)
	}
	planDir, _ := filepath.Abs(opts.PlanDir)
	return run.Config{
		DLC: opts.DLC, Source: opts.Source, Target: opts.Target, PlanDir: planDir, Work: work, Plan: p,
		DumpJobs: opts.DumpJobs, LoadJobs: opts.LoadJobs, LoadsPerArea: opts.LoadsPerArea,
		ThreadedDumpMin: threaded, BuildIndexes: opts.BuildIndexes, BatchLoads: opts.BatchLoads, NoIntegrity: opts.NoIntegrity, TuneTarget: opts.TuneTarget, ETATrace: opts.ETATrace, Retries: retries, MinTimeout: opts.JobTimeout,
		Resume: opts.Resume, Force: opts.Force, OnlineSource: opts.OnlineSource, AllowChange: opts.AllowChange, Runner: opts.Runner, Version: Version(), Hosts: hf,
		Tune: opts.Tune == "auto", SourceHeadroom: headroom,
	}, nil
}

// tuneDisk is the device --tune watches, or nil with a note saying why
// it tunes without one (the work directory's filesystem may be no block
// device in the file: an overlay, tmpfs, a network share).
func (opts *RunOptions) tuneDisk(work string) (*diskstats.Source, string) {
	src, err := run.DiskOf(opts.Diskstats, opts.DiskDevice, work)
	if err != nil {
		return nil, fmt.Sprintf("--tune: %v: tuning from the cores and the queue alone (name the device with --disk-device)", err)
	}
	return src, ""
}

func runRun(ctx context.Context, opts *RunOptions) error {
	cfg, err := opts.config()
	if err != nil {
		return err
	}
	m, note, err := opts.costModel(cfg.Plan)
	if err != nil {
		return err
	}
	cfg.Model = m // the default job counts are sized with it, in the dry run too
	cfg.CalibrationFile = opts.Calibration
	if opts.DryRun && cfg.Hosts != nil {
		// The plan directory is on this machine: held together as run,
		// estimate and calibrate hold it (the hosts' files wait for the
		// preflight's connections).
		if _, err := plan.ReadTarget(cfg.PlanDir, cfg.Plan, true); err != nil {
			var invalid *plan.InvalidError
			if errors.As(err, &invalid) {
				return UsageError("%v", err)
			}
			return PreconditionError(err)
		}
		fmt.Fprintf(opts.IO.ErrOut, "checked: the plan holds together\n")
		fmt.Fprintf(opts.IO.ErrOut, "not checked: the hosts' files are proven at the run's preflight, over each host's connection\n")
		fmt.Fprintf(opts.IO.ErrOut, "not checked: the source's codepage and block sizes against the target's (describe is not compared across hosts: compare them by hand)\n")
		return dryRun(opts.IO.Out, cfg, m, note)
	}
	if opts.DryRun {
		checked, err := run.Check(ctx, cfg)
		if err != nil {
			return runExit(ctx, err, cfg.ResumeCommand())
		}
		fmt.Fprintf(opts.IO.ErrOut, "checked: the plan holds together; the source is not the target; no file the target will have is in the way (%s)\n", checked.Note)
		if checked.Validated {
			fmt.Fprintf(opts.IO.ErrOut, "checked: this installation's prostrct create -validate takes target.st (it writes nothing)\n")
		}
		if checked.Describe != "" {
			fmt.Fprintf(opts.IO.ErrOut, "checked: the source's codepage and block sizes against the target's (%s)\n", checked.Describe)
		}
		for _, w := range checked.Warnings {
			fmt.Fprintf(opts.IO.ErrOut, "warning: %s\n", w)
		}
		if checked.Prepared {
			fmt.Fprintf(opts.IO.ErrOut, "checked: the target oedl prepare made is as it left it; the run keeps it, so create-target is not in the window\n")
			cfg = cfg.KeepingPrepared()
		}
		return dryRun(opts.IO.Out, cfg, m, note)
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
	// Read also when --tune is off: a resume tunes if its first run did.
	var diskNote string
	cfg.Diskstats, diskNote = opts.tuneDisk(cfg.Work)
	if diskNote != "" && cfg.Tune {
		fmt.Fprintf(opts.IO.ErrOut, "warning: %s\n", diskNote)
	}
	logger, closeLog, err := newRunLogger(filepath.Join(cfg.Work, run.LogFile), opts.IO.ErrOut)
	if err != nil {
		return PreconditionError(err)
	}
	defer closeLog()
	cfg.Log = logger
	cfg.Model = m
	_, err = executeRun(ctx, opts.IO, cfg, opts.NoTUI, opts.JSON)
	return err
}

// executeRun runs cfg with the event printers the streams call for (the
// live screen on a terminal, plain lines otherwise, JSON on stdout with
// --json) and maps the outcome to an exit code. demo shares it.
func executeRun(ctx context.Context, io *IOStreams, cfg run.Config, noTUI, jsonOut bool) (*run.Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var sinks event.Multi
	logSink := event.SinkFunc(func(e event.Event) { logEvent(cfg.Log, e) })
	sinks = append(sinks, logSink)
	var closers []func()
	var ui *tui.Program
	var jsonSink *tui.JSON
	if jsonOut {
		// The events on stdout; a person still sees the run on stderr, as
		// plain lines (a live screen would fight a terminal on stdout).
		jsonSink = tui.NewJSON(io.Out)
		sinks = append(sinks, jsonSink)
		closers = append(closers, jsonSink.Close) // every event written before the summary
		noTUI = true
	}
	switch {
	case io.IsTerminal && !noTUI && !(cfg.Resume && run.IsFinished(cfg.Work)):
		ui = tui.New(screenOptions(io, cfg, cancel))
		sinks = append(sinks, ui)
	default:
		lines := tui.NewQueuedWriter(io.ErrOut) // a stderr nobody reads does not hold the run
		p := tui.NewPlain(lines, 10*time.Second)
		sinks = append(sinks, p)
		closers = append(closers, func() { p.Close(); lines.Close() })
	}
	cfg.Events = sinks
	var res *run.Result
	var err error
	if ui != nil {
		done := make(chan struct{})
		go func() {
			defer close(done)
			res, err = run.Run(ctx, cfg)
			ui.Close()
		}()
		if uiErr := ui.Run(ctx); uiErr != nil {
			cfg.Log.Warn("screen: " + uiErr.Error())
		}
		<-done
	} else {
		res, err = run.Run(ctx, cfg)
	}
	for _, c := range closers {
		c()
	}
	warnJSONStopped(io.ErrOut, jsonSink, cfg.Work)
	switch {
	case err == nil && res != nil && res.Finished != nil:
		printNothingToDo(io.ErrOut, cfg, res.Finished)
	case err == nil:
		printRunSummary(io.ErrOut, cfg, res)
	}
	return res, runExit(ctx, err, cfg.ResumeCommand())
}

// warnJSONStopped says, on stderr, that --json's events stopped at the
// first that could not be written (its consumer went away: a closed pipe
// stops the stream, not the run), and where the whole run is to be read.
func warnJSONStopped(w io.Writer, j *tui.JSON, work string) {
	if j == nil || j.Err() == nil {
		return
	}
	fmt.Fprintf(w, "warning: --json: the events stopped at the first that could not be written (%v); the run went on: oedl report --work %s --json has all of it\n",
		j.Err(), execx.ShellQuote(work))
}

// screenOptions are the live screen's: the terminal and the disks it
// watches.
func screenOptions(io *IOStreams, cfg run.Config, cancel func()) tui.Options {
	source, target := shownDatabases(cfg)
	return tui.Options{Out: io.ErrOut, In: io.In, Cancel: cancel, Source: source, Target: target,
		Disks: func() []tui.Disk {
			disks := []tui.Disk{{Label: "work", Free: freeBytes(cfg.Work)}}
			if cfg.Hosts == nil { // a target host's disk is not this machine's
				disks = append(disks, tui.Disk{Label: "target", Free: freeBytes(filepath.Dir(cfg.Target))})
			}
			return disks
		}}
}

// shownDatabases are the source and the target as the DBA reads them: on
// a run across hosts each with its host (the hosts file names them; the
// Config's --source and --target are empty there); on one machine the
// target as the run named it (run.DBPath).
func shownDatabases(cfg run.Config) (source, target string) {
	if cfg.Hosts == nil {
		return cfg.Source, run.DBPath(cfg.Target)
	}
	s, t := cfg.Hosts.Source(), cfg.Hosts.Target()
	return s.DB + " on " + s.Name, t.DB + " on " + t.Name
}

// runExit maps a run's error to its exit status; resume is the command
// that continues it (run.Config.ResumeCommand), printed when interrupted.
func runExit(ctx context.Context, err error, resume string) error {
	if err == nil {
		return nil
	}
	var pe *run.PreconditionError
	var ue *run.UsageError
	var fe *run.FailedError
	switch {
	case errors.As(err, &ue):
		return &ExitError{Code: ExitUsage, Err: err}
	case errors.As(err, &pe):
		return PreconditionError(err)
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		return &ExitError{Code: ExitInterrupted, Err: fmt.Errorf("interrupted; the journal is consistent: continue with %s", resume)}
	case errors.As(err, &fe):
		return FailedError(err)
	}
	return FailedError(err)
}

// printNothingToDo answers a resume of a run that is over.
func printNothingToDo(w io.Writer, cfg run.Config, f *run.Finished) {
	fmt.Fprintf(w, "nothing to do: the run in %s finished verified at %s", cfg.Work, f.At.Local().Format("2006-01-02 15:04:05"))
	if f.Verify != "" {
		fmt.Fprintf(w, " (%s)", f.Verify)
	}
	_, target := shownDatabases(cfg)
	fmt.Fprintf(w, "\nits journal, report and timings are left as they were; target: %s\n", target)
}

func printRunSummary(w io.Writer, cfg run.Config, res *run.Result) {
	if res == nil {
		return
	}
	switch {
	case res.InPlace > 0 && res.Schedule != nil:
		// The last attempt's time and skipped jobs were most of the run's
		// own work: the whole invocation, and the restart said as it was.
		fmt.Fprintf(w, "\nrun done in %s (resumed in place %s)", units.FormatDuration(res.Schedule.End.Sub(res.Began)), units.Times(res.InPlace))
	case res.Resumed:
		fmt.Fprintf(w, "\nrun done in %s (resumed: %d job(s) already done)", units.FormatDuration(res.Schedule.Elapsed()), res.Skipped)
	default:
		fmt.Fprintf(w, "\nrun done in %s", units.FormatDuration(res.Schedule.Elapsed()))
	}
	fmt.Fprintln(w)
	if v := res.Verify; v != nil {
		fmt.Fprintf(w, "verified: %s tables, %s records; sha256 before %s = after %s\n",
			units.Thousands(int64(len(v.Rows))), units.Thousands(v.After.Records), v.Before.ShortSum(), v.After.ShortSum())
		if s := v.Security; s != nil {
			fmt.Fprintf(w, "verified: %s before = after\n", s.After)
		}
		if s := v.Sequences; s != nil && len(s.Differ) == 0 {
			fmt.Fprintf(w, "verified: %s sequence values before = after\n", units.Thousands(int64(s.Compared)))
		}
	}
	for _, r := range res.Repairs {
		fmt.Fprintf(w, "repaired: %s\n", r)
	}
	// The target as the run named it: absolute and cleaned. The --target
	// as given may hold "link/.." that the kernel resolves elsewhere than
	// the run did (into the source's directory; safety trial 10).
	_, target := shownDatabases(cfg)
	fmt.Fprintf(w, "target:   %s\nwork:     %s (journal.jsonl, verify.json, logs/, report.md)\n", target, cfg.Work)
}

// newRunLogger writes the run's diagnostic log (zap, JSON lines) to path.
func newRunLogger(path string, errOut io.Writer) (*zap.Logger, func(), error) {
	f, err := run.OpenWorkLog(path)
	if err != nil {
		return nil, nil, err
	}
	// Buffered (flushed every second and at the end): the log is for
	// diagnosis, the journal is the fsynced truth, and a write per event
	// would cost more CPU than the scheduling it describes.
	ws := &zapcore.BufferedWriteSyncer{WS: zapcore.AddSync(f), FlushInterval: time.Second}
	l := newRunLoggerTo(ws, path, errOut)
	return l, func() { _ = l.Sync(); _ = ws.Stop(); f.Close() }, nil
}

// newRunLoggerTo is the run's logger writing to ws; a write that fails is
// said once on errOut (logTrouble).
func newRunLoggerTo(ws zapcore.WriteSyncer, path string, errOut io.Writer) *zap.Logger {
	enc := zap.NewProductionEncoderConfig()
	enc.EncodeTime = zapcore.ISO8601TimeEncoder
	core := zapcore.NewCore(zapcore.NewJSONEncoder(enc), ws, zap.DebugLevel)
	return zap.New(core, zap.ErrorOutput(zapcore.AddSync(&logTrouble{w: errOut, path: path}))).
		With(zap.Int("pid", os.Getpid()), zap.Int("cores", runtime.NumCPU()))
}

// logTrouble takes zap's reports of writes to the run's log that failed
// (the work disk full). zap wrote each on stderr with a Go clock reading
// in it, a line per failed write among the run's lines; this says it once,
// in oedl's words: the log is for diagnosis, the run goes on without it.
type logTrouble struct {
	once sync.Once
	w    io.Writer
	path string
}

func (l *logTrouble) Write(p []byte) (int, error) {
	l.once.Do(func() {
		why := strings.TrimSpace(string(p))
		if _, after, ok := strings.Cut(why, " error: "); ok { // zap's "<time> write error: <err>"
			why = after
		}
		fmt.Fprintf(l.w, "warning: the run's log %s cannot be written (%s); the run goes on without it\n", l.path, why)
	})
	return len(p), nil
}

func logEvent(l *zap.Logger, e event.Event) {
	if l == nil || e.Kind == event.JobProgress || e.Kind == event.JobQueued || e.Kind == event.ETAKind {
		return
	}
	fields := []zap.Field{zap.String("kind", string(e.Kind))}
	if e.Job != "" {
		fields = append(fields, zap.String("job", e.Job))
	}
	if e.Elapsed > 0 {
		fields = append(fields, zap.Duration("elapsed", e.Elapsed))
	}
	if e.Records > 0 {
		fields = append(fields, zap.Int64("records", e.Records))
	}
	if e.Message != "" {
		fields = append(fields, zap.String("message", e.Message))
	}
	if e.Log != "" {
		fields = append(fields, zap.String("log", e.Log))
	}
	if e.Err != "" {
		l.Warn("event", append(fields, zap.String("error", e.Err))...)
		return
	}
	l.Info("event", fields...)
}

// freeBytes is the space left on dir's filesystem, -1 when unknown.
func freeBytes(dir string) int64 {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return -1
	}
	return int64(st.Bavail) * int64(st.Bsize)
}

// sourceHeadroomFlagHelp is --source-headroom's help, the same on every
// command that writes on this machine (run, prepare, calibrate).
const sourceHeadroomFlagHelp = "room every filesystem the source grows on (its variable extents, BI, AI, log) keeps after oedl's files, since a full disk stops a served database (default: the larger of 1GiB and a tenth of the source; 0: none, the DBA states the source will not grow there); refused with exit 3 otherwise"

// sourceHeadroomFlag reads --source-headroom as run.Config takes it: 0
// the default, negative none.
func sourceHeadroomFlag(s string) (int64, error) {
	if strings.TrimSpace(s) == "" {
		return 0, nil
	}
	n, err := units.ParseBytes(s)
	if err != nil {
		return 0, UsageError("--source-headroom: %v", err)
	}
	if n == 0 {
		return -1, nil
	}
	return n, nil
}

func parseSizeFlag(flag, s string) (int64, error) {
	if s == "" || s == "0" {
		return 0, nil
	}
	n, err := units.ParseBytes(s)
	if err != nil {
		return 0, UsageError("%s: %v", flag, err)
	}
	return n, nil
}

// costModel is the model of --calibration (default the built-in priors)
// on the machine of --hardware; without either, this machine's cores and
// memory (from the plan) with the model's disk. note says which.
func (opts *RunOptions) costModel(p *plan.Plan) (*estimate.Model, string, error) {
	m := estimate.DefaultModel()
	note := "the built-in model"
	if opts.Calibration != "" {
		var err error
		if m, err = estimate.ReadModel(opts.Calibration); err != nil {
			return nil, "", UsageError("--calibration: %v", err)
		}
		if m.Older != "" {
			fmt.Fprintf(opts.IO.ErrOut, "warning: %s\n", m.Older)
		}
		note = "the calibration " + opts.Calibration
	}
	switch {
	case opts.Hardware != "":
		hw, err := estimate.ReadHardware(opts.Hardware)
		if err != nil {
			return nil, "", UsageError("--hardware: %v", err)
		}
		m.Hardware = hw
		note += " on the hardware of " + opts.Hardware
	case opts.Calibration != "":
		note += " on its calibrated machine"
	default:
		cores := p.Machine.Cores
		if cores <= 0 {
			cores = runtime.NumCPU()
		}
		// The disk is the model's, as oedl estimate assumes without
		// --hardware: one default disk for both.
		m.Hardware = estimate.DefaultHardware(cores, p.Machine.MemoryBytes)
		return m, "dry run: this machine's cores and the model's disk; --hardware or --calibration set them", nil
	}
	return m, "dry run: " + note, nil
}

// dryRun prints the rehearsal through the estimate (the same graph on the
// simulated clock, so the commands come in the order the queue would start
// them, with predicted times), on the model's machine.
func dryRun(w io.Writer, cfg run.Config, m *estimate.Model, note string) error {
	if cfg.Work == "" {
		cfg.Work = "$WORK" // printed as is: the commands are for reading
	}
	eff := cfg.WithDefaults()
	hw := m.Hardware
	if hw.Note == "" {
		hw.Note = note
	}
	err := estimate.DryRun(w, estimate.DryRunInput{
		// The run's queue cost (its model's: run.Config.Cost), so that the
		// commands come in the order and the batches the run will make.
		Input:    estimate.Input{Plan: eff.Plan, Hardware: hw, Model: m, Strategy: eff.Strategy(), QueueCost: eff.Cost},
		Commands: func(j *schedule.Job) [][]string { return run.Commands(eff, j) },
	})
	if err != nil {
		return UsageError("dry run: %v", err)
	}
	return nil
}
