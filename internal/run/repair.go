package run

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"time"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/schedule"
	"github.com/oedl/oedl/internal/units"
)

// A load that failed or died half way left some of its records in the
// target area, and binary load cannot be told to skip what is already in.
// The only safe way on is the one a DBA takes by hand: truncate the area
// (proutil -C truncate area, offline) and load again every table placed in
// it. It is explicit: a repair job in the graph, journalled, shown as
// events, and bounded (Config.Retries repairs per area and run).

// repairJobFor builds the repair of area. On a served target it runs alone
// (the broker is stopped for the truncate and started again); on a target
// opened single-user it takes a load slot, so no other load holds the
// database meanwhile.
func (e *Executor) repairJobFor(area string, n int) *schedule.Job {
	j := &schedule.Job{ID: schedule.RepairID(area, n), Kind: schedule.KindRepair, DB: schedule.DBTarget, Area: area, Host: e.targetHost()}
	if e.cfg.served(schedule.DBTarget) {
		j.Exclusive = true
	} else {
		j.Slot = schedule.HostSlot(schedule.SlotLoad, j.Host)
	}
	return j
}

// repairAfter handles a failed load: it queues a repair of the load's area
// (unless one is already queued, which will cover this load too) or, when
// the area has used up its repairs, fails the load for good.
func (e *Executor) repairAfter(j *schedule.Job, loadErr error, f failure) schedule.Outcome {
	e.mu.Lock()
	queued := e.repairQueued[j.Area]
	n := e.repairsThisRun[j.Area]
	if !queued && n < e.cfg.Retries {
		e.repairsThisRun[j.Area]++
		e.repairs[j.Area]++
		e.repairQueued[j.Area] = true
	}
	num := e.repairs[j.Area]
	e.mu.Unlock()
	if !queued && n >= e.cfg.Retries {
		err := fmt.Errorf("%w; area %q was already repaired %s in this run, giving up", loadErr, j.Area, units.Times(n))
		f.text = err.Error()
		e.noteFailure(j.ID, f)
		return schedule.Outcome{Err: err}
	}
	f.retrying = true
	e.mu.Lock()
	e.superseded[j.ID] = f
	var add []*schedule.Job
	if j.Kind == schedule.KindLoadBatch {
		// Which table's file failed the batch is not known: each is
		// dumped again, as each would be after its own failed load, one
		// after another: once the source is shut down they open it
		// single-user, and two at once refuse each other (263).
		var prev string
		for _, m := range j.Members {
			again := e.redumpFor(memberJob(j, m))
			if len(again) == 0 {
				continue
			}
			if prev != "" {
				again[0].Deps = append(again[0].Deps, prev)
			}
			prev = again[0].ID
			add = append(add, again...)
		}
	} else {
		add = e.redumpFor(j)
	}
	e.mu.Unlock()
	// Told here, before the repair and the new dump it brings: the
	// dispatcher hears of this load as finished (the repair carries it on).
	e.emitFailed(j, f)
	if queued {
		return schedule.Outcome{Add: add}
	}
	r := e.repairJobFor(j.Area, num)
	r.Before = []string{e.built.LoadBarrier}
	msg := fmt.Sprintf("%s failed; area %q will be truncated and every table placed in it loaded again", event.StableID(j.ID), j.Area)
	if err := e.record(journal.Record{Job: r.ID, Kind: string(r.Kind), State: journal.Repair, Area: j.Area, Message: msg, Err: f.text}); err != nil {
		return schedule.Outcome{Err: err}
	}
	e.emit(event.Event{Kind: event.Warning, Job: r.ID, JobKind: string(r.Kind), Area: j.Area, Message: msg, Err: f.text, Log: e.cfg.logPath(j.ID)})
	return schedule.Outcome{Add: append(add, r)}
}

