package run

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/oedl/oedl/internal/atomicfile"
	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/report"
	"github.com/oedl/oedl/internal/room"
	"github.com/oedl/oedl/internal/schedule"
	"github.com/oedl/oedl/internal/sysproc"
	"github.com/oedl/oedl/internal/units"
	"github.com/oedl/oedl/internal/verify"
)

// Result is what a run did.
type Result struct {
	Schedule *schedule.Result
	Graph    *schedule.Graph
	Verify   *verify.Result // nil when verification did not run
	Resumed  bool
	Skipped  int
	// InPlace counts the attempts this invocation started again in place
	// (Run); Began is when its first began (Schedule is the last's).
	InPlace int
	Began   time.Time
	// Repairs lists the repairs of this invocation, as "area: why".
	Repairs []string
	Journal string
	Rusage  Rusage
	// Finished is set when a resume found the run over and verified: it
	// did nothing (Schedule is nil).
	Finished *Finished
}

// runner holds the state of one invocation outside the graph.
type runner struct {
	cfg              *Config
	log              *os.File // logs/run.log: calls made outside the graph
	servedByUs       map[string]bool
	brokers          map[string]sysproc.ID // the brokers the journal's serves started, by database (brokers.go)
	externallyServed map[string]bool
	// sourceTask is the source's last transaction id, read by the
	// preflight when the source was free (fingerprint.go); nil otherwise.
	sourceTask *int64
	// sourceDF is the source's .df the preflight's single-user session
	// dumped beside the transaction id (checkSourceFree), in a scratch
	// directory the preflight removes; "" when the source was not read
	// single-user (--online-source).
	sourceDF string
	// unlockTarget drops the target's lock (targetlock.go); nil until the
	// preflight has taken it.
	unlockTarget func()
	// resumeKeepsTarget: the journal proves the target was created, so a
	// resume continues into it instead of refusing it as existing.
	resumeKeepsTarget bool
	// openEdge is the OpenEdge release of each host of a run across
	// hosts ("" on one machine: $DLC's here).
	openEdge string
	// recordWritten: the journal's create-target lists the files it
	// created, so the oedl that created the target wrote its record
	// (DB.oedl.json) too: a target kept without one is not proven its.
	recordWritten bool
	// unfinished are the jobs a killed run started and never ended.
	unfinished []string
	// proof is the preflight's proof of the target's files, for
	// create-target to prove again and act on.
	proof *targetProof
	// dumpProven tells, on a resume, whether the journal proves a table's
	// dump is on disk (nil on a first run).
	dumpProven func(table string) bool
	// warnings are what the preflight let pass but the DBA must hear
	// (a source dumped online): on the screen and in the report.
	warnings []string
	// described is the preflight's comparison of source and target
	// (describe); nil on a run across hosts, which does not compare them
	// (and says so: notComparedAcrossHosts).
	described *describeCheck
	// prepared is the target `oedl prepare` made, for a first run (or a
	// preparation run again) to prove untouched and keep (prepared.go).
	prepared *preparedTarget
	// prepareOnly: this is `oedl prepare`, which writes the target alone.
	prepareOnly bool
	// sourceRoom is where the source grows and the room its disks keep
	// (sourceFiles; nil before it, or without a listed source).
	sourceRoom *room.Source
	// rebuild: a no-integrity load died, and this resume creates the
	// run's own target again (noint.go).
	rebuild bool
	// lastStart is when the journal's last invocation began (zero on a
	// first run): a target record left after it was left by an
	// invocation that ended (ownleft.go).
	lastStart time.Time
	// lastRecord is when the journal's last record was written, and
	// ownPIDs the processes it says the run started: a killed run's
	// target used by someone since shows in its log (killedsince.go).
	lastRecord time.Time
	ownPIDs    map[int]bool
	// logSeen is the target's log as the journal last saw it (its
	// record's Seq logSeenAt): a killed run's resume refuses one that
	// lost lines since (killedsince.go).
	logSeen    *journal.LogSeen
	logSeenAt  int64
	unrecorded int
}

