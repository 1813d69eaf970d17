package run

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/manifest"
)

// A run killed (kill -9, a lost machine) ends with no stamp on its
// target's record, so its resume takes every change of the target as its
// own: the no-integrity rebuild removes it, a crash-safe resume truncates
// its dirty areas (ownleft.go checks only a target an invocation left when
// it ended). The DBA who, after the kill, serves the half-loaded target and
// writes into it would lose his work to the resume given from the shell's
// history (safety trial 12). File states cannot tell his writes from the
// killed run's: its utilities may go on writing after oedl died.
//
// The target's log can: every OpenEdge process that opens a database
// writes its lines to DB.lg stamped with the time and its PID
// ("[2026/11/28@15:29:41.050+0000] P-27432 T-0 I PROUTIL : ..."), and
// the journal records every utility the run started (a Running record's
// Proc, right after it starts) and every broker its serves started
// (Broker, from proserve's (5644)). So a line written after the journal's
// last record by a process the journal never started is someone else's
// session on the run's target: the resume is refused, exit 3, naming the
// line. Lines of the killed run's own utilities still running after the
// kill carry journalled PIDs, or, started but not yet journalled when oedl
// was killed, the run's mark (WorkEnv), by which the resume finds and
// stops them (ownProc); the resume's own calls come after this check. A
// utility of the killed run that was never journalled and ended before
// the resume is not told from a stranger: refused, the safe side.

// lgLine is the time and PID of an OpenEdge log line.
var lgLine = regexp.MustCompile(`^\[(\d{4}/\d{2}/\d{2}@\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{4})\]\s+P-(\d+)\s`)

const lgTime = "2006/01/02@15:04:05.000-0700"

// journalledPIDs are the processes the journal says the run started: its
// utilities and its brokers.
func journalledPIDs(recs []journal.Record) map[int]bool {
	out := map[int]bool{}
	for _, r := range recs {
		if r.Proc != nil {
			out[r.Proc.PID] = true
		}
		if r.Broker != nil {
			out[r.Broker.PID] = true
		}
	}
	return out
}

// foreignSession is the first line of the log at lg written at or after
// since by a process not in ours, with its line number ("" when none; a
// log that does not exist holds none).
func foreignSession(lg string, since time.Time, ours map[int]bool) (string, int, error) {
	f, err := os.Open(lg)
	if os.IsNotExist(err) {
		return "", 0, nil
	}
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	since = since.Truncate(time.Millisecond) // the log's precision
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		m := lgLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		at, err := time.Parse(lgTime, m[1])
		if err != nil || at.Before(since) {
			continue
		}
		if pid, err := strconv.Atoi(m[2]); err == nil && !ours[pid] {
			return sc.Text(), n, nil
		}
	}
	return "", 0, sc.Err()
}

// noSessionSinceKill refuses a resume of a killed run onto its own target
// when the target's log shows a session the run did not start since the
// journal's last record.
func (r *runner) noSessionSinceKill(rec *manifest.Record) error {
	c := r.cfg
	if rec == nil || r.lastRecord.IsZero() {
		return nil
	}
	lg := c.Target + manifest.SuffixLog
	line, n, err := foreignSession(lg, r.lastRecord, r.ownPIDs)
	if err != nil {
		return precondition("the target's log %s (read to prove no one used the target since this run was killed): %v", lg, err)
	}
	if line == "" {
		return nil
	}
	return precondition("the target %s was used since this run was killed (its journal's last record is at %s): its log %s line %d was written by a process this run never started: %q. Someone opened it (a DBA serving it, loading it by hand, going live on it), and the resume would remove it or truncate its areas: it is not the run's to write any more. Check what it is; if nothing in it is needed, remove it yourself (prodel %s, or rm of the files %s names) and resume, which creates it again; otherwise keep it and start any new migration in a new --work with another --target",
		c.Target, r.lastRecord.Local().Format("2006-01-02 15:04:05.000"), lg, n, line, execx.ShellQuote(c.Target), filepath.Base(manifest.RecordPath(c.Target)))
}

// ownProc counts pid among the killed run's processes: a broker proven its
// (killedRunServes: journalled, or carrying the run's mark) or a utility
// still running with the run's mark when the resume began, which a kill
// between its start and its journal record left unnamed.
func (r *runner) ownProc(pid int) {
	if r.ownPIDs == nil {
		r.ownPIDs = map[int]bool{}
	}
	r.ownPIDs[pid] = true
}

// lastRecordTime is when the journal's last record was written.
func lastRecordTime(recs []journal.Record) time.Time {
	if len(recs) == 0 {
		return time.Time{}
	}
	return recs[len(recs)-1].Time
}

