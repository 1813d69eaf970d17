package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/truebound"
	"github.com/oedl/oedl/internal/units"
)

// trueBoundOf is the least time any schedule of this run's work could
// take (internal/truebound), from the costs its journal measured and the
// utilities' CPU time in the work directory's rusage.json (dir "": none).
// The disk part needs the disk's bandwidth, which a run does not record:
// scripts/bench, which sets the disk, states it. Without it no job's time
// can be told from what the disk's other users cost it, so each counts at
// most the run's cheapest call (truebound's doc): a weak bound, but one.
// nil when no table was loaded.
func trueBoundOf(recs []journal.Record, p *plan.Plan, dir string) *truebound.Bound {
	in := truebound.FromJournal(recs, truebound.Planned(p))
	// The window's own journal has no create-target when the run kept a
	// target prepared before it; Prepared says so, whatever else is known.
	in.Prepared = len(recs) > 0 && recs[0].Job == journal.RunJob && recs[0].Prepared != nil
	if len(in.Tables) == 0 {
		return nil
	}
	if dir != "" {
		var ru childrenCPU
		if data, err := os.ReadFile(filepath.Join(dir, rusageFile)); err == nil && json.Unmarshal(data, &ru) == nil {
			in.CPU, in.Cores = ru.User+ru.Sys, runtime.NumCPU()
		}
	}
	b := truebound.Compute(in)
	return &b
}

// rusageFile and childrenCPU are the part of run.RusageFile the bound
// needs; package run imports report, so report cannot import run.
const rusageFile = "rusage.json"

type childrenCPU struct {
	User time.Duration `json:"children_user_ns"`
	Sys  time.Duration `json:"children_sys_ns"`
}

// trueBoundFact is the fact line: the bound, oedl's ratio to it, and what
// binds.
func trueBoundFact(d Data) string {
	if d.TrueBound == nil || !d.Finished {
		return ""
	}
	m := d.TrueBound.Max()
	if m.Time <= 0 {
		return ""
	}
	outage := d.Ended.Sub(d.Started)
	fact := fmt.Sprintf("%s, any schedule of this work (%s: %s); the outage is %.2fx it", units.FormatDuration(m.Time), m.Name, m.Note, d.TrueBound.Ratio(outage))
	if d.TrueBound.WeakMax() {
		// Calls alone: a floor, not a measure of how close the run came to
		// the limit, so no ratio (a 176x would read as a verdict).
		fact = fmt.Sprintf("at least %s, any schedule of this work (%s: %s): a weak bound, since a run does not record its disk's bandwidth (scripts/bench, which sets the disk, states the bound with it)", units.FormatDuration(m.Time), m.Name, m.Note)
	}
	// The disk part names the least before-image the loads write, work
	// of every schedule even when the bandwidth is not known here.
	if m.Name != d.TrueBound.Disk.Name {
		fact += "; disk: " + d.TrueBound.Disk.Note
	}
	return fact
}