// Run executes the plan: preflight, dumps and loads, idxbuild, sequences,
// verification, post steps. A *PreconditionError means nothing was
// changed (exit 3); a context error means interrupted (exit 130, the
// journal is consistent, --resume continues); any other error means some
// job failed, and the error lists them.
//
// A failure only a resume can repair (a threaded dump that failed after
// some of its sections were queued: its area must be truncated and loaded
// again from a new dump, which is what --resume plans) is resumed in
// place, within Config.Retries: the run ends its attempt, journals it, and
// starts again as `--resume` would, in the same invocation.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	c := &cfg
	c.fill()
	// The hosts' connections live as long as the invocation, not an
	// attempt: a resume in place (below) runs its next attempt over them
	// (closed after the first, it failed at once: "connection closed").
	defer c.closeHosts()
	began := time.Now()
	for attempt := 1; ; attempt++ {
		out, finish, err := runOnce(ctx, c)
		if out != nil {
			out.InPlace, out.Began = attempt-1, began
		}
		if why := resumableOnly(out, err); why != "" && attempt <= c.Retries && ctx.Err() == nil {
			msg := fmt.Sprintf("%s: resuming in place as --resume would (%d of %d)", why, attempt, c.Retries)
			c.Log.Warn(msg)
			c.Events.Emit(event.Event{V: event.SchemaVersion, Time: time.Now(), Kind: event.Warning, Message: msg})
			c.Resume, c.inPlace = true, true
			continue
		}
		if finish.Kind != "" {
			c.Events.Emit(finish)
		}
		return out, err
	}
}

// resumableOnly names the failures of an attempt when every one of them is
// for a resume to repair ("" otherwise, or when the attempt did not fail).
func resumableOnly(out *Result, err error) string {
	if err == nil || out == nil || out.Schedule == nil || len(out.Schedule.Failed) == 0 {
		return ""
	}
	var whys []string
	for id, jerr := range out.Schedule.Failed {
		var r resumableError
		if !errors.As(jerr, &r) {
			return ""
		}
		whys = append(whys, fmt.Sprintf("%s %s (%s)", id, r.why, r.next))
	}
	sort.Strings(whys)
	return strings.Join(whys, "; ")
}