// redumpFor queues a new dump of the table whose load failed: the load may
// have failed on the file itself (corrupt, cut short), and a dump is
// cheap next to failing the same load again. The reload waits for it.
// A section of a threaded dump is not handled here (sectionFailed). Callers
// hold e.mu.
func (e *Executor) redumpFor(j *schedule.Job) []*schedule.Job {
	if j.Section != 0 {
		return nil
	}
	e.reloads++
	d := &schedule.Job{ID: schedule.AgainID(schedule.DumpID(j.Table), e.reloads), Kind: schedule.KindDump,
		Table: j.Table, Records: j.Records, Bytes: j.Bytes, Slot: schedule.SlotDump}
	// Where the table was dumped: its host holds the data the placement
	// chose, and a dump there moves again before the reload.
	if orig := e.built.Job(schedule.DumpID(j.Table)); orig != nil {
		d.Host, d.DB = orig.Host, orig.DB
	}
	// Not during the shutdown of the database it reads: one that ran into
	// it failed, and brokerGone, finding the broker gone, stopped the run
	// (the flake of TestEveryFaultThenResume/whole/dump:corrupt/once).
	// Before it, the shutdown waits; after it, the dump opens the database
	// single-user.
	if sd := schedule.ShutdownID(cmp.Or(d.DB, schedule.DBSource)); e.built.Job(sd) != nil {
		d.NotDuring = []string{sd}
	}
	d.Slot = schedule.HostSlot(d.Slot, d.Host)
	d.Cost = e.cost(d)
	out := []*schedule.Job{d}
	e.redumps[j.Table] = d.ID
	e.again[d.ID] = "dumped again: its load failed, and the file may have been the cause"
	if e.movesFrom(d.Host) {
		mv := &schedule.Job{ID: schedule.AgainID(schedule.MoveID(j.Table, 0), e.reloads), Kind: schedule.KindMove,
			Table: j.Table, Records: j.Records, Bytes: j.Bytes, Host: d.Host, Deps: []string{d.ID}, Slot: schedule.SlotMove}
		mv.Cost = e.cost(mv)
		out = append(out, mv)
		e.redumps[j.Table] = mv.ID
		e.again[mv.ID] = "moved again: the table was dumped again"
	}
	return out
}

func (e *Executor) cost(j *schedule.Job) time.Duration {
	if e.cfg.Cost != nil {
		return e.cfg.Cost(j)
	}
	return schedule.DefaultCost(j)
}

// targetHost is the target's host ("" on one machine).
func (e *Executor) targetHost() string {
	if l := e.cfg.hostLayout(); l != nil {
		return l.Target
	}
	return ""
}

// repairJob truncates the area and queues the loads that must run again:
// every load into the area the journal knows of (done ones were wiped by
// the truncate, failed ones never completed), except those whose job is
// still waiting in the queue and will run anyway.
func (e *Executor) repairJob(ctx context.Context, j *schedule.Job, log *os.File) (schedule.Outcome, journal.Record, error) {
	var rec journal.Record
	if err := e.truncateArea(ctx, j, log); err != nil {
		return schedule.Outcome{}, rec, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.repairQueued, j.Area)
	replayed := journal.Replay(e.recs)
	var reloads []*schedule.Job
	for key, ld := range replayed.Loads {
		if ld.Area != j.Area || e.waiting(key) {
			continue
		}
		if key.Section > 0 && !e.sectionOfLatestDump(replayed, key) {
			// A threaded dump running again writes new sections (which
			// need not split the records as the old ones did) and queues
			// their loads itself: the old sections are not loaded again.
			continue
		}
		e.reloads++
		id := schedule.AgainID(schedule.LoadID(key.Table, key.Section), e.reloads)
		e.again[id] = fmt.Sprintf("loaded again: area %s was truncated (%s)", j.Area, j.ID)
		l := &schedule.Job{ID: id, Kind: schedule.KindLoad, Table: key.Table, Section: key.Section, Area: j.Area,
			Deps: []string{j.ID}, Before: []string{e.built.LoadBarrier}, Host: e.targetHost(),
			Slot: schedule.HostSlot(schedule.SlotLoad, e.targetHost())}
		if d, ok := e.redumps[key.Table]; ok {
			l.Deps = append(l.Deps, d)
		}
		if p := e.placement(key.Table); p != nil && key.Section == 0 {
			l.Records, l.Bytes = p.Records, p.Bytes
		}
		l.Cost = e.cost(l)
		e.loadJobs[key] = append(e.loadJobs[key], l.ID)
		reloads = append(reloads, l)
	}
	rec.Message = fmt.Sprintf("area %q truncated; %d load(s) queued again", j.Area, len(reloads))
	return schedule.Outcome{Add: reloads}, rec, nil
}

// sectionOfLatestDump reports whether section key is a file of the
// table's dump as it stands: the dump is done (in an earlier invocation, or
// in this one) and wrote that section. A dump still to run in this
// invocation will queue its own sections. Callers hold e.mu.
func (e *Executor) sectionOfLatestDump(rp *journal.Replayed, key journal.LoadKey) bool {
	id := schedule.DumpID(key.Table)
	done := e.skipped[id] || e.doneHere[id]
	js, ok := rp.Jobs[id]
	if !done || !ok || js.Done == nil {
		return false
	}
	for _, f := range js.Done.Files {
		if sectionOf(f.Path, key.Table) == key.Section {
			return true
		}
	}
	return false
}

