package report

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/schedule"
)

// criticalSpansByScan is CriticalSpans as it was before the binary
// search: every span scanned at each step of the chain. The search must
// pick the very same chain.
func criticalSpansByScan(res *schedule.Result) map[string]bool {
	crit := map[string]bool{}
	byID := map[string]*schedule.Span{}
	var last *schedule.Span
	for i := range res.Spans {
		s := &res.Spans[i]
		if prev := byID[s.Job.ID]; prev == nil || s.End.After(prev.End) {
			byID[s.Job.ID] = s
		}
		if last == nil || s.End.After(last.End) {
			last = s
		}
	}
	later := func(a, b *schedule.Span) bool {
		return b == nil || a.End.After(b.End) || (a.End.Equal(b.End) && a.Job.ID < b.Job.ID)
	}
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
			for _, o := range byID {
				if !crit[o.Job.ID] && !o.End.After(s.Start.Add(tol)) && later(o, next) && sharesResource(s.Job, o.Job) {
					next = o
				}
			}
		}
		s = next
	}
	return crit
}

// Random runs (slots, areas, an exclusive job, dependencies, retries,
// equal end times) give the same critical path as the scan.
func TestCriticalSpansAsTheScan(t *testing.T) {
	slots := []schedule.Slot{schedule.SlotNone, schedule.SlotDump, schedule.SlotLoad}
	t0 := time.Date(2026, 11, 27, 19, 0, 0, 0, time.UTC)
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 7))
		n := 1 + r.IntN(60)
		res := &schedule.Result{Start: t0, End: t0}
		var jobs []*schedule.Job
		for i := range n {
			j := &schedule.Job{ID: fmt.Sprintf("j%02d", i), Slot: slots[r.IntN(len(slots))], Exclusive: r.IntN(20) == 0}
			if r.IntN(2) == 0 {
				j.Area = fmt.Sprintf("a%d", r.IntN(3))
			}
			for range r.IntN(3) {
				if i > 0 {
					j.Deps = append(j.Deps, jobs[r.IntN(i)].ID)
				}
			}
			jobs = append(jobs, j)
			for range 1 + r.IntN(2) { // a retried job has two spans
				start := t0.Add(time.Duration(r.IntN(40)) * time.Second)
				end := start.Add(time.Duration(r.IntN(8)) * time.Second) // whole seconds: ties
				res.Spans = append(res.Spans, schedule.Span{Job: j, Start: start, End: end})
				if end.After(res.End) {
					res.End = end
				}
			}
		}
		require.Equal(t, criticalSpansByScan(res), CriticalSpans(res), "seed %d", seed)
	}
}
