package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/schedule"
	"github.com/oedl/oedl/internal/verify"
)

// Executor runs the jobs of the graph with real utilities, for
// schedule.Dispatch. Every state change goes to the journal (fsynced)
// before the dispatcher hears of it, so a dependent job never starts on an
// outcome the journal does not hold.
type Executor struct {
	cfg   *Config
	built *schedule.Built
	jw    *journal.Writer
	sink  event.Sink

	outcomes chan schedule.Outcome
	wake     chan struct{} // the tuner's interval passed (tickEvery)

	mu   sync.Mutex
	recs []journal.Record // everything in the journal, this run and earlier ones
	// Indexes over recs, kept as records are appended (indexRecord), so
	// that a job's lookups do not scan the whole journal: a run of 20,000
	// tables journals about 100,000 records, and a scan per job made the
	// moves, the loads of moved dumps and the repairs quadratic.
	latestDone map[doneKey]int // index in recs of the latest done record of (kind, table, section)
	doneHere   map[string]bool // jobs with a done record in this invocation
	// stopped: jobs (stable IDs) whose latest end is a cancel, an attempt
	// the interrupt stopped: a resume's run of one says so (job_started's
	// reason), it is no repair's.
	stopped    map[string]bool
	placements map[string]*plan.Placement // the plan's lines by table
	// targetDamaged: a load of a no-integrity run failed in this attempt
	// (noint.go); the target is rebuilt on the resume.
	targetDamaged bool
	notRun        map[string]bool // jobs ended before they ran, on the damaged target
	started       map[string]bool // jobs the dispatcher started in this invocation
	// superseded are loads that failed and were handed to a repair: the
	// dispatcher counts them finished (the repair and the reloads carry the
	// work on), the events say what really happened.
	superseded map[string]failure
	repairs    map[string]int // repairs of each area queued, over every invocation (names repair jobs)
	// repairsThisRun bounds the repairs of an area in this invocation.
	repairsThisRun map[string]int
	repairQueued   map[string]bool // a repair of the area is queued and has not run
	reloads        int
	// loadJobs are the IDs of the graph's jobs loading each table/section.
	loadJobs map[journal.LoadKey][]string
	// redumps are the new dumps of tables whose load failed, by table.
	redumps map[string]string
	// externallyServed: a database someone else serves; oedl neither
	// starts nor stops its broker.
	externallyServed map[string]bool
	// badDumps are the threaded tables a section of which could not be
	// loaded: their dump is not to be trusted any more (sectionFailed).
	badDumps map[string]bool
	// batchStarted: load batches whose tables' loads were journalled as
	// started in this invocation.
	batchStarted map[string]bool
	// gates count the calls connected to each database (userlimit.go;
	// made on first use).
	gates map[string]*connGate

	crashAt int // test hook: SIGKILL ourselves after this many records
	written int

	starts map[string]int // "started" records per stable job ID (event.StableID), over every invocation
	// What the events tell about jobs, by graph ID, set before the
	// outcome reaches the dispatcher: the figures of a done job, the last
	// failure of a failed one, why a job queued again runs again.
	finals           map[string]journal.Record
	fails            map[string]failure
	again            map[string]string
	phase            schedule.Phase  // the latest phase entered (dispatcher goroutine only)
	runInfo          event.Event     // run_started, for the run's settings and versions
	firstRec         int             // index in recs of this invocation's first record
	skipped          map[string]bool // jobs done by an earlier invocation
	preflightSummary string
	sourceTask       *int64       // the source's last transaction id, read by the preflight
	proof            *targetProof // the preflight's proof of the target's files
	preparedAt       *time.Time   // the target is one oedl prepare made then: create-target is skipped
	verified         *verify.Result
}

