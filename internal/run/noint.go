package run

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/manifest"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/schedule"
)

// Loading without crash protection (Config.NoIntegrity, oedl run
// --no-integrity). Seed 003 and Progress's binary-load advice: a load
// into a database run with -i is faster, since neither the before-image
// nor the data are synced in order. The price is Progress's own (KB
// P16747): a database that crashes, or whose user is killed, while it runs
// with -i is not recovered. It refuses to open, (509) "The last session
// was run with the no integrity (-i) parameter" and (510) "Your database
// cannot be repaired. You must restore a backup copy." Truncating an
// area, the repair of a failed load (repair.go), needs the database open.
//
// The target of a run holds nothing but what the run loaded from its
// dumps, so oedl's "backup copy" is the plan: create the target again and
// load every table again. That is the repair of every failed load of a
// no-integrity run, in the run and after kill -9 on --resume:
//
//   - In the run, the failed load ends the attempt as a failure only a
//     resume repairs (resumableError); Run resumes in place.
//   - The resume (this one, or --resume after oedl itself was killed)
//     finds the journal's dirty areas (a load that failed, or started and
//     never ended) in a no-integrity run, journals its decision (a Repair
//     record of kind KindRebuild: what it destroys and why it may), and
//     plans the run as if the target had never been created: create-target
//     removes only the files the target's record proves oedl made (as
//     --force does), creates it from the plan's target.st and target.df,
//     and every load, the sequences and the security load run again.
//   - The journal's replay undoes every load when create-target is done
//     again (journal.Replay), so no table counts as loaded twice.
//
// The dumps that fed a failed load are dumped again first: the file may
// have been what failed (repairAfter does the same for an area repair).

// KindRebuild journals a rebuild of the target (a Repair record, no
// job runs under it: create-target does the work).
const KindRebuild = "rebuild-target"

// rebuildNext is what the resume does after a no-integrity load failed.
const rebuildNext = "the target, damaged beyond crash recovery (509), is created again and every table loaded again"

// loadsNoIntegrity: a load opening the target single-user runs with -i
// itself; on a served target -i is the broker's (serveStep).
func (c *Config) loadsNoIntegrity() bool {
	return c.NoIntegrity && !c.served(schedule.DBTarget)
}

// markTargetDamaged notes that a load of a no-integrity run failed in
// this attempt, and says whether one had already.
func (e *Executor) markTargetDamaged() (already bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	already, e.targetDamaged = e.targetDamaged, true
	return already
}

// rebuildAfter handles a failed load of a no-integrity run: the attempt
// ends for the resume to rebuild the target, and the dumps of its tables
// are no longer trusted (the file may have been the cause) unless an
// earlier load's failure had already damaged the target (then that is
// the likelier cause: (509) on opening it).
func (e *Executor) rebuildAfter(j *schedule.Job, loadErr error, f failure) schedule.Outcome {
	if e.markTargetDamaged() {
		e.noteFailure(j.ID, f)
		return schedule.Outcome{Err: resumableError{loadErr, "failed on the target a no-integrity load left damaged", rebuildNext}}
	}
	tables := []string{j.Table}
	if j.Kind == schedule.KindLoadBatch {
		tables = tables[:0]
		for _, m := range j.Members {
			tables = append(tables, m.Table)
		}
	}
	for _, t := range tables {
		id := schedule.DumpID(t)
		e.mu.Lock()
		done := lastState(e.recs, id) == journal.Done
		e.mu.Unlock()
		if !done {
			continue
		}
		if err := e.record(journal.Record{Job: id, Kind: string(schedule.KindDump), Table: t, State: journal.Failed,
			Err: fmt.Sprintf("its load failed (%s): dumped again before the target is loaded again", j.ID), Log: e.cfg.logPath(j.ID)}); err != nil {
			return schedule.Outcome{Err: err}
		}
	}
	e.noteFailure(j.ID, f)
	return schedule.Outcome{Err: resumableError{loadErr, "failed while the target ran without crash protection (-i)", rebuildNext}}
}

