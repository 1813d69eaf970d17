package run

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/schedule"
	"github.com/oedl/oedl/internal/sysproc"
)

// WorkEnv is the variable oedl puts in the environment of every utility
// it starts, set to the work directory: a resume finds by it the
// utilities a killed run left running, even one started an instant
// before the kill, before its PID reached the journal, and whatever a
// utility started in turn.
const WorkEnv = "OEDL_RUN_WORK"

// Bounds of stopping a killed run's utilities: SIGTERM, then SIGKILL.
var (
	orphanTermWait = 10 * time.Second
	orphanKillWait = 10 * time.Second
)

// orphan is a utility process a killed run left running.
type orphan struct {
	id  sysproc.ID
	job string // "" when found by WorkEnv alone
}

func (o orphan) String() string {
	if o.job == "" {
		return fmt.Sprintf("pid %d", o.id.PID)
	}
	return fmt.Sprintf("%s (pid %d)", o.job, o.id.PID)
}

// stopOrphans makes sure nothing the earlier invocations started still
// runs before this one repairs, truncates or loads anything: a load the
// killed run left running would go on writing into an area the resume
// truncates and reloads, and the table would be loaded twice.
//
// The brokers the killed run started are shut down first, with proshut
// -by: it disconnects their clients (the OpenEdge documentation: an
// unconditional shutdown that disconnects all users without notice and
// backs out their transactions), and a DBA never kills a broker with an
// operating system command. Then every utility the journal names (PID,
// start time and boot: a PID given to another process since is left
// alone) or that carries this work directory in WorkEnv gets SIGTERM,
// SIGKILL when it has not gone within orphanTermWait, and is waited for.
// What does not go is a precondition naming each process.
func (r *runner) stopOrphans(ctx context.Context, rp *journal.Replayed) error {
	c := r.cfg
	for _, which := range []string{schedule.DBSource, schedule.DBTarget} {
		if !r.servedByUs[which] {
			continue
		}
		db := c.db(which)
		if !exists(db + ".db") {
			r.servedByUs[which] = false
			continue
		}
		shut, err := r.shutDownKilledBroker(ctx, which)
		if err != nil {
			return err
		}
		if shut {
			r.notice(fmt.Sprintf("shut down the broker the killed run left on %s", db))
		}
	}
	orphans := r.findOrphans(rp)
	for _, o := range orphans {
		r.ownProc(o.id.PID) // the killed run's, journalled or marked (killedsince.go)
	}
	if len(orphans) == 0 {
		return nil
	}
	names := make([]string, len(orphans))
	ids := make([]sysproc.ID, len(orphans))
	for i, o := range orphans {
		names[i], ids[i] = o.String(), o.id
	}
	r.notice(fmt.Sprintf("stopping %d process(es) the killed run left running, before anything is repaired: %s",
		len(orphans), strings.Join(names, ", ")))
	for _, id := range ids {
		_ = id.Signal(syscall.SIGTERM)
	}
	left := sysproc.WaitGone(ids, orphanTermWait)
	for _, id := range left {
		_ = id.Signal(syscall.SIGKILL)
	}
	if left = sysproc.WaitGone(left, orphanKillWait); len(left) > 0 {
		var pids []string
		for _, id := range left {
			pids = append(pids, fmt.Sprint(id.PID))
		}
		return precondition("utilities of the killed run are still running after SIGKILL (pid %s): a process that ignores SIGKILL waits on the kernel (a hung disk or NFS mount); once `ps -p %s` lists none of them, resume again",
			strings.Join(pids, ", "), strings.Join(pids, ","))
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return nil
}

// findOrphans lists the utilities of earlier invocations still running:
// those the journal recorded, then those only WorkEnv names.
func (r *runner) findOrphans(rp *journal.Replayed) []orphan {
	seen := map[int]bool{}
	var out []orphan
	for _, p := range rp.Procs() {
		if p.Proc.Alive() && !seen[p.Proc.PID] {
			seen[p.Proc.PID] = true
			out = append(out, orphan{id: p.Proc, job: p.Job})
		}
	}
	marked := sysproc.WithEnv(WorkEnv, r.cfg.workMarker())
	sort.Slice(marked, func(a, b int) bool { return marked[a].PID < marked[b].PID })
	for _, id := range marked {
		if !seen[id.PID] {
			seen[id.PID] = true
			out = append(out, orphan{id: id})
		}
	}
	return out
}

// notice tells the DBA (screen, JSON stream, oedl.log) what the run did
// outside the job graph.
func (r *runner) notice(msg string) {
	r.cfg.Log.Warn(msg)
	r.cfg.Events.Emit(event.Event{V: event.SchemaVersion, Time: time.Now(), Kind: event.Warning, Message: msg})
}