func newExecutor(cfg *Config, built *schedule.Built, jw *journal.Writer, recs []journal.Record) *Executor {
	e := &Executor{
		cfg: cfg, built: built, jw: jw, sink: cfg.Events,
		outcomes:         make(chan schedule.Outcome, 64),
		wake:             make(chan struct{}, 1),
		recs:             recs,
		starts:           map[string]int{},
		firstRec:         len(recs),
		skipped:          map[string]bool{},
		started:          map[string]bool{},
		superseded:       map[string]failure{},
		repairs:          map[string]int{},
		repairsThisRun:   map[string]int{},
		repairQueued:     map[string]bool{},
		notRun:           map[string]bool{},
		loadJobs:         map[journal.LoadKey][]string{},
		redumps:          map[string]string{},
		externallyServed: map[string]bool{},
		finals:           map[string]journal.Record{},
		fails:            map[string]failure{},
		again:            map[string]string{},
		badDumps:         map[string]bool{},
		batchStarted:     map[string]bool{},
		latestDone:       map[doneKey]int{},
		doneHere:         map[string]bool{},
		stopped:          map[string]bool{},
		placements:       map[string]*plan.Placement{},
	}
	for i := range recs {
		e.indexRecord(i)
	}
	if cfg.Plan != nil {
		for i := range cfg.Plan.Tables {
			t := &cfg.Plan.Tables[i]
			if _, dup := e.placements[t.Table]; !dup { // the first line, as a scan finds it
				e.placements[t.Table] = t
			}
		}
	}
	for _, j := range built.Jobs() {
		if j.Kind == schedule.KindLoad {
			k := journal.LoadKey{Table: j.Table, Section: j.Section}
			e.loadJobs[k] = append(e.loadJobs[k], j.ID)
		}
		for _, m := range j.Members {
			k := journal.LoadKey{Table: m.Table}
			e.loadJobs[k] = append(e.loadJobs[k], j.ID)
		}
	}
	for a, n := range journal.Replay(recs).Repairs {
		e.repairs[a] = n
	}
	for _, r := range recs {
		if r.State == journal.Started {
			e.starts[event.StableID(r.Job)]++
		}
	}
	if n, err := strconv.Atoi(os.Getenv("OEDL_TEST_CRASH_AT")); err == nil {
		e.crashAt = n
	}
	return e
}

// Now is the wall clock.
func (e *Executor) Now() time.Time { return time.Now() }

// Next waits for the next outcome of a running job, or for the tuner's
// interval (an empty outcome: the dispatcher then asks it for the limits).
func (e *Executor) Next() schedule.Outcome {
	select {
	case o := <-e.outcomes:
		return o
	case <-e.wake:
		return schedule.Outcome{}
	}
}

// Start journals the start of j and runs it in its own goroutine.
func (e *Executor) Start(ctx context.Context, j *schedule.Job) {
	e.mu.Lock()
	e.started[j.ID] = true
	e.mu.Unlock()
	attempt := e.attempt(j.ID)
	if err := e.record(journal.Record{Job: j.ID, Kind: string(j.Kind), State: journal.Started, Host: j.Host,
		Table: j.Table, Area: j.Area, Section: j.Section, Attempt: attempt}); err != nil {
		go func() { e.outcomes <- schedule.Outcome{Job: j, Done: true, Err: err} }()
		return
	}
	go func() {
		out := e.run(ctx, j, attempt)
		out.Job, out.Done = j, true
		e.outcomes <- out
	}()
}

// attempt is the number of the next attempt of a job, over every
// invocation (the journal remembers earlier ones) and every graph job
// doing the same work (a reload is the next attempt of its load).
func (e *Executor) attempt(id string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.starts[event.StableID(id)] + 1
}

// startReason is job_started's reason: ReasonCancelled when the job's
// latest attempt was stopped by the interrupt (a resume runs it again),
// "" otherwise.
func (e *Executor) startReason(id string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stopped[event.StableID(id)] {
		return event.ReasonCancelled
	}
	return ""
}

// record appends to the journal and keeps a copy for in-run decisions
// (which loads a repair must redo).
func (e *Executor) record(r journal.Record) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.jw.Append(r); err != nil {
		return err
	}
	// Append filled Seq and Time in its copy; ours only needs the order.
	e.recs = append(e.recs, r)
	e.indexRecord(len(e.recs) - 1)
	if r.State == journal.Started {
		e.starts[event.StableID(r.Job)]++
	}
	e.written++
	if e.crashAt > 0 && e.written >= e.crashAt {
		// Test hook (OEDL_TEST_CRASH_AT): die like kill -9 right after
		// record N, with utilities possibly still running. Under the lock,
		// so that no other worker can append record N+1 while the signal
		// is on its way: the test checks the journal holds exactly N.
		crashHook()
	}
	return nil
}

// emit publishes an event of the executor's own (progress, retries,
// warnings) under the job's stable ID.
func (e *Executor) emit(ev event.Event) {
	ev.Job = event.StableID(ev.Job)
	e.sink.Emit(ev)
}

