package run

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/oedl/oedl/internal/diskstats"
	"github.com/oedl/oedl/internal/estimate"
	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/hosts"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/schedule"
)

// Config is one `oedl run`.
type Config struct {
	DLC     string // $DLC: utilities are $DLC/bin/<name>
	Source  string // source database (with or without .db)
	Target  string // target database, created by the run
	PlanDir string // target.st, target.df, plan.json
	Work    string // journal, dumps, logs, reports
	Plan    *plan.Plan

	DumpJobs int // concurrent dumps (0 = estimate.DefaultJobs with Model, else from cores); with Tune, the start
	LoadJobs int // concurrent loads (0 = estimate.DefaultJobs with Model, else from cores); with Tune, the start
	// Tune re-sizes the dump and load limits while the run goes, from
	// the cores' and the disk's load and the jobs waiting (tune.go).
	Tune bool
	// Diskstats is the device the tuner watches (nil: the disk is not
	// read, and only the cores and the queue steer it).
	Diskstats *diskstats.Source
	// LoadsPerArea caps concurrent loads into one target area: 0 = by the
	// area's type (one at a time into a Type I area, no cap in a Type II
	// one: schedule.AreaLoadCaps), negative = no cap.
	LoadsPerArea int
	// ThreadedDumpMin: tables at least this large are dumped with
	// -thread 1 -threadnum DumpThreads when the source is served (0 =
	// default, negative = never).
	ThreadedDumpMin int64
	DumpThreads     int
	// BuildIndexes loads every table dumped whole with "build indexes"
	// (its indexes are built as it loads, KB 20206) and rebuilds only the
	// indexes left inactive (threaded tables) with idxbuild inactiveindexes.
	BuildIndexes bool
	// BatchLoads loads the small tables of an area in batches, one
	// proutil call each (schedule/batch.go): tables whose load the cost
	// model prices mostly as start-up. Not with BuildIndexes, whose load
	// builds one table's indexes per call.
	BatchLoads bool
	// NoIntegrity loads into a target without crash protection (-i): the
	// broker serving it for the loads is started with -i, a load that
	// opens it single-user is given -i (noint.go). A target that dies in
	// that mode cannot be repaired (509)(510): a load that fails makes
	// the run create the target again and reload every table, which the
	// dumps allow since the target holds nothing else.
	NoIntegrity bool
	// TuneTarget serves the target for the loads tuned for loading: the
	// plan's BI settings before the first load, target.pf's parameters
	// and the plan's helper processes (loadserve.go).
	TuneTarget bool
	// ETATrace writes each live ETA forecast with the job plan it
	// simulated to WORK/ETATraceFile (a diagnosis: which jobs the ETA got
	// wrong, scripts/etareplay -trace).
	ETATrace bool

	Resume bool
	// Force replaces an existing target, and only one the target's record
	// (DB.oedl.json) proves an earlier oedl run created, file by file.
	Force bool
	// OnlineSource dumps a source served by a broker oedl did not start
	// (refused otherwise: users may still be writing), with a warning.
	OnlineSource bool
	// AllowChange names what the target may differ in from the source
	// without the plan deciding it (Changes: codepage, blocksize,
	// biblocksize, biclustersize): let through with a warning.
	AllowChange []string
	// SourceHeadroom is the room every filesystem the source grows on
	// keeps after oedl's files (room.Source): 0 the default (the larger of
	// 1 GiB and a tenth of the source), negative none (the DBA states the
	// source needs none there).
	SourceHeadroom int64

	// Retries is how many times a failed job is tried again (a load: how
	// many times its area is repaired and reloaded). 0 = default 2;
	// negative = none.
	Retries int
	// JobTimeout bounds one utility call: MinTimeout plus the job's bytes
	// at MinRate. A call past it is killed (with its process group) and
	// the job fails with "timed out".
	MinTimeout time.Duration
	MinRate    float64 // bytes per second; 0 = 1 MiB/s
	// WaitFree bounds how long a resume waits for utilities of a killed run
	// to let go of a database (0 = 2 minutes).
	WaitFree time.Duration

	// Hosts places the run on several machines (nil: this one only; see
	// hosts.go and docs/hosts.md). Source and Target are then the
	// databases it names.
	Hosts *hosts.File

	Runner execx.Runner
	Events event.Sink
	// Version is oedl's own version, journalled with each invocation for
	// the report (the CLI sets it from the build).
	Version string
	Log     *zap.Logger
	Cost    func(*schedule.Job) time.Duration // queue priority; nil = Model's on one machine, else schedule.DefaultCost
	// Model is the cost model (with its hardware) of the estimate the run
	// makes of its own graph at the start, journalled for the report, and
	// of the live ETA (eta.go); nil: neither.
	Model *estimate.Model
	// CalibrationFile is the --calibration Model was read from ("" for
	// the built-in priors), kept for the command that resumes the run: a
	// resume without it estimates, and sizes the work left, from the
	// priors.
	CalibrationFile string
	// prepared: the run keeps a target oedl prepare made, so its estimate
	// leaves create-target out of the window (set by the run itself).
	prepared bool
	// dumpsAfterCreate: the target is created in the window on the
	// filesystem the source is on, so the table dumps wait for its
	// formatting (schedule.BuildOptions.DumpsAfterCreate; set by the run).
	dumpsAfterCreate bool
	// startupPF is $PROSTARTUP made absolute from oedl's directory, where
	// the DBA set it (fill): the file checkStartupPF checks and the name
	// every utility on this machine gets (env), whatever directory it
	// runs in. Empty when $PROSTARTUP is unset ($DLC/startup.pf, absolute
	// as DLC is).
	startupPF string
	// inPlace: this attempt starts again in the same invocation after one
	// whose failures only a resume repairs (Run); its run_started says so.
	inPlace bool

	// Set by fill on several hosts: the machines, and for a Config seen
	// from a host (at), which host and the work directory here.
	fleet       *fleet
	host        string
	controlWork string
}

