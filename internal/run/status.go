package run

import (
	"fmt"
	"path/filepath"
	"syscall"

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
	// alive. Killed: no end record and no process (resume it).
	Running bool
	Killed  bool
	PID     int
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
		if s.PID > 0 && syscall.Kill(s.PID, 0) == nil {
			s.Running = true
		} else {
			s.Killed = true
		}
	}
	return s, nil
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
	for _, r := range s.Records {
		e := r.Event()
		if sz, ok := sizes[r.Table]; ok && r.Section == 0 {
			e.TotalRecords, e.TotalBytes = sz[0], sz[1]
		}
		if r.Section > 0 && r.Kind == string(schedule.KindLoad) {
			e.TotalBytes = shares[r.Table][r.Section]
		}
		if e.Kind == event.RunStarted {
			e.TotalRecords, e.TotalBytes = total[0], total[1]
		}
		out = append(out, e)
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