// run does j's work with bounded, visible retries, and journals the end.
// A retried attempt is told as it happened: job_failed (retrying), then
// job_retry, then job_started of the next attempt.
func (e *Executor) run(ctx context.Context, j *schedule.Job, attempt int) schedule.Outcome {
	if out, ok := e.onDamagedTarget(j, attempt, nil); ok {
		return out
	}
	for try := 1; ; try++ {
		start := time.Now()
		out, rec, err := e.do(ctx, j, attempt)
		rec.Job, rec.Kind, rec.Table, rec.Area, rec.Section, rec.Attempt, rec.Host =
			j.ID, string(j.Kind), j.Table, j.Area, j.Section, attempt, j.Host
		rec.Elapsed = time.Since(start)
		rec.Log = e.cfg.logPath(j.ID)
		if err == nil {
			rec.State = journal.Done
			rec.Frozen = j.Kind == schedule.KindAnalyzeSource && !e.isExternallyServed(schedule.DBSource)
			if opensTarget(j) {
				rec.TargetLog = e.cfg.targetLogSeen(ctx)
			}
			if jerr := e.record(rec); jerr != nil {
				out.Err = jerr
				e.noteFailure(j.ID, failure{reason: event.ReasonError, text: jerr.Error(), attempt: attempt})
				return out
			}
			e.mu.Lock()
			e.finals[j.ID] = rec
			e.mu.Unlock()
			return out
		}
		if ctx.Err() == nil && retryable(j.Kind) && !isPermanent(err) {
			if why := e.brokerGone(ctx, j); why != "" {
				err = refusedError{fmt.Errorf("%s: %w", why, err)}
			}
		}
		f := classify(ctx, err)
		f.attempt, f.elapsed = attempt, rec.Elapsed
		rec.State = journal.Failed
		f.toRecord(&rec)
		if jerr := e.record(rec); jerr != nil {
			e.noteFailure(j.ID, f.unjournalled(jerr))
			return schedule.Outcome{Err: errors.Join(err, jerr)}
		}
		if j.Kind == schedule.KindLoadBatch {
			if jerr := e.membersFailed(j, f); jerr != nil {
				e.noteFailure(j.ID, f.unjournalled(jerr))
				return schedule.Outcome{Err: errors.Join(err, jerr)}
			}
		}
		if f.reason == event.ReasonCancelled {
			e.noteFailure(j.ID, f)
			return schedule.Outcome{Err: err}
		}
		// A full disk is said as such (diskFilled), even when the broker
		// went with it (a before-image that cannot grow stops it).
		if f.reason != event.ReasonDiskFull {
			if why := e.targetBrokerGone(ctx, j); why != "" {
				e.noteFailure(j.ID, f)
				return schedule.Outcome{Err: resumableError{err, why, targetBrokerGoneNext}}
			}
		}
		if e.cfg.NoIntegrity && j.Section == 0 && (j.Kind == schedule.KindLoad || j.Kind == schedule.KindLoadBatch) {
			return e.rebuildAfter(j, err, f)
		}
		if j.Kind == schedule.KindLoad && j.Section > 0 {
			if e.cfg.NoIntegrity {
				e.markTargetDamaged() // the resume rebuilds: nothing more goes into it
			}
			return e.sectionFailed(j, err, f)
		}
		if f.reason == event.ReasonDiskFull {
			return e.diskFilled(j, err, f)
		}
		if j.Kind == schedule.KindLoad || j.Kind == schedule.KindLoadBatch {
			if serr := e.stopEarlierAttempts(ctx, j); serr != nil {
				err = fmt.Errorf("%w; %w", err, serr)
				f.text = err.Error()
				e.noteFailure(j.ID, f)
				return schedule.Outcome{Err: err}
			}
			return e.repairAfter(j, err, f)
		}
		if out, ok := e.onDamagedTarget(j, attempt, err); ok {
			return out
		}
		f.retrying = retryable(j.Kind) && try <= e.cfg.Retries && !isPermanent(err)
		if n := refusalOf(err); n != 0 && retryable(j.Kind) && try <= e.cfg.Retries {
			f.text += fmt.Sprintf(" (not tried again: its message (%d) says every attempt ends so)", n)
		}
		if f.retrying {
			if serr := e.stopEarlierAttempts(ctx, j); serr != nil {
				err = fmt.Errorf("%w; %w", err, serr)
				f.text, f.retrying = err.Error(), false
			}
		}
		e.noteFailure(j.ID, f)
		if !f.retrying {
			return schedule.Outcome{Err: err}
		}
		e.emitFailed(j, f)
		// A short pause, growing with each try: the usual transient cause
		// is a database another utility is just letting go of.
		select {
		case <-ctx.Done():
			e.noteFailure(j.ID, failure{reason: event.ReasonCancelled, text: "stopped: the run was interrupted", attempt: attempt})
			return schedule.Outcome{Err: ctx.Err()}
		case <-time.After(time.Duration(try) * retryPause):
		}
		attempt++
		e.emit(event.Event{Kind: event.JobRetry, Job: j.ID, JobKind: string(j.Kind), Table: j.Table, Area: j.Area, Host: j.Host,
			Attempt: attempt, Log: rec.Log, Message: fmt.Sprintf("attempt %d of %d", try+1, e.cfg.Retries+1)})
		if jerr := e.record(journal.Record{Job: j.ID, Kind: string(j.Kind), State: journal.Started, Host: j.Host,
			Table: j.Table, Area: j.Area, Section: j.Section, Attempt: attempt}); jerr != nil {
			return schedule.Outcome{Err: jerr}
		}
		e.emit(event.Event{Kind: event.JobStarted, Job: j.ID, JobKind: string(j.Kind), Table: j.Table, Area: j.Area, Host: j.Host,
			Attempt: attempt, TotalRecords: j.Records, TotalBytes: j.Bytes})
	}
}