// WithDefaults returns the configuration with every default filled in, as
// Run will use it (for --dry-run and the estimate's strategy).
func (c Config) WithDefaults() Config {
	c.fill()
	return c
}

// Defaults derived from the machine.
func (c *Config) fill() {
	cores := runtime.NumCPU()
	// The job counts come from what binds on the model's machine, as oedl
	// estimate sizes them (estimate.DefaultJobs: start-ups are latency, not
	// cores); without a model, from the cores alone.
	jobs := estimate.DefaultStrategy(estimate.Hardware{Cores: cores})
	// Only when a count is still to fill: DefaultJobs costs every table of
	// the plan, and Commands fills its (already filled) config once per job,
	// which made --dry-run quadratic in the tables (20,000 tables: 342 s).
	if c.Model != nil && c.Plan != nil && (c.DumpJobs <= 0 || c.LoadJobs <= 0) {
		jobs.DumpJobs, jobs.LoadJobs = estimate.DefaultJobs(c.Model, c.Model.Hardware, c.Plan)
	}
	if c.Cost == nil && c.Model != nil && c.Hosts == nil {
		// The queue's priorities and the batches' size come from the same
		// model as the job counts, so that the graph this run executes is
		// the one its estimate, oedl estimate and --dry-run simulate.
		c.Cost = c.Model.Cost
	}
	if c.DumpJobs <= 0 {
		c.DumpJobs = jobs.DumpJobs
	}
	if c.LoadJobs <= 0 {
		c.LoadJobs = jobs.LoadJobs
	}
	if c.ThreadedDumpMin == 0 {
		c.ThreadedDumpMin = 64 << 20
	}
	if c.DumpThreads <= 0 {
		c.DumpThreads = min(4, max(2, cores))
	}
	if c.Retries == 0 {
		c.Retries = 2
	}
	if c.Retries < 0 {
		c.Retries = 0
	}
	if c.MinTimeout <= 0 {
		c.MinTimeout = 10 * time.Minute
	}
	if c.MinRate <= 0 {
		c.MinRate = 1 << 20
	}
	if c.WaitFree <= 0 {
		c.WaitFree = 2 * time.Minute
	}
	if c.Runner == nil {
		c.Runner = execx.Local{}
	}
	if c.Log == nil {
		c.Log = zap.NewNop()
	}
	if c.Events == nil {
		c.Events = event.SinkFunc(func(event.Event) {})
	}
	if c.Hosts != nil {
		c.Source, c.Target = c.Hosts.Source().DB, c.Hosts.Target().DB
	}
	c.Source = DBPath(c.Source)
	c.Target = DBPath(c.Target)
	// Utilities run in the work directory: every path they get is absolute.
	c.startupPF = os.Getenv("PROSTARTUP")
	for _, p := range []*string{&c.DLC, &c.Work, &c.PlanDir, &c.startupPF} {
		if *p != "" && !strings.HasPrefix(*p, "$") {
			if abs, err := filepath.Abs(*p); err == nil {
				*p = abs
			}
		}
	}
	if c.Hosts != nil {
		c.Hosts.Defaults(c.DLC, c.Work)
		c.setupHosts()
	}
}

