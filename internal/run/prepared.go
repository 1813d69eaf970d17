package run

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/manifest"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/schedule"
	"github.com/oedl/oedl/internal/verify"
)

// A target made by `oedl prepare` hours before the outage, and what a
// run proves before it keeps one (docs/decisions.md, "The target
// prepared before the window"):
//
//   - The preparation is this work directory's, for this plan (the hash
//     of plan.json), this target and this source, and it finished: its
//     journal (PrepareFileName) ends with the prepare's "done".
//   - The plan's target.st and target.df are the bytes the preparation
//     created the target from (their SHA-256 in that "done").
//   - Every file the target has is the file the preparation made: named
//     in the target's record, with the device and inode it stamped.
//   - Nothing was loaded into it and no table came or went: its
//     tabanalys now lists the tables the preparation's listed, each with
//     the same count (zero). A load writes records into extents in place,
//     which the identities cannot see; the counts do.
//
// Anything else is refused (exit 3) naming why; --force lets the run
// create the target again over it, since the record proves oedl made it.

// PreparedAnalysis is the target's tabanalys as the preparation left it:
// every table of the plan, no record.
const PreparedAnalysis = "prepared.tba"

// preparedTarget is a finished preparation, from its journal.
type preparedTarget struct {
	at      time.Time // when the preparation finished
	elapsed time.Duration
	files   []journal.File // the prepared analysis and the plan files used
}

// prepareState is a prepare journal folded.
type prepareState struct {
	plan, source, target string // of its first invocation
	started              int    // invocations
	createDone           bool   // create-target's latest state is done
	done                 *journal.Record
}

func foldPrepare(recs []journal.Record) prepareState {
	var s prepareState
	for _, r := range recs {
		switch {
		case r.Job == journal.PrepareJob && r.State == journal.Started:
			if s.started == 0 {
				s.plan, s.source, s.target = r.Plan, r.Source, r.Target
			}
			s.started++
			s.done = nil
		case r.Job == journal.PrepareJob && r.State == journal.Done:
			rc := r
			s.done = &rc
		case r.Job == string(schedule.KindCreateTarget) && r.State != journal.Running:
			s.createDone = r.State == journal.Done
			if !s.createDone {
				s.done = nil // created again: the earlier preparation is gone
			}
		}
	}
	return s
}

// matches refuses a preparation made for another plan, source or target.
func (s prepareState) matches(c *Config, planHash string) error {
	if s.started == 0 {
		return nil
	}
	return otherInputs(c.work(journal.PrepareFileName), "preparation", s.plan, planHash, s.source, c.Source, s.target, c.Target)
}

// readPrepared is the finished preparation in c.Work, nil when there is
// none; an unfinished one is a precondition, one for other inputs bad
// usage (otherInputs).
func readPrepared(c *Config, planHash string) (*preparedTarget, error) {
	recs, err := journal.Read(c.work(journal.PrepareFileName))
	if errors.Is(err, fs.ErrNotExist) || (err == nil && len(recs) == 0) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	s := foldPrepare(recs)
	if err := s.matches(c, planHash); err != nil {
		return nil, err
	}
	if s.done == nil {
		return nil, precondition("the preparation journalled in %s did not finish: run oedl prepare again with the same flags to finish it (or use a new --work directory)",
			c.work(journal.PrepareFileName))
	}
	return &preparedTarget{at: s.done.Time, elapsed: s.done.Elapsed, files: s.done.Files}, nil
}

// NotUntouchedError is a prepared target a run cannot prove is as the
// preparation left it (exit 3).
type NotUntouchedError struct {
	Target string
	At     time.Time
	Why    []string
}

func (e *NotUntouchedError) Error() string {
	return fmt.Sprintf("the target %s that oedl prepare made at %s is not provably as it left it, so the run neither loads into it nor creates it again silently:\n  %s\ngive --force to create it again (oedl made it: its record proves each file), or prepare again with --force",
		e.Target, e.At.Local().Format("2006-01-02 15:04:05"), strings.Join(e.Why, "\n  "))
}

// provePrepared proves the prepared target untouched (see the top of this
// file): the plan files, then every file's identity (before any utility
// opens the target), then its counts.
func (r *runner) provePrepared(ctx context.Context, prep *preparedTarget, st *openedge.Structure) error {
	if err := r.preparedFilesUntouched(prep, st); err != nil {
		return err
	}
	if err := r.checkHolder(ctx, schedule.DBTarget); err != nil {
		return err
	}
	return r.preparedCountsUntouched(ctx, prep, r.logWriter())
}

// notUntouched is the refusal of a prepared target, saying why.
func (r *runner) notUntouched(prep *preparedTarget, why ...string) error {
	return &PreconditionError{Err: &NotUntouchedError{Target: r.cfg.Target, At: prep.at, Why: why}}
}