// emitFailed sends the job_failed of an attempt that the executor handles
// itself (a retry, a repair), before what follows from it.
func (e *Executor) emitFailed(j *schedule.Job, f failure) {
	ev := event.Event{Job: j.ID, JobKind: string(j.Kind), Table: j.Table, Area: j.Area, Host: j.Host,
		Log: e.cfg.logPath(j.ID), TotalRecords: j.Records, TotalBytes: j.Bytes}
	f.toEvent(&ev)
	if j.Kind == schedule.KindLoadBatch {
		for _, me := range memberEvents(j, ev) {
			e.emit(me)
		}
		return
	}
	e.emit(ev)
}

// noteFailure keeps the last failure of a job for the dispatcher's
// job_failed event.
func (e *Executor) noteFailure(id string, f failure) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.fails[id] = f
}

// retryPause is the pause before the first retry of a job (doubled for
// the second, and so on).
const retryPause = 500 * time.Millisecond

// retryable kinds can simply run again: they overwrite what a failed
// attempt left. A load cannot (records may be half in); it is repaired.
func retryable(k schedule.Kind) bool {
	switch k {
	case schedule.KindPreflight, schedule.KindVerify, schedule.KindLoad, schedule.KindLoadBatch:
		return false
	}
	return true
}

// do runs one attempt of j and returns its outcome and the proof to
// journal.
func (e *Executor) do(ctx context.Context, j *schedule.Job, attempt int) (schedule.Outcome, journal.Record, error) {
	log, err := e.openLog(j.ID, attempt)
	if err != nil {
		return schedule.Outcome{}, journal.Record{}, err
	}
	defer log.Close()
	switch j.Kind {
	case schedule.KindPreflight:
		rec, err := e.preflightJob()
		return schedule.Outcome{}, rec, err
	case schedule.KindVerify:
		rec, err := e.verifyJob(log)
		return schedule.Outcome{}, rec, err
	case schedule.KindDump:
		return e.dumpJob(ctx, j, log)
	case schedule.KindLoad:
		rec, err := e.loadJob(ctx, j, log)
		return schedule.Outcome{}, rec, err
	case schedule.KindLoadBatch:
		rec, err := e.loadBatchJob(ctx, j, log)
		return schedule.Outcome{}, rec, err
	case schedule.KindRepair:
		return e.repairJob(ctx, j, log)
	case schedule.KindServe:
		rec, err := e.serveJob(ctx, j, log)
		return schedule.Outcome{}, rec, err
	case schedule.KindShutdown:
		rec, err := e.shutdownJob(ctx, j, log)
		return schedule.Outcome{}, rec, err
	case schedule.KindIdxbuild:
		rec, err := e.idxbuildJob(ctx, j, log)
		return schedule.Outcome{}, rec, err
	case schedule.KindCreateTarget:
		rec, err := e.createTargetJob(ctx, j, log)
		return schedule.Outcome{}, rec, err
	case schedule.KindMove:
		rec, err := e.moveJob(ctx, j, log)
		return schedule.Outcome{}, rec, err
	case schedule.KindProveReplica:
		rec, err := e.proveReplicaJob(strings.TrimPrefix(j.DB, "replica:"), log)
		return schedule.Outcome{}, rec, err
	}
	if err := e.pushInputs(ctx, j); err != nil {
		return schedule.Outcome{}, journal.Record{}, err
	}
	if err := e.clearOutputs(ctx, j); err != nil {
		return schedule.Outcome{}, journal.Record{}, err
	}
	rec, err := e.runSteps(ctx, j, e.cfg.steps(j, nil), log)
	return schedule.Outcome{}, rec, err
}

