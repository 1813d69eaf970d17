package report

import (
	"sort"
	"time"

	"github.com/oedl/oedl/internal/schedule"
)

// CriticalSpans finds the chain of jobs that actually held the finish back:
// start from the span that ended last and walk back. A job waited for the
// dependency that ended last; when even that one ended well before the job
// started, the job was waiting for something else (a free slot, the
// per-area load cap, the exclusive idxbuild), and the span that ended last
// before it started, among the jobs sharing that resource, is what it
// waited for. The result maps job IDs to true and is what
// BarsFromSpans takes.
//
// This is the critical path of what happened, not of the prediction
// (schedule.Graph.CriticalPath): a table that dumped slower than expected
// shows up here even when the plan did not expect it to matter.
func CriticalSpans(res *schedule.Result) map[string]bool {
	crit := map[string]bool{}
	if res == nil || len(res.Spans) == 0 {
		return crit
	}
	byID := make(map[string]*schedule.Span, len(res.Spans))
	var last *schedule.Span
	for i := range res.Spans {
		s := &res.Spans[i]
		if s.Job == nil {
			continue
		}
		// A retried job has several spans: the last one counts.
		if prev := byID[s.Job.ID]; prev == nil || s.End.After(prev.End) {
			byID[s.Job.ID] = s
		}
		if last == nil || s.End.After(last.End) {
			last = s
		}
	}
	later := func(a, b *schedule.Span) bool { // a ended after b (ties by ID, for determinism)
		return b == nil || a.End.After(b.End) || (a.End.Equal(b.End) && a.Job.ID < b.Job.ID)
	}
	// The spans in "later" order (latest end first): the one a job waited
	// for is the first eligible span from where the ends reach its start,
	// found by a binary search instead of a scan of every span per step of
	// the chain (which made the report quadratic in the jobs: 6 s for a
	// 5,000-table run).
	ordered := make([]*schedule.Span, 0, len(byID))
	for _, o := range byID {
		ordered = append(ordered, o)
	}
	sort.Slice(ordered, func(i, j int) bool { return later(ordered[i], ordered[j]) })
	tol := waitTolerance(res)
	for s := last; s != nil && !crit[s.Job.ID]; {
		crit[s.Job.ID] = true
		var next *schedule.Span
		for _, d := range s.Job.Deps {
			if ds := byID[d]; ds != nil && !crit[d] && later(ds, next) {
				next = ds
			}
		}
		if next == nil || s.Start.Sub(next.End) > tol {
			limit := s.Start.Add(tol)
			from := sort.Search(len(ordered), func(i int) bool { return !ordered[i].End.After(limit) })
			for _, o := range ordered[from:] {
				if !crit[o.Job.ID] && sharesResource(s.Job, o.Job) {
					if later(o, next) {
						next = o
					}
					break // every span after o ended before it
				}
			}
		}
		s = next
	}
	return crit
}

// waitTolerance is how close a job's start must follow an end for the job
// to have been waiting for it: the dispatcher starts the next job within
// milliseconds of a slot freeing. Short runs (the demo, tests) scale it
// down so that everything is not "just after" everything else.
func waitTolerance(res *schedule.Result) time.Duration {
	return min(time.Second, max(10*time.Millisecond, res.End.Sub(res.Start)/1000))
}

// sharesResource reports whether waiting could have held a behind o: the
// same slot class (a dump waits for a dump slot), the same target area (the
// per-area load cap, a repair), or one being exclusive and the other on
// the target (idxbuild runs alone there; the source's jobs go on).
func sharesResource(a, o *schedule.Job) bool {
	switch {
	case a.Exclusive && !schedule.SourceSide(o), o.Exclusive && !schedule.SourceSide(a):
		return true
	case a.Slot != schedule.SlotNone && a.Slot == o.Slot:
		return true
	case a.Area != "" && a.Area == o.Area:
		return true
	}
	return false
}