// writesTarget: the job writes into the target or reads it once loaded.
// After a no-integrity load failed, such a job works on a target the
// resume throws away, or fails on it (509).
func writesTarget(k schedule.Kind) bool {
	switch k {
	case schedule.KindLoad, schedule.KindLoadBatch, schedule.KindLoadSeq, schedule.KindLoadSecurity,
		schedule.KindIdxbuild, schedule.KindAnalyzeTarget, schedule.KindPost, schedule.KindRepair:
		return true
	}
	return false
}

// onDamagedTarget ends job j before it runs, or after it failed without
// a retry, once a no-integrity load failed in this attempt (ok = true):
// the target is created again and j runs again on the resume.
func (e *Executor) onDamagedTarget(j *schedule.Job, attempt int, err error) (schedule.Outcome, bool) {
	e.mu.Lock()
	damaged := e.targetDamaged
	e.mu.Unlock()
	if !writesTarget(j.Kind) || !e.cfg.NoIntegrity {
		return schedule.Outcome{}, false
	}
	if !damaged && err != nil && refusedDamaged(err.Error()) {
		// The broker (or a utility holding the target) died under -i
		// with no load failing: the target says so itself.
		e.markTargetDamaged()
		damaged = true
	}
	if !damaged {
		return schedule.Outcome{}, false
	}
	why := "not run: a load failed while the target ran without crash protection (-i)"
	if err == nil {
		err = errors.New(why)
		e.mu.Lock()
		e.notRun[j.ID] = true // its tables' attempt is the one started (emitMembers)
		e.mu.Unlock()
	} else {
		why = "failed on the target a no-integrity load left damaged"
	}
	e.noteFailure(j.ID, failure{reason: event.ReasonError, text: err.Error(), attempt: attempt})
	return schedule.Outcome{Err: resumableError{err, why, rebuildNext}}, true
}

// noIntegrityDamage says why a resume of a no-integrity run must rebuild
// the target ("" when it need not): the areas a load failed or died in.
// A client of the -i broker killed as it wrote (the sequences, the
// security load) is such a death too: Progress does not promise recovery
// even when only a user was killed.
func noIntegrityDamage(c *Config, rp *journal.Replayed) string {
	if !c.NoIntegrity {
		return ""
	}
	var why []string
	for _, a := range rp.DirtyAreas() {
		why = append(why, fmt.Sprintf("area %q: %s", a, rp.Dirty[a]))
	}
	for id, j := range rp.Jobs {
		if j.State == journal.Failed && writesTarget(schedule.Kind(j.Kind)) && refusedDamaged(j.Last.Err) {
			why = append(why, fmt.Sprintf("%s found the target damaged: %s", id, j.Last.Err))
			continue
		}
		if j.Kind != string(schedule.KindLoadSeq) && j.Kind != string(schedule.KindLoadSecurity) {
			continue
		}
		switch {
		case j.State == journal.Started:
			why = append(why, id+" started and never ended (the run was killed while it wrote)")
		case j.State == journal.Failed && (j.Last.Signal != "" || j.Last.Interrupted()):
			why = append(why, fmt.Sprintf("%s was killed as it wrote: %s", id, j.Last.Err))
		}
	}
	sort.Strings(why)
	return strings.Join(why, "; ")
}

// refusedDamaged: a utility's error is the target refusing to open after
// a death under -i, by message number.
func refusedDamaged(text string) bool {
	return openedge.HasMessage(text, openedge.MsgLastNoIntegrity) || openedge.HasMessage(text, openedge.MsgCannotRepair)
}

// rebuildRecord is the journalled decision to rebuild the target.
func rebuildRecord(c *Config, why string) journal.Record {
	msg := fmt.Sprintf("target rebuilt: no-integrity crash: a load died while %s ran without crash protection (-i), which leaves it beyond crash recovery (509)(510), "+
		"so no area is truncated; the files its record %s proves oedl made are removed and it is created again from the plan, "+
		"and every table is loaded again from its dump (the target holds nothing else)", c.Target, filepath.Base(manifest.RecordPath(c.Target)))
	return journal.Record{Job: KindRebuild, Kind: KindRebuild, State: journal.Repair, Message: msg, Err: why}
}

// emitRebuild tells the DBA, as a repair is told.
func (e *Executor) emitRebuild(rec journal.Record) {
	e.emit(event.Event{Kind: event.Warning, Job: rec.Job, JobKind: rec.Kind, Message: rec.Message, Err: rec.Err})
}