// runOnce is one attempt: it returns the run_finished event for Run to
// emit once no attempt follows.
func runOnce(ctx context.Context, c *Config) (*Result, event.Event, error) {
	var none event.Event
	started := time.Now()
	if err := c.validate(); err != nil {
		return nil, none, err
	}
	if err := CheckWorkUnwritten(*c); err != nil {
		return nil, none, err
	}
	for _, d := range []string{c.Work, filepath.Join(c.Work, "logs"), filepath.Join(c.Work, "dump"), filepath.Join(c.Work, "sort")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, none, precondition("work directory: %v", err)
		}
	}
	unlock, err := lockWork(c.Work, "run")
	if err != nil {
		return nil, none, err
	}
	defer unlock()
	planJSON, err := json.MarshalIndent(c.Plan, "", "  ")
	if err != nil {
		return nil, none, err
	}
	sum := sha256.Sum256(planJSON)
	planHash := hex.EncodeToString(sum[:])

	jw, recs, err := journal.Open(filepath.Join(c.Work, journal.FileName))
	if err != nil {
		return nil, none, err
	}
	defer jw.Close()
	rp := journal.Replay(recs)
	resumed := false
	prep, err := readPrepared(c, planHash)
	if err != nil {
		return nil, none, err
	}
	if prep != nil && c.Hosts != nil {
		return nil, none, precondition("%s holds a target prepared on this machine: a run over a hosts file cannot keep it; use a new --work directory",
			c.work(journal.PrepareFileName))
	}
	switch {
	case !c.Resume && len(recs) > 0:
		return nil, none, precondition("%s already holds the journal of a run (%d records): continue it with --resume, or use a new --work directory",
			jw.Path(), len(recs))
	case c.Resume && len(recs) > 0:
		resumed = true
		if err := checkWorkDirsNoLink(c.Work); err != nil {
			return nil, none, err
		}
		if err := c.adoptSettings(rp, planHash); err != nil {
			return nil, none, err
		}
		if f, err := finishedRun(ctx, c, rp); f != nil || err != nil {
			return &Result{Resumed: true, Journal: jw.Path(), Finished: f}, none, err
		}
	}
	if !resumed {
		if err := checkWork(c.Work, planJSON, prep != nil); err != nil {
			return nil, none, err
		}
	}

	if err := c.prepareHosts(ctx); err != nil {
		return nil, none, err
	}
	r := &runner{cfg: c, servedByUs: servedByUs(recs), brokers: startedBrokers(recs), externallyServed: map[string]bool{}}
	defer r.releaseTarget()
	r.resumeKeepsTarget = resumed && (rp.IsDone(string(schedule.KindCreateTarget)) || keptPrepared(rp) != nil) && c.targetExists(ctx)
	r.recordWritten = journalWroteRecord(rp) || keptPrepared(rp) != nil // oedl prepare writes one too
	if resumed {
		r.lastStart = lastInvocationStart(rp)
		r.lastRecord, r.ownPIDs, r.unrecorded = lastRecordTime(recs), journalledPIDs(recs, c.onTargetMachine()), unrecordedAllowance(recs, len(c.serveSteps(schedule.DBTarget)))
		r.logSeen, r.logSeenAt = lastLogSeen(recs)
	}
	if !resumed && prep != nil {
		r.prepared, r.resumeKeepsTarget = prep, true
	}
	// A no-integrity run whose load failed or died: the target is beyond
	// crash recovery and is created again (noint.go).
	rebuildWhy := ""
	if resumed && r.resumeKeepsTarget {
		if rebuildWhy = noIntegrityDamage(c, rp); rebuildWhy != "" {
			r.resumeKeepsTarget, r.rebuild = false, true
		}
	}
	if resumed {
		r.dumpProven = func(table string) bool { ok, _ := rp.ProvenBy(schedule.DumpID(table), r.fileSize); return ok }
	}
	for id, j := range rp.Jobs {
		if j.State == journal.Started {
			r.unfinished = append(r.unfinished, id)
		}
	}
	sort.Strings(r.unfinished)
	if r.log, err = OpenWorkLog(c.logPath("run")); err != nil {
		return nil, none, err
	}
	defer r.log.Close()
	if resumed && c.fleet != nil {
		// The brokers of every host, then the utilities on the remote
		// ones; stopOrphans below stops those on this machine.
		if err := r.stopKilledRun(ctx); err != nil {
			return nil, none, err
		}
	}
	if resumed {
		if err := r.stopOrphans(ctx, rp); err != nil {
			return nil, none, err
		}
	}

	c.prepared = r.prepared != nil || (resumed && keptPrepared(rp) != nil)
	c.dumpsAfterCreate = !c.prepared && c.targetBesideSource()
	estCtx, cancelEst := context.WithCancel(ctx)
	defer cancelEst()
	own := c.estimateOwnGraph(estCtx) // beside the preflight
	preflight := r.preflight
	if c.fleet != nil {
		preflight = r.preflightHosts
	}
	summary, err := preflight(ctx, resumed)
	if err != nil {
		c.Log.Error("preflight failed", zapErr(err))
		return nil, none, err
	}
	c.Log.Info("preflight passed: " + summary)
	// The plan is copied once the preflight passed: a refused run leaves
	// nothing in the work directory that a corrected plan would clash with.
	if !resumed {
		if err := atomicfile.WriteFile(c.work(PlanFile), append(planJSON, '\n')); err != nil {
			return nil, none, err
		}
	}
	if err := r.writePostSteps(); err != nil {
		return nil, none, err
	}
	if err := writeABL(filepath.Join(c.Work, "abl")); err != nil {
		return nil, none, err
	}
	// dump_security.p writes into a directory it does not make (ABL's
	// OUTPUT TO opens files, not directories).
	for _, dir := range []string{SecurityDir, TargetSecurityDir} {
		if err := os.MkdirAll(c.work(dir), 0o755); err != nil {
			return nil, none, err
		}
	}
	if err := c.writeHostFiles(ctx, c.PlanDir); err != nil {
		return nil, none, err
	}

	built, err := schedule.Build(c.Plan, c.buildOptions())
	if err != nil {
		return nil, none, fmt.Errorf("plan: %w", err)
	}
	plan := &resumePlan{}
	var preparedAt *time.Time // the target is the preparation's: create-target is not the run's
	switch {
	case resumed:
		plan = r.planResume(built, rp)
		if err := r.checkSourceUnchanged(recs, built, plan); err != nil {
			return nil, none, err
		}
		if at := keptPrepared(rp); at != nil && plan.skip[string(schedule.KindCreateTarget)] {
			preparedAt = at
		}
	case r.prepared != nil:
		plan.skip = map[string]bool{string(schedule.KindCreateTarget): true}
		preparedAt = &r.prepared.at
	}
	if err := r.finishGraph(built, plan); err != nil {
		return nil, none, err
	}

	live, err := own.wait()
	if err != nil {
		c.Log.Warn("the estimate of the run: " + err.Error())
	}
	tracker, restoreEvents := c.startETA(live)
	defer restoreEvents()
	before := c.openingEstimate(ctx, live, plan, resumed)
	if c.NoIntegrity && !resumed {
		// The price of the default, said before the outage goes on
		// (noint.go): on the screen, in the journal and the report.
		r.warnings = append(r.warnings, own.failureLine())
	}

	e := newExecutor(c, built, jw, recs)
	e.preflightSummary = summary
	e.sourceTask = r.sourceTask
	e.proof = r.proof
	e.preparedAt = preparedAt
	for k, v := range r.externallyServed {
		e.externallyServed[k] = v
	}
	for area, n := range plan.repairNums {
		e.repairs[area] = max(e.repairs[area], n)
	}
	for id := range plan.skip {
		e.skipped[id] = true
	}
	state := "started"
	if resumed {
		state = fmt.Sprintf("resumed: %d job(s) already done, %d area(s) to repair", len(plan.skip), len(plan.repairNums))
	}
	oeVersion := openedge.Version(c.DLC)
	if r.openEdge != "" {
		oeVersion = r.openEdge // each host's (openEdgeOnHosts)
	}
	var keptAt *time.Time
	if r.prepared != nil {
		keptAt = &r.prepared.at
	}
	if err := e.record(journal.Record{Job: journal.RunJob, State: journal.Started, Message: state, Prepared: keptAt,
		Plan: planHash, PlanFiles: runPlanFiles(c), Source: c.Source, Target: c.Target, PlanDir: c.PlanDir, HostsFile: c.hostsFile(), HostsPlaces: c.hostsPlaces(), Calibration: absOr(c.CalibrationFile), Settings: c.settings(), PID: os.Getpid(), Warnings: r.warnings,
		OEDLVersion: c.Version, OpenEdgeVersion: oeVersion, Proc: ptr(sysproc.Self()), Estimate: before}); err != nil {
		return nil, none, err
	}
	c.Log.Info("run " + state)
	now := time.Now()
	since, invocation := now, 1
	for _, r := range rp.Runs {
		if r.State == journal.Started {
			if invocation == 1 {
				since = r.Time // the outage began with the first invocation
			}
			invocation++
		}
	}
	c.Events.Emit(event.Event{V: event.SchemaVersion, Time: now, Kind: event.RunStarted,
		TotalRecords: c.Plan.Totals.Records, TotalBytes: c.Plan.Totals.Bytes, Message: state,
		Since: since, Attempt: invocation, InPlace: c.inPlace, Settings: c.settings(), OEDLVersion: c.Version, OpenEdgeVersion: oeVersion, Estimate: before})
	if rebuildWhy != "" {
		rec := rebuildRecord(c, rebuildWhy)
		if err := e.record(rec); err != nil {
			return nil, none, err
		}
		c.Log.Warn(rec.Message + ": " + rebuildWhy)
		e.emitRebuild(rec)
	}
	for _, w := range r.warnings {
		c.Log.Warn(w)
		c.Events.Emit(event.Event{V: event.SchemaVersion, Time: time.Now(), Kind: event.Warning, Message: w})
	}

	stopETA := runETA(ctx, tracker)
	perArea, areaLoads := schedule.AreaLoadCaps(c.Plan, c.LoadsPerArea)
	opts := schedule.Options{
		Slots:        c.hostLayout().Slots(c.DumpJobs, c.LoadJobs),
		LoadsPerArea: perArea,
		AreaLoads:    areaLoads,
		Skip:         func(j *schedule.Job) bool { return plan.skip[j.ID] },
		Events:       e.dispatchSink(),
	}
	stopTune := func() {}
	if c.Tune {
		opts.Tuner = c.newTuner(e.emit)
		stopTune = e.tickEvery(tuneEvery)
	}
	res, err := schedule.Dispatch(ctx, built.Graph, e, opts)
	stopTune()
	stopETA()
	out := &Result{Schedule: res, Graph: built.Graph, Resumed: resumed, Skipped: len(plan.skip), Journal: jw.Path(), Verify: e.verified}
	out.Repairs = e.repairLog()
	if err == nil {
		err = res.Err()
	}
	if err != nil || ctx.Err() != nil {
		r.cleanup(e)
	}
	ev := event.Event{V: event.SchemaVersion, Kind: event.RunFinished, Elapsed: res.Elapsed(), Verify: verifySummary(e.verified)}
	finish := journal.Record{Job: journal.RunJob, State: journal.Done}
	switch {
	case ctx.Err() != nil:
		// "interrupted" is the journal's word for a cancelled run since
		// its first version (journal.Record.Interrupted reads it).
		finish.State, finish.Err, finish.Reason = journal.Failed, "interrupted", event.ReasonCancelled
		ev.Status, ev.Err, ev.Message = event.StatusInterrupted, "interrupted", interruptedSummary(res, built.Graph)
		err = fmt.Errorf("%w: %v", ctx.Err(), err)
	case err != nil:
		fe := &FailedError{Failed: e.failedJobs(res), Blocked: len(res.Blocked), Err: err, Work: c.Work, Resume: c.ResumeCommand()}
		finish.State, finish.Err = journal.Failed, fe.Summary()
		ev.Status, ev.Err, ev.Message = event.StatusFailed, fe.Summary(), fe.Summary()
		err = fe
	default:
		finish.Message = "verified"
		ev.Status, ev.Message = event.StatusVerified, "verified"
		if v := e.verified; v != nil {
			finish.Message = fmt.Sprintf("verified: %s tables, %s records", units.Thousands(int64(len(v.Rows))), units.Thousands(v.After.Records))
			ev.Message = finish.Message
		}
	}
	if jerr := e.record(finish); jerr != nil && err == nil {
		err = jerr
	}
	if serr := r.stampTarget(); serr != nil {
		c.Log.Warn("the target's record: " + serr.Error())
	}
	if ru, rerr := writeRusage(c, time.Since(started)); rerr == nil {
		out.Rusage = ru
		c.Log.Info("cpu", zap.Duration("self", ru.SelfUser+ru.SelfSys), zap.Duration("utilities", ru.ChildrenUser+ru.ChildrenSys),
			zap.Float64("self_share", ru.SelfCPUShare))
	}
	if rerr := writeReport(c); rerr != nil {
		c.Log.Warn("report: " + rerr.Error())
	}
	ev.Time = time.Now()
	return out, ev, err
}

