package run

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/oedl/oedl/internal/atomicfile"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/manifest"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/schedule"
	"github.com/oedl/oedl/internal/sysproc"
)

// PreparedAnalysisJob is the job of the preparation that takes the new
// target's tabanalys (saved as PreparedAnalysis): the check that the .df
// made every planned table and that nothing is in them.
const PreparedAnalysisJob = "analyze-prepared"

// Prepared is what `oedl prepare` did.
type Prepared struct {
	At      time.Time     // when the preparation finished
	Elapsed time.Duration // this invocation's
	// Already: an earlier invocation had finished it; this one proved the
	// target untouched and did nothing.
	Already bool
	Tables  int
	Files   int
	Journal string
}

// Prepare creates the target ahead of the outage (`oedl prepare`): the
// same preflight proofs as the run's for the target's files, then
// create-target (prostrct create with its fixed extents formatted, procopy
// of the empty database, load_df.p of target.df) and the target's
// tabanalys, journalled in WORK/prepare.jsonl. The source is only listed
// (prostrct list, which works online): users may be on it for hours yet.
//
// Prepared again, it continues what the journal holds: a create-target
// that never ended creates again over its own files, a finished
// preparation is proven untouched and left as it is.
func Prepare(ctx context.Context, cfg Config) (*Prepared, error) {
	c := &cfg
	c.fill()
	started := time.Now()
	if err := c.validate(); err != nil {
		return nil, err
	}
	if c.Hosts != nil {
		return nil, &UsageError{Err: errors.New("oedl prepare makes the target on this machine: a hosts file is not supported by it yet")}
	}
	for _, d := range []string{c.Work, filepath.Join(c.Work, "logs")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, precondition("work directory: %v", err)
		}
	}
	unlock, err := lockWork(c.Work, "prepare")
	if err != nil {
		return nil, err
	}
	defer unlock()
	planJSON, err := json.MarshalIndent(c.Plan, "", "  ")
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(planJSON)
	planHash := hex.EncodeToString(sum[:])
	switch runRecs, err := journal.Read(c.work(journal.FileName)); {
	case err == nil && len(runRecs) > 0:
		return nil, precondition("%s holds the journal of a run (%d records): the preparation comes before the run, and the run owns the target now (continue it with oedl run --resume)",
			c.work(journal.FileName), len(runRecs))
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	jw, recs, err := journal.Open(c.work(journal.PrepareFileName))
	if err != nil {
		return nil, err
	}
	defer jw.Close()
	st := foldPrepare(recs)
	if err := st.matches(c, planHash); err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		if err := checkWork(c.Work, planJSON, false); err != nil {
			return nil, err
		}
	} else if err := checkWorkDirsNoLink(c.Work); err != nil {
		return nil, err
	}
	r := &runner{cfg: c, servedByUs: map[string]bool{}, externallyServed: map[string]bool{}, prepareOnly: true}
	defer r.releaseTarget()
	if r.log, err = OpenWorkLog(c.logPath("prepare")); err != nil {
		return nil, err
	}
	defer r.log.Close()
	if len(recs) > 0 {
		// A preparation killed with its utility running: that utility is
		// stopped, and the target waited for, as a run's resume does.
		c.Resume = true
		if err := r.stopOrphans(ctx, journal.Replay(recs)); err != nil {
			return nil, err
		}
	}
	r.resumeKeepsTarget = st.createDone && exists(c.Target+manifest.SuffixControl)
	r.recordWritten = journalWroteRecord(journal.Replay(recs))
	if st.done != nil && r.resumeKeepsTarget {
		r.prepared = &preparedTarget{at: st.done.Time, elapsed: st.done.Elapsed, files: st.done.Files}
	}
	summary, err := r.preflightPrepare(ctx, len(recs) > 0)
	if err != nil {
		return nil, err
	}
	if r.prepared != nil {
		return &Prepared{At: r.prepared.at, Elapsed: time.Since(started), Already: true, Journal: jw.Path(), Tables: len(c.Plan.Tables)}, nil
	}
	if err := atomicfile.WriteFile(c.work(PlanFile), append(planJSON, '\n')); err != nil {
		return nil, err
	}
	return r.prepare(ctx, jw, recs, planHash, summary, started)
}

