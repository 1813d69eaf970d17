package run

import (
	"fmt"
	"io"
	"sort"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/schedule"
)

// DryRun prints, job by job in the order the queue would start them with
// nothing else running (dependencies first, then the longest predicted path
// to the end), the utility calls the run would make. Nothing runs; the
// database files are not looked at.
func DryRun(w io.Writer, cfg Config) error {
	cfg.fill()
	if cfg.Work == "" {
		cfg.Work = "$WORK"
	}
	built, err := schedule.Build(cfg.Plan, cfg.buildOptions())
	if err != nil {
		return err
	}
	for _, j := range queueOrder(built.Graph) {
		cmds := Commands(cfg, j)
		note := ""
		switch j.Kind {
		case schedule.KindPreflight:
			note = "  (checks DLC, utilities, the plan, the source's schema, databases not in use, every target file new, disk space)"
		case schedule.KindVerify:
			note = "  (compares source.tba and target.tba table by table, writes verify.json)"
		case schedule.KindDump:
			if j.Threads > 1 {
				note = fmt.Sprintf("  (threaded: a load per .bd section is queued as each lands)")
			}
		}
		if _, err := fmt.Fprintf(w, "# %s%s\n", j.ID, note); err != nil {
			return err
		}
		for _, c := range cmds {
			fmt.Fprintln(w, execx.Quote(c))
		}
	}
	return nil
}

// queueOrder is a topological order that prefers, among ready jobs, the
// highest rank: the dispatcher's order on one slot.
func queueOrder(g *schedule.Graph) []*schedule.Job {
	rank := g.Ranks()
	left := map[string]int{}
	var ready []*schedule.Job
	for _, j := range g.Jobs() {
		left[j.ID] = len(j.Deps)
		if len(j.Deps) == 0 {
			ready = append(ready, j)
		}
	}
	var out []*schedule.Job
	for len(ready) > 0 {
		sort.SliceStable(ready, func(a, b int) bool {
			if rank[ready[a].ID] != rank[ready[b].ID] {
				return rank[ready[a].ID] > rank[ready[b].ID]
			}
			return ready[a].ID < ready[b].ID
		})
		j := ready[0]
		ready = ready[1:]
		out = append(out, j)
		for _, s := range g.Successors(j.ID) {
			left[s]--
			if left[s] == 0 {
				ready = append(ready, g.Job(s))
			}
		}
	}
	return out
}
