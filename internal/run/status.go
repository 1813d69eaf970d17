package run

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/schedule"
)

// Status is what `oedl status` knows from a work directory, read without
// writing anything (safe while the run goes on).
type Status struct {
	Records  []journal.Record
	Replayed *journal.Replayed
	Plan     *plan.Plan // nil when plan.json is missing
	// Running: the last invocation has no end record and its process is
	// alive (it holds the work directory's lock). Killed: no end record
	// and no process (resume it).
	Running bool
	Killed  bool
	PID     int
	// Orphans are utilities of a killed run still running: a resume stops
	// them before it repairs anything.
	Orphans []journal.JobProc
	// ETA is the living run's latest eta event (WORK/eta.json): the
	// figures its screen shows, which status shows too.
	ETA *event.Event
}

// Verdict is the verify job's outcome, as the journal holds it.
type Verdict struct {
	State   journal.State // "" = not run yet
	Message string        // "25 tables, 37344 records; sha256 ..." when done
	Err     string        // the mismatches when failed
}

// Verdict is the verify step's latest outcome.
func (s *Status) Verdict() Verdict {
	j := s.Replayed.Jobs[string(schedule.KindVerify)]
	if j == nil {
		return Verdict{}
	}
	return Verdict{State: j.State, Message: j.Last.Message, Err: j.Last.Err}
}

// Failed reports whether the run ended without success: its last
// invocation failed or was killed, or a table was loaded twice. A run
// going on has not failed (its failures so far may still be repaired).
func (s *Status) Failed() bool {
	if len(s.Replayed.LoadedTwice()) > 0 {
		return true
	}
	if s.Running {
		return false
	}
	runs := s.Replayed.Runs
	return s.Killed || (len(runs) > 0 && runs[len(runs)-1].State != journal.Done)
}

// RepairsPending are the areas that need a repair, and why: a failed
// load's area (the living run repairs it itself; after the run, a resume
// does), and, when the run's process is dead, the area of a load it never
// saw end. While the run lives, its loads in flight are just running.
func (s *Status) RepairsPending() map[string]string {
	out := map[string]string{}
	for a, why := range s.Replayed.Dirty {
		if !(s.Running && s.Replayed.OnlyInflight(a)) {
			out[a] = why
		}
	}
	return out
}

// ReadStatus reads WORK/journal.jsonl (and plan.json for the totals).
func ReadStatus(work string) (*Status, error) {
	recs, err := journal.Read(filepath.Join(work, journal.FileName))
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: the journal is empty: no run has started in %s", filepath.Join(work, journal.FileName), work)
	}
	s := &Status{Records: recs, Replayed: journal.Replay(recs)}
	if p, err := plan.ReadJSON(filepath.Join(work, PlanFile)); err == nil {
		s.Plan = p
	}
	runs := s.Replayed.Runs
	if n := len(runs); n > 0 && runs[n-1].State == journal.Started {
		s.PID = runs[n-1].PID
		if s.Running = runAlive(work, runs[n-1]); !s.Running {
			s.Killed = true
		}
	}
	if s.Running {
		s.ETA = readETA(work, runs[len(runs)-1])
	}
	if !s.Running {
		for _, p := range s.Replayed.Procs() {
			if p.Proc.Alive() {
				s.Orphans = append(s.Orphans, p)
			}
		}
	}
	return s, nil
}

// readETA is the eta event the invocation that wrote run left in
// WORK/eta.json, or nil (none yet, or an earlier invocation's).
func readETA(work string, run journal.Record) *event.Event {
	data, err := os.ReadFile(filepath.Join(work, ETAFile))
	if err != nil {
		return nil
	}
	var e event.Event
	if json.Unmarshal(data, &e) != nil || e.Kind != event.ETAKind || e.ETA == nil || e.Time.Before(run.Time) {
		return nil
	}
	return &e
}

// runAlive tells whether the invocation that wrote run is still going on.
// The work directory's lock says it for sure: a run holds it from start
// to end and the kernel drops it when the process dies. Without a lock
// file to ask, the run record's process is looked for (by PID and start
// time when the journal has them: a PID alone may be another process's by
// now).
func runAlive(work string, run journal.Record) bool {
	if held, known := lockHeld(work); known {
		return held
	}
	if run.Proc != nil && run.Proc.Start != 0 {
		return run.Proc.Alive()
	}
	return run.PID > 0 && syscall.Kill(run.PID, 0) == nil
}

