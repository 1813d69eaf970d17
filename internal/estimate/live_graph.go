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
	sections []Section
	landed   map[string]map[int]bool // table -> sections already in the graph
}

func (l *Live) leftGraph(left Left) (*leftGraph, error) {
	lg := &leftGraph{done: left.Done, running: left.Running, landed: map[string]map[int]bool{}}
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
// their place before the load barrier, as the dispatcher adds them) and
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
			j := built.SectionLoad(dump, s.Section, s.Records, s.Bytes)
			j.Before = nil
			barrier.Deps = append(barrier.Deps, j.ID)
			jobs = append(jobs, j)
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