// preflightPrepare is the run's preflight for what the preparation does:
// DLC and its utilities, the plan directory, the source's files (never
// written; listed online), the target's files proven as the run proves
// them, the target free, its directories writable, room for it. A
// finished preparation found again is proven untouched (provePrepared);
// one that is not is created again only with --force.
func (r *runner) preflightPrepare(ctx context.Context, resumed bool) (string, error) {
	c := r.cfg
	if err := r.checkDLC([]string{"proutil", "prostrct", "procopy", "_progres"}); err != nil {
		return "", err
	}
	if !exists(c.Source + manifest.SuffixControl) {
		return "", precondition("source database %s.db not found: the target is proven against its files, which it must never overwrite", c.Source)
	}
	pf, err := readPlanFiles(c)
	if err != nil {
		return "", err
	}
	view := manifest.OS{}
	if err := c.sameDatabase(view); err != nil {
		return "", err
	}
	source, err := r.sourceFiles(ctx, view)
	if err != nil {
		return "", err
	}
	if _, err := r.keepPrepared(ctx, pf.st, nil); err != nil {
		return "", err
	}
	space, err := r.proveTargetFiles(ctx, view, pf.st, source, resumed)
	if err != nil {
		return "", err
	}
	if space, err = r.validatedSpace(ctx, space); err != nil {
		return "", err
	}
	onto := r.targetSummary("preparation")
	return fmt.Sprintf("DLC %s; source %s (%d files, listed online); %s; %s", c.DLC, c.Source, source.Len(), onto, space), nil
}

// prepare runs the preparation's graph (preflight, create-target, the
// target's tabanalys) and checks what it made.
func (r *runner) prepare(ctx context.Context, jw *journal.Writer, recs []journal.Record, planHash, summary string, started time.Time) (*Prepared, error) {
	c := r.cfg
	built, err := schedule.Build(c.Plan, c.buildOptions())
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	pre, create := built.Job(string(schedule.KindPreflight)), built.Job(string(schedule.KindCreateTarget))
	analyze := &schedule.Job{ID: PreparedAnalysisJob, Kind: schedule.KindAnalyzeTarget, DB: schedule.DBTarget, Deps: []string{create.ID}}
	if built.Graph, err = schedule.NewGraph([]*schedule.Job{pre, create, analyze}); err != nil {
		return nil, fmt.Errorf("job graph: %w", err)
	}
	e := newExecutor(c, built, jw, recs)
	e.preflightSummary, e.proof = summary, r.proof
	state := "started"
	if len(recs) > 0 {
		state = "started again"
	}
	if err := e.record(journal.Record{Job: journal.PrepareJob, State: journal.Started, Message: state,
		Plan: planHash, Source: c.Source, Target: c.Target, PID: os.Getpid(),
		OEDLVersion: c.Version, OpenEdgeVersion: openedge.Version(c.DLC), Proc: ptr(sysproc.Self())}); err != nil {
		return nil, err
	}
	keep := r.proof.keep
	res, err := schedule.Dispatch(ctx, built.Graph, e, schedule.Options{
		Skip:   func(j *schedule.Job) bool { return keep && j.ID == create.ID },
		Events: e.dispatchSink(),
	})
	if err == nil {
		err = res.Err()
	}
	if err == nil {
		err = r.checkPrepared()
	}
	if err != nil {
		fail := journal.Record{Job: journal.PrepareJob, State: journal.Failed, Err: oneLineErr(err)}
		if ctx.Err() != nil {
			fail.Reason = "cancelled"
		}
		_ = e.record(fail)
		var pe *PreconditionError
		if errors.As(err, &pe) || ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("the preparation failed: %w\nfix the cause and run oedl prepare again (it continues from %s)", err, jw.Path())
	}
	// The record names the files as the preparation leaves them: what
	// the run will prove them against.
	if err := r.stampTarget(); err != nil {
		return nil, fmt.Errorf("stamp the target's record: %w", err)
	}
	files, err := preparedFiles(c)
	if err != nil {
		return nil, err
	}
	done := journal.Record{Job: journal.PrepareJob, State: journal.Done, Elapsed: time.Since(started), Files: files,
		Message: fmt.Sprintf("prepared: %d tables, no record; %d files", len(c.Plan.Tables), len(r.proof.entries))}
	if err := e.record(done); err != nil {
		return nil, err
	}
	return &Prepared{At: time.Now(), Elapsed: time.Since(started), Tables: len(c.Plan.Tables), Files: len(r.proof.entries), Journal: jw.Path()}, nil
}

// checkPrepared holds the tabanalys the preparation saved against the plan.
func (r *runner) checkPrepared() error {
	path := r.cfg.work(PreparedAnalysis)
	a, err := readAnalysisFile(path)
	if err != nil {
		return err
	}
	return checkPreparedAnalysis(a, r.cfg.Plan, path)
}

// preparedFiles are what the preparation's "done" proves it from: its
// tabanalys, and the plan files the target was created from, with their
// SHA-256 (a run refuses a plan directory changed since).
func preparedFiles(c *Config) ([]journal.File, error) {
	return filesWithSums(c.work(PreparedAnalysis), filepath.Join(c.PlanDir, plan.FileStructure), filepath.Join(c.PlanDir, plan.FileDF))
}

// filesWithSums stats and hashes each path.
func filesWithSums(paths ...string) ([]journal.File, error) {
	var out []journal.File
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		sum, err := fileSHA256(p)
		if err != nil {
			return nil, err
		}
		out = append(out, journal.File{Path: p, Size: st.Size(), SHA256: sum})
	}
	return out, nil
}
