package run

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/schedule"
	"github.com/oedl/oedl/internal/sysproc"
)

// startedBrokers are the brokers the journal's serve jobs started and no
// shutdown stopped, by database, as their done records identify them
// (journal.Record.Broker). A serve started again (a resume's) forgets the
// broker of the one before: until its done record, the broker serving
// the database is the new proserve's, which the journal does not name.
func startedBrokers(recs []journal.Record) map[string]sysproc.ID {
	out := map[string]sysproc.ID{}
	for _, r := range recs {
		if db, ok := strings.CutPrefix(r.Job, schedule.ServeID("")); ok {
			switch {
			case r.State == journal.Started:
				delete(out, db)
			case r.State == journal.Done && r.Broker != nil:
				out[db] = *r.Broker
			}
		}
		if db, ok := strings.CutPrefix(r.Job, schedule.ShutdownID("")); ok && r.State == journal.Done {
			delete(out, db)
		}
	}
	return out
}

// killedRunServes says whether the broker serving database which is the
// one a killed run started, which the resume may shut down. The journal's
// serve is not enough: after the kill the DBA may have shut that broker
// down and served the database again himself, for his users, and a
// proshut -by would disconnect them without notice. So the broker must be
// proven the killed run's: the process the journal identifies (its PID
// and start time, read on the database's host), or, where the journal
// names none (a journal from before oedl recorded brokers, a kill between
// proserve and its record), a broker of that host carrying this run's
// mark (markedBroker). A broker proven neither is refused, not shut down
// (unidentifiedBroker). When the killed run's broker is gone the run
// forgets it, and the database counts as served by someone else.
func (r *runner) killedRunServes(ctx context.Context, which string) (bool, error) {
	if !r.servedByUs[which] {
		return false, nil
	}
	id, known := r.brokers[which]
	if !known {
		marked, err := r.markedBroker(ctx, which)
		if err != nil {
			return false, err
		}
		if marked == nil {
			return false, r.unidentifiedBroker(which)
		}
		r.brokers[which] = *marked
		return true, nil
	}
	alive, err := r.brokerAlive(ctx, which, id)
	if err != nil || alive {
		return alive, err
	}
	r.servedByUs[which] = false
	r.notice(fmt.Sprintf("the broker the killed run started on %s%s (pid %d) is gone: the one serving it now is someone else's, and oedl leaves it up",
		r.cfg.db(which), r.onHost(which), id.PID))
	return false, nil
}

// unidentifiedBroker refuses to shut down a broker the resume cannot
// prove the killed run's: it may be one the DBA started since, with his
// users on it.
func (r *runner) unidentifiedBroker(which string) error {
	c := r.cfg
	db := c.db(which)
	return precondition("%s%s is served (276) by a broker this run cannot prove its own: the journal's serve of it names no broker "+
		"(a journal from before oedl recorded them, or a kill between proserve and that record) and no _mprosrv of that database on its host carries this run's mark (%s), "+
		"so it may be one started since for users, and oedl does not shut it down. If it is the killed run's (ps -ef | grep _mprosrv%s), shut it down (proshut %s -by), then resume again",
		db, r.onHost(which), c.runMarker(), r.onHost(which), execx.ShellQuote(db))
}

// onHost is " on HOST" for a database of a run across hosts.
func (r *runner) onHost(which string) string {
	if h := r.cfg.atDB(which).host; h != "" {
		return " on " + h
	}
	return ""
}

// brokerAlive says whether the broker id still runs, on the host of
// database which: there by its /proc (over ssh for a remote host).
func (r *runner) brokerAlive(ctx context.Context, which string, id sysproc.ID) (bool, error) {
	host := r.cfg.atDB(which).host
	if !r.cfg.machine(host).remote {
		return id.Alive(), nil
	}
	now, running, err := r.cfg.procOn(ctx, host, id.PID)
	if err != nil {
		return false, precondition("host %s: whether the broker the killed run started on %s (pid %d) still runs: %v", host, r.cfg.db(which), id.PID, err)
	}
	return running && id.Same(now), nil
}

// procScript prints /proc/$1/stat and the boot's id; it exits 3 when the
// process is gone.
const procScript = `cat "/proc/$1/stat" 2>/dev/null || exit 3; cat /proc/sys/kernel/random/boot_id`

// procOn names process pid on a host (sysproc.Parse of what its /proc
// says); a process that is gone is not running.
func (c *Config) procOn(ctx context.Context, host string, pid int) (sysproc.ID, bool, error) {
	m := c.machine(host)
	if !m.remote {
		id, err := sysproc.Of(pid)
		return id, err == nil && id.Alive(), nil
	}
	var out strings.Builder
	res, err := m.runner.Run(ctx, execx.Cmd{Path: "sh", Args: []string{"-c", procScript, "sh", strconv.Itoa(pid)}, Stdout: &out, Timeout: time.Minute})
	if res.ExitCode == 3 {
		return sysproc.ID{}, false, nil
	}
	if err != nil {
		return sysproc.ID{}, false, fmt.Errorf("%v: %s", err, strings.TrimSpace(res.Output))
	}
	text := strings.TrimRight(out.String(), "\n")
	i := strings.LastIndexByte(text, '\n')
	if i < 0 {
		return sysproc.ID{}, false, fmt.Errorf("/proc/%d/stat and boot_id: %q", pid, text)
	}
	return sysproc.Parse(pid, []byte(text[:i]), text[i+1:])
}

// markedBroker finds, on the host of database which, the broker of it
// that this run started (it carries the run's mark, WorkEnv): nil when
// there is none.
func (r *runner) markedBroker(ctx context.Context, which string) (*sysproc.ID, error) {
	c := r.cfg
	marks, err := c.brokerMarks(ctx, which, r.logWriter())
	if err != nil {
		return nil, precondition("find the broker the killed run started on %s%s: %v", c.db(which), r.onHost(which), err)
	}
	for _, b := range marks {
		if b.work != c.at("").workMarker() {
			continue
		}
		if id, running, err := c.procOn(ctx, c.atDB(which).host, b.pid); err == nil && running {
			return &id, nil
		}
	}
	return nil, nil
}