// runSteps runs the calls of a job in order and proves the files it
// saved.
func (e *Executor) runSteps(ctx context.Context, j *schedule.Job, steps []step, log *os.File) (journal.Record, error) {
	var rec journal.Record
	for i := 0; i < len(steps); i++ {
		s := steps[i]
		if s.speedOnly {
			k := i + 1
			for k < len(steps) && steps[k].speedOnly {
				k++
			}
			if err := e.runHelpers(ctx, j, steps[i:k], log); err != nil {
				return rec, err
			}
			i = k - 1
			continue
		}
		if _, err := e.runStep(ctx, j.ID, s, e.cfg.timeout(j), log, nil); err != nil {
			return rec, err
		}
		if s.save != "" {
			if f, err := proof(s.save); err == nil {
				rec.Files = append(rec.Files, f)
			}
		}
	}
	if err := e.fetchOutputs(ctx, j); err != nil {
		return rec, err
	}
	for _, f := range producedFiles(e.cfg, j) {
		pf, err := proof(f)
		if err != nil {
			return rec, fmt.Errorf("%s reported success but did not write %s: %w", j.ID, f, err)
		}
		rec.Files = append(rec.Files, pf)
	}
	return rec, nil
}

// clearOutputs removes the names of the files job j's utility writes in
// the work directory, an earlier attempt's: dump_df.p, dump_seqvals.p and
// dump_security.p open their output as ABL's OUTPUT TO does, truncating
// whatever the name leads to: through a symbolic link, or into a file
// with a second name, they would write into a database's extent (a
// resume's work directory is not checked again; safety trial 7). Only a
// name goes: what it led to stays as it was, and a directory there is
// refused, not emptied.
func (e *Executor) clearOutputs(ctx context.Context, j *schedule.Job) error {
	m := e.cfg.machine(j.Host)
	for _, name := range producedNames(j) {
		p := e.cfg.at(j.Host).work(name)
		if err := m.fs.RemoveFile(ctx, p); err != nil {
			return fmt.Errorf("%s: the earlier output's name is removed before %s writes it again: %w", p, j.ID, err)
		}
	}
	return nil
}

// producedFiles are the outputs (besides saved console output) that prove
// a job on resume.
func producedFiles(c *Config, j *schedule.Job) []string {
	var out []string
	for _, n := range producedNames(j) {
		out = append(out, c.work(n))
	}
	return out
}

// producedNames are the files of the work directory a job writes.
func producedNames(j *schedule.Job) []string {
	switch j.Kind {
	case schedule.KindDumpDF:
		return []string{SourceDF}
	case schedule.KindDumpSeq:
		return []string{SequenceValues}
	case schedule.KindLoadSeq:
		return []string{TargetSequenceValues}
	case schedule.KindDumpSecurity:
		return securityFiles(SecurityDir)
	case schedule.KindLoadSecurity:
		return securityFiles(TargetSecurityDir)
	}
	return nil
}

func proof(path string) (journal.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return journal.File{}, err
	}
	return journal.File{Path: path, Size: st.Size()}, nil
}

func (e *Executor) isExternallyServed(db string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.externallyServed[db]
}

// placement is the plan's line for table, or nil.
func (e *Executor) placement(table string) *plan.Placement { return e.placements[table] }

// doneKey names a job's work for latestDone: its kind, table and section
// (anySection: whatever the section).
type doneKey struct {
	kind, table string
	section     int
}

const anySection = -1

// indexRecord adds e.recs[i] to the indexes over recs. Callers hold e.mu
// (or own e, in newExecutor).
func (e *Executor) indexRecord(i int) {
	r := &e.recs[i]
	if r.Job != journal.RunJob && (r.State == journal.Done || r.State == journal.Failed) {
		e.stopped[event.StableID(r.Job)] = r.Interrupted()
	}
	if r.State != journal.Done {
		return
	}
	e.latestDone[doneKey{r.Kind, r.Table, r.Section}] = i
	e.latestDone[doneKey{r.Kind, r.Table, anySection}] = i
	if i >= e.firstRec {
		e.doneHere[r.Job] = true
	}
}

// latestDoneRecord is the latest done record of kind for table (and
// section, or anySection), or nil. Callers hold e.mu.
func (e *Executor) latestDoneRecord(kind schedule.Kind, table string, section int) *journal.Record {
	if i, ok := e.latestDone[doneKey{string(kind), table, section}]; ok {
		return &e.recs[i]
	}
	return nil
}

// securityFiles are the three files of a security directory, relative to
// the work directory.
func securityFiles(dir string) []string {
	return []string{filepath.Join(dir, openedge.UsersFile), filepath.Join(dir, openedge.GrantsFile), filepath.Join(dir, openedge.ViewsFile)}
}