// keptPrepared is when the preparation finished whose target the run's
// first invocation kept (nil when it created its own).
func keptPrepared(rp *journal.Replayed) *time.Time {
	if len(rp.Runs) == 0 {
		return nil
	}
	return rp.Runs[0].Prepared
}

// FailedError is a run that ended with failed jobs (exit 1).
type FailedError struct {
	Failed  []FailedJob // the jobs that failed for good, by stable ID
	Blocked int         // jobs not run because one they need failed
	Err     error
	Work    string
	Resume  string // the command that continues the run (Config.ResumeCommand)
}

// FailedJob is one job that failed for good: its last attempt.
type FailedJob struct {
	ID      string // stable job ID: "load:PUB.customer"
	Attempt int
	Err     string
	Log     string
}

// Summary is the failure in one line: "1 job failed (load:PUB.customer); 5
// not run because of it".
func (e *FailedError) Summary() string {
	if len(e.Failed) == 0 {
		return "the run failed: " + oneLineErr(e.Err)
	}
	ids := make([]string, len(e.Failed))
	for i, f := range e.Failed {
		ids[i] = f.ID
	}
	s := fmt.Sprintf("%s failed (%s)", plural(len(e.Failed), "job"), strings.Join(ids, ", "))
	if e.Blocked > 0 {
		s += fmt.Sprintf("; %s not run because of it", plural(e.Blocked, "job"))
	}
	return s
}

