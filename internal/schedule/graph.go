package schedule

import (
	"fmt"
	"sort"
)

// Graph is a set of jobs and their dependencies.
type Graph struct {
	jobs  []*Job
	byID  map[string]*Job
	succs map[string][]string
}

// NewGraph checks the jobs (unique IDs, known dependencies, no cycle) and
// returns the graph.
func NewGraph(jobs []*Job) (*Graph, error) {
	g := &Graph{byID: make(map[string]*Job, len(jobs)), succs: map[string][]string{}}
	for _, j := range jobs {
		if err := g.add(j); err != nil {
			return nil, err
		}
	}
	for _, j := range g.jobs {
		for _, d := range j.Deps {
			if g.byID[d] == nil {
				return nil, fmt.Errorf("job %s depends on unknown job %s", j.ID, d)
			}
		}
	}
	if err := g.checkAcyclic(); err != nil {
		return nil, err
	}
	return g, nil
}

func (g *Graph) add(j *Job) error {
	if j.ID == "" {
		return fmt.Errorf("job without an ID (%s %s)", j.Kind, j.Table)
	}
	if g.byID[j.ID] != nil {
		return fmt.Errorf("duplicate job %s", j.ID)
	}
	g.jobs = append(g.jobs, j)
	g.byID[j.ID] = j
	for _, d := range j.Deps {
		g.succs[d] = append(g.succs[d], j.ID)
	}
	return nil
}

// Jobs returns the jobs in insertion order.
func (g *Graph) Jobs() []*Job { return g.jobs }

// Job returns the job with that ID, or nil.
func (g *Graph) Job(id string) *Job { return g.byID[id] }

// Successors returns the IDs of the jobs that depend on id.
func (g *Graph) Successors(id string) []string { return g.succs[id] }

func (g *Graph) checkAcyclic() error {
	const (
		white = iota
		grey
		black
	)
	color := make(map[string]int, len(g.jobs))
	var visit func(id string, path []string) error
	visit = func(id string, path []string) error {
		switch color[id] {
		case grey:
			return fmt.Errorf("dependency cycle: %v -> %s", path, id)
		case black:
			return nil
		}
		color[id] = grey
		for _, s := range g.succs[id] {
			if err := visit(s, append(path, id)); err != nil {
				return err
			}
		}
		color[id] = black
		return nil
	}
	for _, j := range g.jobs {
		if err := visit(j.ID, nil); err != nil {
			return err
		}
	}
	return nil
}

// Ranks returns, for every job, its predicted path length to the end of the
// graph: its own cost plus the longest rank among its successors. The
// dispatcher starts the ready job with the highest rank first.
func (g *Graph) Ranks() map[string]int64 {
	rank := make(map[string]int64, len(g.jobs))
	order := g.topo()
	for i := len(order) - 1; i >= 0; i-- {
		j := order[i]
		var best int64
		for _, s := range g.succs[j.ID] {
			if rank[s] > best {
				best = rank[s]
			}
		}
		rank[j.ID] = int64(j.Cost+j.TailCost) + best
	}
	return rank
}

// topo returns the jobs in a topological order (dependencies first), stable
// with respect to insertion order.
func (g *Graph) topo() []*Job {
	indeg := make(map[string]int, len(g.jobs))
	for _, j := range g.jobs {
		indeg[j.ID] = len(j.Deps)
	}
	var queue, out []*Job
	for _, j := range g.jobs {
		if indeg[j.ID] == 0 {
			queue = append(queue, j)
		}
	}
	for len(queue) > 0 {
		j := queue[0]
		queue = queue[1:]
		out = append(out, j)
		next := g.succs[j.ID]
		sort.Strings(next)
		for _, s := range next {
			indeg[s]--
			if indeg[s] == 0 {
				queue = append(queue, g.byID[s])
			}
		}
	}
	return out
}

// CriticalPath returns the chain of jobs with the longest total cost, from a
// job without dependencies to one without successors.
func (g *Graph) CriticalPath() []*Job {
	rank := g.Ranks()
	var start *Job
	for _, j := range g.jobs {
		if len(j.Deps) == 0 && (start == nil || rank[j.ID] > rank[start.ID]) {
			start = j
		}
	}
	var path []*Job
	for j := start; j != nil; {
		path = append(path, j)
		var next *Job
		for _, s := range g.succs[j.ID] {
			if next == nil || rank[s] > rank[next.ID] || (rank[s] == rank[next.ID] && s < next.ID) {
				next = g.byID[s]
			}
		}
		j = next
	}
	return path
}
