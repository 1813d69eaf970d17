package estimate

import (
	"time"

	"github.com/oedl/oedl/internal/schedule"
)

// leftGraph is what simulateFrom needs to turn the plan's graph into the
// graph of the work left.
type leftGraph struct {
	done     map[string]bool
	running  map[string]Running
	finished []Finished // the evidence, by the graph's job IDs
	sections []Section
	landed   map[string]map[int]bool // table -> sections already in the graph
}

func (l *Live) leftGraph(left Left) (*leftGraph, error) {
	lg := &leftGraph{done: left.Done, running: left.Running, finished: left.Finished, landed: map[string]map[int]bool{}}
	if l.in.Strategy.BatchLoads {
		built, err := schedule.Build(l.in.Plan, l.in.Strategy.BuildOptions(l.queueCost()))
		if err != nil {
			return nil, err
		}
		lg.foldBatches(built)
	}
	for _, s := range left.Sections {
		if s.Section < 1 {
			continue
		}
		if lg.landed[s.Table] == nil {
			lg.landed[s.Table] = map[int]bool{}
		}
		if !lg.landed[s.Table][s.Section] {
			lg.landed[s.Table][s.Section] = true
			lg.sections = append(lg.sections, s)
		}
	}
	return lg, nil
}

// runningFirst lifts a running job above every other ready job, so the
// simulated queue starts first what the run already has under way.
const runningFirst = time.Duration(1) << 52

// extend adds the sections landed so far to the graph Build made (with
// their place before the load barrier, as the dispatcher adds them, and
// their copies on several hosts) and
// puts the running jobs at the head of the queue.
func (lg *leftGraph) extend(built *schedule.Built) error {
	if len(lg.sections) > 0 {
		jobs := append([]*schedule.Job(nil), built.Jobs()...)
		barrier := built.Job(built.LoadBarrier)
		for _, s := range lg.sections {
			dump := built.Job(schedule.DumpID(s.Table))
			if dump == nil || dump.Threads <= 1 || built.Job(schedule.LoadID(s.Table, s.Section)) != nil {
				continue // not dumped in sections in this graph, or there already
			}
			// With its copy to the target's machine when the dump ran on
			// another one (done or not, as the run's events say): the
			// load depends on it.
			for _, j := range built.SectionJobs(dump, s.Section, s.Records, s.Bytes) {
				if j.Kind == schedule.KindLoad {
					j.Before = nil
					barrier.Deps = append(barrier.Deps, j.ID)
				}
				jobs = append(jobs, j)
			}
		}
		g, err := schedule.NewGraph(jobs)
		if err != nil {
			return err
		}
		built.Graph = g
	}
	for id := range lg.running {
		if j := built.Job(id); j != nil {
			j.TailCost += runningFirst
		}
	}
	return nil
}

// foldBatches turns the per-table events of load batches into the batch
// jobs of the graph. A run tells a batch as the loads of its tables
// (load:T, docs/events.md), the graph has one job per batch: it is done
// when every table of it is, running while one is (they start together;
// the run reports no progress inside a call), and the time it took is one
// observation, not one per table (its tables' job_finished all carry the
// batch's time). A batch some of whose tables a resume skipped is not
// done: it is simulated whole, a little late rather than early.
func (lg *leftGraph) foldBatches(built *schedule.Built) {
	batchOf := map[string]string{}
	done := make(map[string]bool, len(lg.done))
	for id, d := range lg.done {
		done[id] = d
	}
	running := make(map[string]Running, len(lg.running))
	for id, r := range lg.running {
		running[id] = r
	}
	for _, j := range built.Jobs() {
		if j.Kind != schedule.KindLoadBatch {
			continue
		}
		all := true
		for _, m := range j.Members {
			id := schedule.LoadID(m.Table, 0)
			batchOf[id] = j.ID
			all = all && lg.done[id]
			if r, ok := lg.running[id]; ok {
				running[j.ID] = Running{Elapsed: max(running[j.ID].Elapsed, r.Elapsed)}
			}
		}
		done[j.ID] = done[j.ID] || all // a caller may know the batch by its own ID
	}
	type call struct {
		batch string
		start time.Time
	}
	seen := map[call]bool{}
	var finished []Finished
	for _, f := range lg.finished {
		b, ok := batchOf[f.Job]
		if !ok {
			finished = append(finished, f)
			continue
		}
		if c := (call{b, f.Start}); !seen[c] {
			seen[c] = true
			finished = append(finished, Finished{Job: b, Start: f.Start, Elapsed: f.Elapsed})
		}
	}
	lg.done, lg.running, lg.finished = done, running, finished
}