func (e *FailedError) Error() string {
	var b strings.Builder
	if len(e.Failed) == 0 {
		fmt.Fprintf(&b, "the run failed: %v", e.Err)
	} else {
		fmt.Fprintf(&b, "the run failed: %s:", e.Summary())
	}
	for _, f := range e.Failed {
		fmt.Fprintf(&b, "\n  %s", f.ID)
		if f.Attempt > 1 {
			fmt.Fprintf(&b, " (attempt %d)", f.Attempt)
		}
		fmt.Fprintf(&b, ": %s", f.Err)
		if f.Log != "" {
			fmt.Fprintf(&b, "\n    log: %s", f.Log)
		}
	}
	fmt.Fprintf(&b, "\nfix the cause, then continue with: %s", e.Resume)
	return b.String()
}
func (e *FailedError) Unwrap() error { return e.Err }

// failedJobs are the jobs of res that failed for good, with their last
// attempt, by stable ID.
func (e *Executor) failedJobs(res *schedule.Result) []FailedJob {
	if res == nil {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]FailedJob, 0, len(res.Failed))
	for id, err := range res.Failed {
		f := FailedJob{ID: event.StableID(id), Err: err.Error(), Log: e.cfg.logPath(id)}
		if ff, ok := e.fails[id]; ok {
			f.Attempt, f.Err = ff.attempt, ff.text
		}
		var r resumableError
		if errors.As(err, &r) {
			f.Err += "; on --resume " + r.next
		}
		out = append(out, f)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].ID < out[b].ID })
	return out
}

