package tui

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/oedl/oedl/internal/schedule"
	"github.com/oedl/oedl/internal/units"
)

// Wait is one reason queued work waits, with how many jobs it holds back
// and the flag that would change it ("" when no flag does).
type Wait struct {
	Jobs int    `json:"jobs"`
	For  string `json:"for"`            // "area Small64_Data (1 load per area)", "a dump slot (4 at a time)"
	Flag string `json:"flag,omitempty"` // "--loads-per-area"
}

// String is "122 waiting for area Small64_Data (1 load per area; --loads-per-area)".
func (w Wait) String() string {
	s := fmt.Sprintf("%s waiting for %s", units.Thousands(int64(w.Jobs)), w.For)
	if w.Flag != "" {
		s = s[:len(s)-1] + "; " + w.Flag + ")"
	}
	return s
}

// Waiting says why the queued dumps and loads wait, most jobs first. It
// reads the queue the way the dispatcher fills slots: a load waits for its
// table's dump, then for its storage area (at most loads_per_area loads
// per area), then for a load slot (load_jobs); a dump waits for a dump
// slot (dump_jobs). What is left waits for other jobs (the target being
// created, a broker starting).
func (s *State) Waiting() []Wait {
	if s.Finished {
		return nil
	}
	set := func(k string) int { return int(s.Settings[k]) }
	running := map[string]int{}
	areaLoads := map[string]int{}
	for _, j := range s.running {
		running[j.Kind]++
		if j.Kind == "load" || j.Kind == "repair" {
			areaLoads[j.Area]++
		}
	}
	byArea := map[string]int{}
	var forDump, forLoadSlot, forDumpSlot, other int
	for _, j := range s.jobs {
		if j.Status != StatusQueued {
			continue
		}
		switch j.Kind {
		case "load":
			if d := s.jobs["dump:"+j.Table]; d != nil && !finished(d.Status) {
				forDump++
				continue
			}
			if per := set("loads_per_area"); per > 0 && j.Area != "" && areaLoads[j.Area] >= per {
				byArea[j.Area]++
				continue
			}
			if n := set("load_jobs"); n > 0 && running["load"]+running["repair"] >= n {
				forLoadSlot++
				continue
			}
			other++
		case "dump":
			busy := running["dump"]
			if !schedule.Served(set("dump_jobs")) {
				// A single-user source: its side jobs take the one dump
				// slot; a served one runs them beside the dumps, in no
				// slot (schedule.Build).
				busy += running["analyze-source"] + running["dump-df"] + running["dump-sequences"] + running["dump-security"]
			}
			if n := set("dump_jobs"); n > 0 && busy >= n {
				forDumpSlot++
				continue
			}
			other++
		}
	}
	var out []Wait
	per := set("loads_per_area")
	for area, n := range byArea {
		out = append(out, Wait{Jobs: n, For: fmt.Sprintf("area %s (%s per area)", area, plural(per, "load")), Flag: "--loads-per-area"})
	}
	if forLoadSlot > 0 {
		out = append(out, Wait{Jobs: forLoadSlot, For: fmt.Sprintf("a load slot (%d at a time)", set("load_jobs")), Flag: "--load-jobs"})
	}
	if forDumpSlot > 0 {
		out = append(out, Wait{Jobs: forDumpSlot, For: fmt.Sprintf("a dump slot (%d at a time)", set("dump_jobs")), Flag: "--dump-jobs"})
	}
	if forDump > 0 {
		out = append(out, Wait{Jobs: forDump, For: "their table's dump"})
	}
	if other > 0 {
		out = append(out, Wait{Jobs: other, For: "the steps before them"})
	}
	slices.SortStableFunc(out, func(a, b Wait) int {
		return cmp.Or(cmp.Compare(b.Jobs, a.Jobs), cmp.Compare(a.For, b.For))
	})
	return out
}

// plural is "1 load", "2 loads".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return units.Thousands(int64(n)) + " " + noun + "s"
}

// Critical is the table the finish waits for, and where its work is.
type Critical struct {
	Table      string `json:"table"`
	Kind       string `json:"kind"` // the job of it under way: dump or load ("" when none runs)
	Bytes      int64  `json:"bytes"`
	TotalBytes int64  `json:"total_bytes"`
}

// Fraction is how far its running job is, in [0,1].
func (c Critical) Fraction() float64 {
	if c.TotalBytes <= 0 {
		return 0
	}
	return clamp01(float64(c.Bytes) / float64(c.TotalBytes))
}

// CriticalTable is the ETA's bound_by table when it has one, else the
// running dump or load with the most bytes still to go: the table a DBA
// watches, since the others finish under it.
func (s *State) CriticalTable(eta ETA) (Critical, bool) {
	var best *Job
	left := func(j *Job) int64 { return max(j.TotalBytes-j.Bytes, 0) }
	for _, j := range s.running {
		if j.Table == "" || (j.Kind != "dump" && j.Kind != "load") {
			continue
		}
		if eta.BoundBy != "" {
			if j.Table == eta.BoundBy && (best == nil || j.Kind == "dump") {
				best = j
			}
			continue
		}
		if best == nil || left(j) > left(best) || (left(j) == left(best) && j.ID < best.ID) {
			best = j
		}
	}
	switch {
	case best != nil:
		return Critical{Table: best.Table, Kind: best.Kind, Bytes: best.Bytes, TotalBytes: best.TotalBytes}, true
	case eta.BoundBy != "":
		return Critical{Table: eta.BoundBy}, true
	}
	return Critical{}, false
}