// preparedFilesUntouched proves the plan files and every file of the
// prepared target as prepare left them, without opening the target.
func (r *runner) preparedFilesUntouched(prep *preparedTarget, st *openedge.Structure) error {
	c := r.cfg
	fail := func(why ...string) error { return r.notUntouched(prep, why...) }
	var why []string
	for _, f := range prep.files {
		if filepath.Base(f.Path) == PreparedAnalysis {
			continue
		}
		if sum, err := fileSHA256(f.Path); err != nil || sum != f.SHA256 {
			why = append(why, fmt.Sprintf("the plan's %s is not the file the target was prepared from (changed since)", filepath.Base(f.Path)))
		}
	}
	view := manifest.OS{}
	rec, err := manifest.ReadRecord(view, manifest.RecordPath(c.Target))
	switch {
	case err != nil:
		return fail(fmt.Sprintf("its record: %v", err))
	case rec == nil:
		return fail(manifest.RecordPath(c.Target) + ", the record of the prepared target, is missing")
	case filepath.Clean(rec.Work) != filepath.Clean(c.Work):
		return fail(fmt.Sprintf("its record %s names the work directory %s: another oedl made it since", manifest.RecordPath(c.Target), rec.Work))
	}
	entries, err := c.targetEntries(view, st)
	if err != nil {
		return pathError(err)
	}
	files := entries[:0:0]
	for _, e := range entries {
		if e.Resolved != manifest.RecordPath(rec.Target) {
			files = append(files, e)
		}
	}
	changed, err := rec.Changed(view, files)
	if err != nil {
		return err
	}
	if why = append(why, changed...); len(why) > 0 {
		return fail(why...)
	}
	return nil
}

// preparedCountsUntouched proves the prepared target's tables as empty as
// prepare left them, by a tabanalys now against the one it took, logging
// the call to log.
func (r *runner) preparedCountsUntouched(ctx context.Context, prep *preparedTarget, log io.Writer) error {
	before, err := readAnalysisFile(r.cfg.work(PreparedAnalysis))
	if err != nil {
		return r.notUntouched(prep, err.Error())
	}
	now, err := r.targetAnalysis(ctx, log)
	if err != nil {
		return err
	}
	if d := countsDiffer(before, now); len(d) > 0 {
		return r.notUntouched(prep, d...)
	}
	return nil
}

// targetAnalysis runs proutil -C tabanalys on the target and parses it,
// logging the call to log. A target whose disk is full (not even its
// DB.lk can be written) is the machine's to change: a *PreconditionError
// (exit 3) with the utility's line naming the file.
func (r *runner) targetAnalysis(ctx context.Context, log io.Writer) (*openedge.Analysis, error) {
	c := r.cfg
	res, err := c.Runner.Run(ctx, execx.Cmd{Path: c.bin("proutil"), Args: []string{c.Target, "-C", "tabanalys"},
		Dir: c.Work, Env: c.env(), Timeout: c.MinTimeout, Log: log})
	if err != nil {
		if line := noSpaceLine(res.Output); line != "" {
			return nil, precondition("proutil %s -C tabanalys: the target's disk is full: %s; free room on it and run again", c.Target, line)
		}
		return nil, fmt.Errorf("proutil %s -C tabanalys: %w: %s", c.Target, err, lastMessage(res.Output))
	}
	return openedge.ParseAnalysis(strings.NewReader(res.Output), "tabanalys of "+c.Target)
}

func readAnalysisFile(path string) (*openedge.Analysis, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("the tabanalys the preparation took: %w", err)
	}
	return openedge.ParseAnalysis(bytes.NewReader(data), path)
}

// countsDiffer says how the application tables of now differ from those
// of before: a table that came or went, a count that moved.
func countsDiffer(before, now *openedge.Analysis) []string {
	res := verify.Compare(verify.NewSide(before, "prepared"), verify.NewSide(now, "now"))
	var why []string
	for _, row := range res.Bad {
		switch row.Status {
		case verify.Missing:
			why = append(why, fmt.Sprintf("table %s is gone", row.Table))
		case verify.Extra:
			why = append(why, fmt.Sprintf("table %s was added (%d records)", row.Table, row.After))
		default:
			why = append(why, fmt.Sprintf("table %s holds %d records, not %d", row.Table, row.After, row.Before))
		}
	}
	return why
}

// checkPreparedAnalysis holds the preparation's tabanalys against the
// plan: every planned table is there (the .df made it) and no table holds
// a record. Records are someone's writes (a precondition); a table
// missing is the preparation's failure.
func checkPreparedAnalysis(a *openedge.Analysis, p *plan.Plan, file string) error {
	side := verify.NewSide(a, file)
	have := map[string]bool{}
	var loaded []string
	for _, t := range side.Tables {
		have[strings.ToLower(t.Table)] = true
		if t.Records != 0 {
			loaded = append(loaded, fmt.Sprintf("%s holds %d records", t.Table, t.Records))
		}
	}
	if len(loaded) > 0 {
		return precondition("%s: the prepared target is not empty: %s; someone wrote into it: prepare again with --force to create it anew",
			file, strings.Join(loaded, "; "))
	}
	var missing []string
	for _, t := range p.Tables {
		if !have[strings.ToLower(t.Table)] {
			missing = append(missing, t.Table)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s: the target.df load left %d planned table(s) out of the target: %s", file, len(missing), strings.Join(missing, ", "))
	}
	return nil
}

func fileSHA256(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}