// interruptedSummary is a cancelled run in one line. A batch of loads
// counts as its tables, as the events tell it and the screen and the
// plain lines count it: the graph's count beside theirs read as two
// different interruptions (nu-trial10).
func interruptedSummary(res *schedule.Result, g *schedule.Graph) string {
	if res == nil {
		return "interrupted"
	}
	jobs := func(id string) int {
		if j := g.Job(id); j != nil && j.Kind == schedule.KindLoadBatch && len(j.Members) > 0 {
			return len(j.Members)
		}
		return 1
	}
	stopped, unstarted := 0, 0
	for id, err := range res.Failed {
		if errors.Is(err, context.Canceled) {
			stopped += jobs(id)
		}
	}
	for _, id := range res.Cancelled {
		unstarted += jobs(id)
	}
	return fmt.Sprintf("interrupted: %s stopped, %s not started; the journal is consistent and --resume continues",
		plural(stopped, "running job"), plural(unstarted, "job"))
}

// verifySummary is the verification for run_finished (nil when it did not run).
func verifySummary(v *verify.Result) *event.VerifySummary {
	if v == nil {
		return nil
	}
	return &event.VerifySummary{OK: v.OK, Tables: len(v.Rows), Mismatched: len(v.Bad),
		RecordsBefore: v.Before.Records, RecordsAfter: v.After.Records,
		ChecksumBefore: v.Before.Checksum, ChecksumAfter: v.After.Checksum}
}

// plural is "1 job", "3 jobs", with thousands separators.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return units.Thousands(int64(n)) + " " + noun + "s"
}

func oneLineErr(err error) string {
	if err == nil {
		return ""
	}
	return strings.ReplaceAll(err.Error(), "\n", "; ")
}

// cleanup stops the brokers this run started, so that a resume (or the
// DBA) finds the databases free. It runs on a fresh context: the run's may
// be cancelled already.
func (r *runner) cleanup(e *Executor) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, which := range r.cfg.databases() {
		if e.isExternallyServed(which) || !r.cfg.served(which) {
			continue
		}
		h, _, err := r.holder(ctx, which)
		if err == nil && h == holderMulti {
			// Only this run's own broker is stopped: not the DBA's, not
			// another oedl run's, nor one whose mark cannot be read or
			// listed (safety trial 13).
			if ours, err := r.cfg.servesOurs(ctx, which, r.logWriter()); err != nil || !ours {
				r.cfg.Log.Warn(fmt.Sprintf("after the failure: %s is served by a broker this run cannot prove it started: left running", r.cfg.db(which)))
				continue
			}
			if err := r.call(ctx, r.cfg.shutdownStep(which)); err != nil {
				r.cfg.Log.Warn("shutdown after failure: " + err.Error())
			}
		}
	}
}