// Strategy is the run's strategy for the estimate: its job counts, the
// areas' cap, the threaded dumps and the load with "build indexes", with
// the defaults filled in (`oedl run --dry-run`, and the estimate the run
// makes of its own graph).
func (c Config) Strategy() estimate.Strategy {
	c.fill()
	return estimate.Strategy{Name: "oedl run", DumpJobs: c.DumpJobs, LoadJobs: c.LoadJobs, LoadsPerArea: c.LoadsPerArea,
		ThreadedDumpMin: max(0, c.ThreadedDumpMin), DumpThreads: c.DumpThreads, BuildIndexes: c.BuildIndexes,
		BatchLoads: c.BatchLoads, Prepared: c.prepared, NoIntegrity: c.NoIntegrity, UntunedTarget: !c.TuneTarget,
		DumpsBesideCreate: c.hostLayout() == nil && !c.targetBesideSource()}
}

// KeepingPrepared is c for a run that keeps the target oedl prepare made
// (Checked.Prepared): its estimate, and so its dry run, leave
// create-target out of the window, as the run itself does.
func (c Config) KeepingPrepared() Config {
	c.prepared = true
	return c
}

// DBPath normalises a database name: absolute, without ".db".
func DBPath(p string) string {
	if p == "" {
		return ""
	}
	p = strings.TrimSuffix(p, ".db")
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// buildOptions are the graph options this configuration implies: several
// dumps at once need a served source (a second single-user utility is
// refused with (263)), several loads a served target.
func (c *Config) buildOptions() schedule.BuildOptions {
	o := schedule.BuildOptions{
		ServeSource: schedule.Served(c.dumpMax()),
		ServeTarget: schedule.Served(c.loadMax()),
		DumpThreads: c.DumpThreads,
		Cost:        c.Cost,
		Hosts:       c.hostLayout(),

		DumpsAfterCreate: c.dumpsAfterCreate,
	}
	if c.ThreadedDumpMin > 0 {
		o.ThreadedDumpMin = c.ThreadedDumpMin
	}
	if c.BatchLoads && !c.BuildIndexes {
		o.Batch = schedule.BatchOptions{TableMax: schedule.StartupBytes(c.Cost)}
	}
	return o
}

// targetBesideSource says whether the target's files go to the filesystem
// the source's are on (of the target's nearest existing directory): one
// device, whose bandwidth the target's formatting and the dumps share. A
// filesystem that cannot be read is taken as another device (the dumps
// then start beside the creation, as before).
func (c *Config) targetBesideSource() bool {
	if c.hostLayout() != nil {
		return false
	}
	src, err := fsOf(filepath.Dir(c.Source))
	if err != nil {
		return false
	}
	tgt, err := fsOf(filepath.Dir(c.Target))
	return err == nil && src == tgt
}

func (c *Config) served(db string) bool {
	o := c.buildOptions()
	if db == schedule.DBTarget {
		return o.ServeTarget
	}
	return o.ServeSource // the source and its replicas
}

func (c *Config) timeout(j *schedule.Job) time.Duration {
	return c.MinTimeout + time.Duration(float64(j.Bytes)/c.MinRate*float64(time.Second))
}

// Paths in the work directory.
func (c *Config) bin(name string) string { return filepath.Join(c.DLC, "bin", name) }
func (c *Config) dumpDir(table string) string {
	return filepath.Join(c.Work, "dump", safeName(table))
}
func (c *Config) logPath(jobID string) string {
	return filepath.Join(c.Work, "logs", safeName(jobID)+".log")
}
func (c *Config) ablPath(name string) string { return filepath.Join(c.Work, "abl", name) }

// Files the run writes in the work directory.
const (
	SourceAnalysis = "source.tba"
	TargetAnalysis = "target.tba"
	SourceDF       = "source.df"
	SequenceValues = "sequences.d"
	// TargetSequenceValues are the target's, read back after
	// load_seqvals.p by the same dump_seqvals.p, for verify.
	TargetSequenceValues = "sequences.target.d"
	// SecurityDir holds the source's users, grants and views
	// (dump_security.p); TargetSecurityDir the target's, read back after
	// load_security.p, for verify.
	SecurityDir       = "security"
	TargetSecurityDir = "security.target"
	PlanFile          = "plan.json"
	LogFile           = "oedl.log"
	// ETAFile is the latest eta event, for `oedl status` (eta.go).
	ETAFile = "eta.json"
	// ETATraceFile is the ETA's trace (Config.ETATrace).
	ETATraceFile = "eta-trace.jsonl"
)

func (c *Config) work(name string) string { return filepath.Join(c.Work, name) }

func (c *Config) db(which string) string {
	if which == schedule.DBTarget {
		return c.Target
	}
	return c.atDB(which).Source // the source, or the replica's copy of it
}

func (c *Config) validate() error {
	switch {
	case c.Source == "":
		return fmt.Errorf("no source database")
	case c.Target == "":
		return fmt.Errorf("no target database")
	case c.Work == "":
		return fmt.Errorf("no work directory")
	case c.Plan == nil:
		return fmt.Errorf("no plan")
	case c.Source == c.Target:
		return &UsageError{Err: fmt.Errorf("--source and --target are the same database: %s", c.Source)}
	}
	return c.pathsOnOneLine()
}

// pathsOnOneLine refuses a path with a line break (exit 2). OpenEdge
// cannot name a database or an extent so (a .st line cannot hold it; oedl
// plan refuses it too), and post-load.sh, a script the DBA runs, names the
// target, the work directory and $DLC in comments: a comment ends at the
// break and the rest of the path was a command (safety trial 7). It
// refuses a --source or --target written for Windows too (nu-trial8).
func (c *Config) pathsOnOneLine() error {
	for _, p := range []struct{ flag, path string }{
		{"--source", c.Source}, {"--target", c.Target}, {"--work", c.Work}, {"--plan", c.PlanDir}, {"--dlc", c.DLC},
	} {
		if strings.ContainsAny(p.path, "\n\r") {
			return &UsageError{Err: fmt.Errorf("%s %q: a path with a line break cannot name an OpenEdge database, and would break the scripts oedl writes (post-load.sh)", p.flag, p.path)}
		}
	}
	for _, p := range []struct{ flag, path string }{{"--source", c.Source}, {"--target", c.Target}} {
		if plan.IsWindowsPath(p.path) {
			// The run would create a database of that name under the
			// current directory (nu-trial8), as plan refuses for extents.
			return &UsageError{Err: fmt.Errorf("%s \"%s\" is a Windows path (a drive letter or a backslash): oedl runs on Unix only; give the database's Unix path", p.flag, p.path)}
		}
	}
	return nil
}

// env is what every utility call gets on top of oedl's environment: the
// wrappers in $DLC/bin refuse to run without DLC.
// WorkEnv marks each as this run's (see stopOrphans; on another host,
// stopRemoteOrphans), with the work directory here whatever host runs it;
// a host's own environment from the hosts file comes after. On one
// machine $PROSTARTUP is the absolute name checked (startupPF); a host's
// is its own (checkStartupPFOn refuses it relative).
func (c *Config) env() []string {
	env := []string{"DLC=" + c.DLC, WorkEnv + "=" + c.at("").workMarker()}
	if c.fleet == nil && c.startupPF != "" {
		env = append(env, "PROSTARTUP="+c.startupPF)
	}
	return append(env, c.hostEnv()...)
}

// workMarker is the work directory as WorkEnv spells it: with symlinks
// resolved, so that a resume finds the utilities of a run it names by
// another path.
func (c *Config) workMarker() string {
	if p, err := filepath.EvalSymlinks(c.Work); err == nil {
		return p
	}
	return c.Work
}