// Events replays the journal as the event stream a live run emitted (with
// the plan's sizes, so progress and ETA make sense), for the same printers.
func (s *Status) Events() []event.Event {
	sizes := map[string][2]int64{}
	var total [2]int64
	if s.Plan != nil {
		for _, t := range s.Plan.Tables {
			sizes[t.Table] = [2]int64{t.Records, t.Bytes}
			total[0] += t.Records
			total[1] += t.Bytes
		}
	}
	shares := sectionShares(s.Records, sizes)
	out := make([]event.Event, 0, len(s.Records))
	open := map[string]journal.Record{}
	queued := false
	var phase schedule.Phase                     // of the invocation replayed
	inPlace := journal.ResumedInPlace(s.Records) // as the live run_started said
	for i, r := range s.Records {
		if r.State == journal.Running {
			continue // a process, not a state change
		}
		if r.Job == journal.RunJob && r.State == journal.Started {
			phase = ""
		}
		if p := schedule.PhaseOf(schedule.Kind(r.Kind)); r.Job != journal.RunJob && r.Kind != "" && r.State == journal.Started && p.Rank() > phase.Rank() {
			// The phase events the live run sent (Executor.enterPhase):
			// the journal keeps no phase, the job that entered it is there.
			phase = p
			out = append(out, event.Event{V: event.SchemaVersion, Time: r.Time, Kind: event.Phase, Phase: string(p)})
		}
		if r.Job != journal.RunJob {
			if r.State == journal.Started {
				open[r.Job] = r
			} else {
				delete(open, r.Job)
			}
		}
		e := r.Event()
		e.InPlace = inPlace[i]
		if sz, ok := sizes[r.Table]; ok && r.Section == 0 {
			e.TotalRecords, e.TotalBytes = sz[0], sz[1]
		}
		if r.Section > 0 && r.Kind == string(schedule.KindLoad) {
			e.TotalBytes = shares[r.Table][r.Section]
		}
		if e.Kind == event.RunStarted || r.Kind == string(schedule.KindIdxbuild) {
			// idxbuild sorts the keys of every table: the schedule gives it
			// the plan's totals (schedule.Build), and the replay must too,
			// or the overall fraction leaves it out and a run stopped in it
			// reads 100 %.
			e.TotalRecords, e.TotalBytes = total[0], total[1]
		}
		out = append(out, e)
		if e.Kind == event.RunStarted && !queued {
			queued = true
			out = append(out, s.notStarted(e.Time, total)...)
		}
	}
	if s.Killed {
		// Nothing the dead run started is running under it any more: its
		// unfinished jobs ended with it (a utility may live on: Orphans).
		end := s.Records[len(s.Records)-1].Time
		ids := make([]string, 0, len(open))
		for id := range open {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			r := open[id]
			out = append(out, event.Event{V: event.SchemaVersion, Time: end, Kind: event.JobFailed, Job: r.Job, JobKind: r.Kind,
				Table: r.Table, Area: r.Area, Attempt: r.Attempt, Err: "oedl stopped while it ran (killed or crashed)"})
		}
		out = append(out, event.Event{V: event.SchemaVersion, Time: end, Kind: event.RunFinished,
			Err: "oedl stopped without an end record (killed or crashed)"})
	}
	if s.ETA != nil {
		out = append(out, *s.ETA)
	}
	return out
}

// notStarted are the queued events of the dumps and loads of planned tables
// the journal names no job for, and of idxbuild when it has not begun: the
// journal records a job from its start, the live run queued them all at
// its own, and without them the work left was counted out ("load 4/4
// tables" with 21 still to load; "overall 100%" before idxbuild).
func (s *Status) notStarted(at time.Time, total [2]int64) []event.Event {
	if s.Plan == nil {
		return nil
	}
	seen := map[[2]string]bool{}
	for _, r := range s.Records {
		if r.Table != "" || r.Kind == string(schedule.KindIdxbuild) {
			seen[[2]string{r.Kind, r.Table}] = true
		}
	}
	var out []event.Event
	if !seen[[2]string{string(schedule.KindIdxbuild), ""}] {
		out = append(out, event.Event{V: event.SchemaVersion, Time: at, Kind: event.JobQueued, Job: string(schedule.KindIdxbuild),
			JobKind: string(schedule.KindIdxbuild), TotalRecords: total[0], TotalBytes: total[1]})
	}
	for _, t := range s.Plan.Tables {
		for _, k := range []schedule.Kind{schedule.KindDump, schedule.KindLoad} {
			if seen[[2]string{string(k), t.Table}] {
				continue
			}
			id := schedule.DumpID(t.Table)
			if k == schedule.KindLoad {
				id = schedule.LoadID(t.Table, 0)
			}
			out = append(out, event.Event{V: event.SchemaVersion, Time: at, Kind: event.JobQueued, Job: id, JobKind: string(k),
				Table: t.Table, TotalRecords: t.Records, TotalBytes: t.Bytes})
		}
	}
	return out
}

// sectionShares splits each threaded table's planned bytes over the
// sections its dump wrote, in proportion to their files (from the dump's
// done record), so that replayed section loads add up to the table, as
// the live run's do, and a finished run shows its loads at 100 %.
func sectionShares(recs []journal.Record, sizes map[string][2]int64) map[string]map[int]int64 {
	files := map[string]map[int]int64{} // table -> section -> file size, the last done dump
	for _, r := range recs {
		if r.Kind != string(schedule.KindDump) || r.State != journal.Done || len(r.Files) < 2 {
			continue
		}
		secs := map[int]int64{}
		for _, f := range r.Files {
			if n := sectionOf(f.Path, r.Table); n > 0 {
				secs[n] = f.Size
			}
		}
		files[r.Table] = secs
	}
	out := map[string]map[int]int64{}
	for table, secs := range files {
		var sum int64
		for _, n := range secs {
			sum += n
		}
		planned := sizes[table][1]
		if sum == 0 || planned == 0 {
			continue
		}
		share := map[int]int64{}
		var given int64
		last := 0
		for sec, n := range secs {
			share[sec] = planned * n / sum
			given += share[sec]
			last = max(last, sec)
		}
		share[last] += planned - given // the rounding, so the shares add up
		out[table] = share
	}
	return out
}