// waiting reports whether a job loading key is queued and not started: it
// will load the table after the repair without help. Callers hold e.mu.
func (e *Executor) waiting(key journal.LoadKey) bool {
	for _, id := range e.loadJobs[key] {
		if !e.started[id] {
			return true
		}
	}
	return false
}

// sectionFailed handles a failed load of one section of a threaded dump.
// Loading the section again would read the same file, which may be what
// failed (a corrupt or short section: every repair and every resume would
// fail on it for ever), and dumping the table again within this attempt
// would cut the records into other sections than those already loaded.
// So the table's dump is no longer trusted (a failed record for it, or,
// while it still runs, a failed end: dumpJob asks badDump) and the run
// resumes in place as --resume would: the table's area is repaired, the
// table dumped again, and only the new dump's sections loaded (planResume).
// Config.Retries bounds the resumes in place; past them the run stops and
// says to resume.
func (e *Executor) sectionFailed(j *schedule.Job, loadErr error, f failure) schedule.Outcome {
	why := fmt.Sprintf("section %d of this dump could not be loaded (%s): its files are not loaded again", j.Section, j.ID)
	id := schedule.DumpID(j.Table)
	e.mu.Lock()
	e.badDumps[j.Table] = true
	done := lastState(e.recs, id) == journal.Done
	e.mu.Unlock()
	if done {
		if err := e.record(journal.Record{Job: id, Kind: string(schedule.KindDump), Table: j.Table, State: journal.Failed,
			Err: why, Log: e.cfg.logPath(j.ID)}); err != nil {
			return schedule.Outcome{Err: err}
		}
	}
	e.noteFailure(j.ID, f)
	return schedule.Outcome{Err: resumableError{loadErr, "failed", redumpNext}}
}

// badDump says why the table's dump is not to be trusted ("" when it is).
func (e *Executor) badDump(table string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.badDumps[table] {
		return ""
	}
	return "a section this dump wrote could not be loaded: its files are not loaded again"
}

// lastState is the latest state the journal holds for job id ("" when
// none).
func lastState(recs []journal.Record, id string) journal.State {
	for i := len(recs) - 1; i >= 0; i-- {
		if r := recs[i]; r.Job == id && r.State != journal.Running && r.State != journal.Repair {
			return r.State
		}
	}
	return ""
}

// truncateArea empties the repair's area. On a served target the broker
// is stopped around it (truncate area runs offline) and started again.
// Every step is safe to repeat, since a failed repair is retried: the
// broker is stopped only if it serves and started only if it does not
// (proshut of a broker already stopped fails with (1423), proserve of a
// served database with (276)), and a truncate that fails starts the broker
// again before the error goes up, so the retry, or the rest of the run,
// finds the target as the repair found it.
func (e *Executor) truncateArea(ctx context.Context, j *schedule.Job, log *os.File) error {
	truncate := e.cfg.truncateStep(j.Area)
	offline := e.cfg.served(schedule.DBTarget) && j.Exclusive
	if !offline {
		_, err := e.runStep(ctx, j.ID, truncate, e.cfg.timeout(j), log, nil)
		return err
	}
	if err := e.ensureServed(ctx, j, log, false); err != nil {
		return err
	}
	if _, err := e.runStep(ctx, j.ID, truncate, e.cfg.timeout(j), log, nil); err != nil {
		if serr := e.ensureServed(ctx, j, log, true); serr != nil {
			e.cfg.Log.Warn("broker after a failed truncate: " + serr.Error())
		}
		return err
	}
	return e.ensureServed(ctx, j, log, true)
}

// ensureServed starts (want) or stops (!want) the target's broker unless
// it already is as wanted.
func (e *Executor) ensureServed(ctx context.Context, j *schedule.Job, log *os.File, want bool) error {
	h, err := e.holder(ctx, j.ID, schedule.DBTarget, log)
	if err != nil {
		return err
	}
	switch {
	case want && h == holderFree:
		_, err = e.runSteps(ctx, j, e.cfg.serveSteps(schedule.DBTarget), log)
	case !want && h == holderMulti:
		_, err = e.runStep(ctx, j.ID, e.cfg.shutdownStep(schedule.DBTarget), e.cfg.timeout(j), log, nil)
	}
	return err
}