// servedByUs reports, per database, whether the journal's last serve was
// not followed by a completed shutdown: a killed run left its broker up. A
// serve that started counts even without its "done": the kill may have
// come between proserve starting the broker and the record.
func servedByUs(recs []journal.Record) map[string]bool {
	out := map[string]bool{}
	for _, r := range recs {
		if db, ok := strings.CutPrefix(r.Job, schedule.ServeID("")); ok && (r.State == journal.Started || r.State == journal.Done) {
			out[db] = true
		}
		if db, ok := strings.CutPrefix(r.Job, schedule.ShutdownID("")); ok && r.State == journal.Done {
			out[db] = false
		}
	}
	return out
}

// settings shape the graph; a resume takes them from the journal.
func (c *Config) settings() map[string]int64 {
	build := int64(0)
	if c.BuildIndexes {
		build = 1
	}
	return map[string]int64{"dump_jobs": int64(c.DumpJobs), "load_jobs": int64(c.LoadJobs),
		"loads_per_area": int64(c.LoadsPerArea), "threaded_dump_min": c.ThreadedDumpMin, "dump_threads": int64(c.DumpThreads),
		"build_indexes": build, "batch_loads": boolSetting(c.BatchLoads), "no_integrity": boolSetting(c.NoIntegrity),
		"tune_target": boolSetting(c.TuneTarget), "tune": boolSetting(c.Tune), "dumps_after_create": boolSetting(c.dumpsAfterCreate)}
}

func boolSetting(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func (c *Config) adoptSettings(rp *journal.Replayed, planHash string) error {
	if len(rp.Runs) == 0 {
		return nil
	}
	first := rp.Runs[0]
	if err := otherInputs(c.work(journal.FileName), "run", first.Plan, planHash, first.Source, c.Source, first.Target, c.Target); err != nil {
		return err
	}
	if err := planFilesChanged(c, first.PlanFiles); err != nil {
		return err
	}
	if err := hostsPlacesChanged(c, first); err != nil {
		return err
	}
	if s := first.Settings; s != nil {
		c.DumpJobs, c.LoadJobs = int(s["dump_jobs"]), int(s["load_jobs"])
		c.LoadsPerArea, c.ThreadedDumpMin, c.DumpThreads = int(s["loads_per_area"]), s["threaded_dump_min"], int(s["dump_threads"])
		c.BuildIndexes = s["build_indexes"] == 1
		c.BatchLoads = s["batch_loads"] == 1
		c.TuneTarget = s["tune_target"] == 1
		c.Tune = s["tune"] == 1
	}
	// A journal from before -i was the default, with no such setting or
	// none at all, was begun crash-safe: it resumes so, whatever today's
	// default (with -i, its dirty areas would rebuild the whole target
	// where truncating them suffices).
	c.NoIntegrity = first.Settings["no_integrity"] == 1
	return nil
}

// otherInputs refuses a command that names another --plan, --source or
// --target than the journal at path was begun with (an empty journalled
// value: an older journal that did not record it). It is bad usage, exit
// 2, not a precondition: nothing on the machine is to be changed, the
// command line is, and the same command would be refused for ever
// (docs/decisions.md "A resume that names other inputs").
func otherInputs(path, what, plan, givenPlan, source, givenSource, target, givenTarget string) error {
	var diff []string
	if plan != "" && plan != givenPlan {
		diff = append(diff, "another --plan (its plan.json differs from the one the "+what+" began with)")
	}
	if source != "" && source != givenSource {
		diff = append(diff, fmt.Sprintf("--source %s, not %s", givenSource, source))
	}
	if target != "" && target != givenTarget {
		diff = append(diff, fmt.Sprintf("--target %s, not %s", givenTarget, target))
	}
	if len(diff) == 0 {
		return nil
	}
	return &UsageError{Err: fmt.Errorf("%s holds a %s of other inputs: this command gives %s; give the --plan, --source and --target it began with to continue it, or a new --work directory for these",
		path, what, strings.Join(diff, ", "))}
}

// dispatchSink passes the dispatcher's events on under stable job IDs,
// with what only the executor knows: the attempt, a done job's records
// and bytes, why a job failed (or that it was cancelled), the truth about
// loads handed to a repair (the dispatcher counts them finished), why a
// job queued again runs again, and the phase the run enters.
func (e *Executor) dispatchSink() event.Sink {
	return event.SinkFunc(func(ev event.Event) {
		id := ev.Job
		switch ev.Kind {
		case event.JobStarted:
			e.enterPhase(ev)
			ev.Attempt, ev.Reason = e.attempt(id), e.startReason(id)
		case event.JobQueued:
			e.mu.Lock()
			why, ok := e.again[id]
			e.mu.Unlock()
			if ok {
				ev.Kind, ev.Attempt, ev.Message = event.JobRetry, e.attempt(id), why
			}
		case event.JobSkipped:
			if id == string(schedule.KindCreateTarget) && e.preparedAt != nil {
				ev.Message = "prepared by oedl prepare at " + e.preparedAt.Local().Format("2006-01-02 15:04:05") + ", before the window"
			}
		case event.JobFinished:
			e.mu.Lock()
			_, superseded := e.superseded[id]
			final := e.finals[id]
			e.mu.Unlock()
			if superseded {
				return // its job_failed went out when its repair was decided (repairAfter)
			}
			ev.Attempt, ev.Elapsed = final.Attempt, final.Elapsed
			ev.Records = final.Records
			ev.Bytes = final.Bytes
			for _, f := range final.Files {
				ev.Bytes += f.Size
			}
		case event.JobFailed:
			e.mu.Lock()
			f, ok := e.fails[id]
			e.mu.Unlock()
			if ok {
				f.toEvent(&ev)
			} else {
				ev.Reason = event.ReasonError
			}
			ev.Log = e.cfg.logPath(id)
		}
		ev.Job = event.StableID(id)
		if ev.JobKind == string(schedule.KindLoadBatch) {
			e.emitMembers(id, ev)
			return
		}
		e.sink.Emit(ev)
	})
}

// emitMembers sends an event of load batch id as the event of each of its
// tables' loads: attempts and a done table's figures are the table's own.
func (e *Executor) emitMembers(id string, ev event.Event) {
	j := e.built.Job(id)
	if j == nil {
		e.sink.Emit(ev)
		return
	}
	for _, me := range memberEvents(j, ev) {
		switch me.Kind {
		case event.JobStarted, event.JobQueued, event.JobSkipped:
			me.Attempt = e.attempt(me.Job)
			if me.Kind == event.JobStarted {
				me.Reason = e.startReason(me.Job)
			}
		case event.JobFinished:
			e.mu.Lock()
			final := e.finals[me.Job]
			e.mu.Unlock()
			me.Attempt, me.Records, me.Bytes = final.Attempt, final.Records, final.Bytes
		case event.JobFailed, event.JobCancelled:
			e.mu.Lock()
			notRun := e.notRun[id]
			e.mu.Unlock()
			if me.Attempt = e.starts1(me.Job); notRun {
				me.Attempt = e.attempt(me.Job) // as its job_started said: it journalled no start
			}
		}
		e.sink.Emit(me)
	}
}

// enterPhase sends a phase event when a job of a later phase than the
// run's starts (schedule.PhaseOf). Called from the dispatcher's goroutine.
func (e *Executor) enterPhase(started event.Event) {
	p := schedule.PhaseOf(schedule.Kind(started.JobKind))
	if p == "" || p.Rank() <= e.phase.Rank() {
		return
	}
	e.phase = p
	e.sink.Emit(event.Event{V: event.SchemaVersion, Time: started.Time, Kind: event.Phase, Phase: string(p)})
}

func (e *Executor) repairLog() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, r := range e.recs[e.firstRec:] {
		switch {
		case r.State == journal.Repair && r.Area == "":
			out = append(out, r.Job+": "+r.Message) // the target's, not an area's (noint.go)
		case r.State == journal.Repair:
			out = append(out, r.Area+": "+r.Message)
		}
	}
	return out
}

func ptr[T any](v T) *T { return &v }

func zapErr(err error) zap.Field { return zap.Error(err) }

// writeReport renders report.md and report.html from the work directory
// (journal, plan, verify.json): the same report `oedl report` rebuilds
// later, so the two cannot differ.
func writeReport(c *Config) error {
	d, err := report.FromWork(c.Work)
	if err != nil {
		return err
	}
	d.WithHosts(c.Hosts)
	return report.Write(c.Work, d)
}
