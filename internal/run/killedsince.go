package run

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/manifest"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/schedule"
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
// utility of the killed run that was never journalled and has ended is
// not told from a stranger by its PID, but by when and how many: its lines
// are written within killWindow of the journal's last record, and the
// journal bounds how many there can be (unrecordedAllowance: one per job
// in flight). An unknown process writing later than that, or more of them
// than that, refuses the resume. The cost: an unrecorded utility of the
// killed run that ran longer than killWindow and ended before the resume
// is refused too (the kill must land in the milliseconds between its
// start and its record). What the log cannot tell refuses as well: a
// remote client's entry (its PID left blank), and lines oedl cannot give a
// time and a process (Progress 9 and OpenEdge 10.0 write no PID; a lost
// machine leaves NULs) unless a later entry proves them older than the
// kill (readLogSince; docs/decisions.md, "What OpenEdge's logs really
// look like").

// killWindow bounds when the killed run's unrecorded utilities write: one
// is started right after a record (its job's start, or the end that freed
// its slot) and oedl was killed before its own record, milliseconds later;
// the resume then finds it still running by its mark, or it ended within
// the window. A line of an unknown process later than this after the
// journal's last record is someone else's.
const killWindow = 3 * time.Second

// clockStepBack is how far an entry may be stamped before one written
// above it in the log before the machine's clock is taken to have stepped
// back (an NTP step, a DBA's date, a VM restored): processes writing at
// once interleave their lines by milliseconds, never by a second.
const clockStepBack = time.Second

// journalledPIDs are the processes the journal says the run started: its
// utilities and its brokers. On a run across hosts, only those of hosts
// on the target's machine (onTarget, by the host a Running record names,
// else its job's): a PID of another machine names nothing in the
// target's log. nil onTarget: every one (one machine).
func journalledPIDs(recs []journal.Record, onTarget func(host string) bool) map[int]bool {
	out := map[int]bool{}
	jobHost := map[string]string{}
	for _, r := range recs {
		if r.State == journal.Started {
			jobHost[r.Job] = r.Host
		}
		host := r.Host
		if host == "" {
			host = jobHost[r.Job]
		}
		if onTarget != nil && !onTarget(host) {
			continue
		}
		if r.Proc != nil {
			out[r.Proc.PID] = true
		}
		if r.Broker != nil {
			out[r.Broker.PID] = true
		}
	}
	return out
}

// logSince is what the target's log says of the time since the journal's
// last record.
type logSince struct {
	// foreign are the first lines at or after it of each process the run
	// did not start, in the order they appear.
	foreign []logLine
	// remote is the first entry at or after it with no process id: a
	// remote client's (Database Administration, "OpenEdge database log
	// file": "The process id is blank for remote clients"), never the
	// run's, which connects none.
	remote *logLine
	// unplaced is the first line oedl cannot give a time and a process
	// (the pre-10.1A layout, which has none; bytes of no layout) that no
	// later entry proves written before it.
	unplaced *logLine
}

// readLogSince reads the log at lg (openedge.ParseLogLine): the entries
// at or after since of processes not in ours, and the lines that cannot be
// placed (none of it when the log does not exist). A line of no layout
// after an entry (blank lines between passed over, as Progress's LogRead
// does) is that entry's message going on: a long message wraps. Any other,
// or one with a NUL, is unplaced unless an entry after it is older than
// since, since a log is only appended to.
func readLogSince(view manifest.FS, lg string, since time.Time, ours map[int]bool) (logSince, error) {
	var out logSince
	f, err := openLog(view, lg)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return out, err
	}
	defer f.Close()
	since = since.Truncate(time.Millisecond) // the log's precision
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	seen := map[int]bool{}
	// latest is the latest time of the entries above; stepped, that an
	// entry was stamped clockStepBack before it: the clock stepped back,
	// and a log is only appended to, so that entry and every one below it
	// were written after the ones above whatever their stamps say. The
	// clock stepped back an hour between the kill and the DBA's session
	// stamped his lines before the journal's last record, and the resume
	// took them for the killed run's time (safety trial 14).
	var latest time.Time
	stepped := false
	n := 0
	continues := false // the line before was an entry or its continuation
	for sc.Scan() {
		n++
		text := strings.TrimSuffix(sc.Text(), "\r")
		at := logLine{n: n, text: text}
		l := openedge.ParseLogLine(text)
		switch l.Kind {
		case openedge.LogEntry:
			continues = true
			at.at = l.At
			if !latest.IsZero() && l.At.Before(latest.Add(-clockStepBack)) {
				stepped = true
			}
			if l.At.After(latest) {
				latest = l.At
			}
			switch {
			case l.At.Before(since) && !stepped:
				out.unplaced = nil // written before this entry
			case l.PID == 0:
				if out.remote == nil {
					out.remote = &at
				}
			case !ours[l.PID] && !seen[l.PID]:
				seen[l.PID] = true
				out.foreign = append(out.foreign, at)
			}
		case openedge.LogOther:
			// A NUL is no message's text: bytes a lost machine never
			// wrote, whoever was writing them.
			if (!continues || strings.ContainsRune(text, 0)) && out.unplaced == nil {
				out.unplaced = &at
			}
		case openedge.LogOldEntry:
			continues = false
			if out.unplaced == nil {
				out.unplaced = &at
			}
		case openedge.LogDate: // a session begins: its entries follow
			continues = false
		}
	}
	return out, sc.Err()
}

// openLog opens the log at lg through view: on a run across hosts, the
// target host's (hostfs, read whole over its connection), whose processes
// the PIDs name; on this machine, the file.
func openLog(view manifest.FS, lg string) (io.ReadCloser, error) {
	if fr, ok := view.(manifest.FileReader); ok {
		data, err := fr.ReadFile(lg)
		if err != nil {
			return nil, err
		}
		return io.NopCloser(bytes.NewReader(data)), nil
	}
	return os.Open(lg)
}

// The log is the evidence only while it holds every line the run saw: a
// DBA who empties, removes or replaces it (> DB.lg, rm, a copy; PROLOG's
// cut is refused by its cut line too) between the kill and the resume
// removes the lines that would refuse it. So each job that opened the
// target journals the log as it left it (TargetLog: device, inode,
// creation time, size), and the resume of a killed run refuses a log that
// is another file than the last one seen, or shorter: nobody can prove
// the target unused any more, unless the DBA says he knows (--force).

// opensTarget says whether j opens the target database: its done record
// says what its log was then.
func opensTarget(j *schedule.Job) bool {
	return j.DB == schedule.DBTarget || j.Kind == schedule.KindLoad || j.Kind == schedule.KindLoadBatch
}

// targetLogSeen is the target's log now, on its host (nil when there is
// none, or it cannot be read: nothing journalled, nothing proven later).
func (c *Config) targetLogSeen(ctx context.Context) *journal.LogSeen {
	host := ""
	if l := c.hostLayout(); l != nil {
		host = l.Target
	}
	lg := c.Target + manifest.SuffixLog
	got, err := c.machine(host).fs.Lstat(ctx, lg)
	if err != nil {
		return nil
	}
	i, ok := got[lg]
	if !ok || !i.Mode.IsRegular() {
		return nil
	}
	return &journal.LogSeen{Dev: i.Dev, Ino: i.Ino, Birth: i.Birth, Size: i.Size}
}

// lastLogSeen is the target's log as the journal last saw it, and the
// record that says so; nil when a creation of the target started since
// (a new database, a new log) or none was recorded.
func lastLogSeen(recs []journal.Record) (*journal.LogSeen, int64) {
	for i := len(recs) - 1; i >= 0; i-- {
		r := recs[i]
		if r.Job == string(schedule.KindCreateTarget) && r.State == journal.Started {
			return nil, 0
		}
		if r.TargetLog != nil {
			return r.TargetLog, r.Seq
		}
	}
	return nil, 0
}

// logShrunk says how the target's log differs from what the journal last
// saw, in a way that loses lines ("" when it holds all it held).
func logShrunk(seen, now *journal.LogSeen) string {
	switch {
	case now == nil:
		return fmt.Sprintf("it is gone (it was %d bytes)", seen.Size)
	case now.Dev != seen.Dev || now.Ino != seen.Ino || (now.Birth != 0 && seen.Birth != 0 && now.Birth != seen.Birth):
		return fmt.Sprintf("it is another file, made since (inode %d, %d bytes; it was inode %d, %d bytes)", now.Ino, now.Size, seen.Ino, seen.Size)
	case now.Size < seen.Size:
		return fmt.Sprintf("it is %d bytes, it was %d", now.Size, seen.Size)
	}
	return ""
}

// logLine is a line of a database's log and its number.
type logLine struct {
	n    int
	at   time.Time
	text string
}

// singleCall are the job kinds whose attempt runs one utility: one whose
// process the journal recorded after its latest start has none left
// unrecorded. Any other job in flight (create-target's prostrct, procopy
// and _progres; a serve's truncate, proserve, its broker, probiw and
// proapw) may have started one more, or a broker, that the kill left
// unrecorded.
var singleCall = map[string]bool{"dump": true, "load": true, "load-batch": true, "analyze-source": true,
	"analyze-target": true, "dump-df": true, "dump-sequences": true, "load-sequences": true, "shutdown": true}

// unrecordedAllowance is how many processes the killed run may have started
// without the journal naming them: per job in flight at the kill, one
// utility between its start and its Running record (none for a
// single-call job whose process is recorded); for a serve in flight, its
// broker until its done record names it, and each of its calls, since the
// target's helpers (probiw, proapw) start together (serveCalls, the most
// a serve of this run makes).
func unrecordedAllowance(recs []journal.Record, serveCalls int) int {
	type flight struct {
		kind       string
		proc, open bool
	}
	jobs := map[string]*flight{}
	for _, r := range recs {
		if r.Job == "" || r.Job == journal.RunJob {
			continue
		}
		j := jobs[r.Job]
		if j == nil {
			j = &flight{}
			jobs[r.Job] = j
		}
		switch r.State {
		case journal.Started:
			// A batch's member runs no utility of its own: the batch's
			// call is the batch job's.
			*j = flight{kind: r.Kind, open: true, proc: r.Batch != ""}
		case journal.Running:
			j.proc = j.proc || r.Proc != nil
		case journal.Done, journal.Failed:
			j.open = false
		}
	}
	n := 0
	for _, j := range jobs {
		if !j.open {
			continue
		}
		if !j.proc || !singleCall[j.kind] {
			n++
		}
		if j.kind == "serve" {
			n += max(1, serveCalls) // its broker, and its calls beside each other
		}
	}
	return n
}

// noSessionSinceKill refuses a resume of a killed run onto its own target
// when the target's log shows a session the run did not start since the
// journal's last record.
func (r *runner) noSessionSinceKill(view manifest.FS, rec *manifest.Record) error {
	c := r.cfg
	if rec == nil || r.lastRecord.IsZero() {
		return nil
	}
	lg := c.Target + manifest.SuffixLog
	if r.logSeen != nil && !c.Force {
		if why := logShrunk(r.logSeen, c.targetLogSeen(context.Background())); why != "" {
			return precondition("the target %s may have been used since this run was killed: its log %s lost lines the journal saw (record %d): %s. Emptied, removed or replaced (> DB.lg, rm, prolog, a copy), it no longer shows who opened the target since, and the resume would remove it or truncate its areas. %s; if you know nobody used it, resume with --force",
				c.Target, lg, r.logSeenAt, why, strings.TrimSuffix(usedSinceRemedy(c), "."))
		}
	}
	read, err := readLogSince(view, lg, r.lastRecord, r.ownPIDs)
	if err != nil {
		return precondition("the target's log %s (read to prove no one used the target since this run was killed): %v", lg, err)
	}
	others := read.foreign
	var late []logLine
	for _, o := range others {
		if o.at.After(r.lastRecord.Add(killWindow)) {
			late = append(late, o)
		}
	}
	killed := r.lastRecord.Local().Format("2006-01-02 15:04:05.000")
	switch {
	case len(late) > 0 || len(others) > r.unrecorded:
		first := others[0]
		why := fmt.Sprintf("more than the %d the kill may have left unrecorded", r.unrecorded)
		if len(late) > 0 {
			first = late[0]
			why = fmt.Sprintf("later than the killed run's own could write (%s after its last record)", killWindow)
		}
		return precondition("the target %s was used since this run was killed (its journal's last record is at %s): its log %s line %d was written by a process this run never started, %q (%d such process(es) since, %s). Someone opened it (a DBA serving it, loading it by hand, going live on it), and the resume would remove it or truncate its areas: it is not the run's to write any more. %s",
			c.Target, killed, lg, first.n, first.text, len(others), why, usedSinceRemedy(c))
	case read.remote != nil:
		return precondition("the target %s was used since this run was killed (its journal's last record is at %s): its log %s line %d is a remote client's entry, %q (OpenEdge leaves the process id blank for one), and this run connects none. Someone served it and connected to it over the network, and the resume would remove it or truncate its areas. %s",
			c.Target, killed, lg, read.remote.n, read.remote.text, usedSinceRemedy(c))
	case read.unplaced != nil:
		return precondition("the target %s may have been used since this run was killed (its journal's last record is at %s): its log %s line %d, %q, has no time and process id oedl can read (the layout since OpenEdge 10.1A is \"[YYYY/MM/DD@HH:MM:SS.mmm+ZZZZ] P-pid T-tid ...\"; Progress 9 and OpenEdge 10.0 write \"HH:MM:SS\" with no date and no process), and no later line proves it older than that record. oedl cannot tell whose it is, and the resume would remove the target or truncate its areas. %s",
			c.Target, killed, lg, read.unplaced.n, read.unplaced.text, usedSinceRemedy(c))
	}
	return nil
}

// usedSinceRemedy is what the DBA does with a target someone may have used
// since the run was killed.
func usedSinceRemedy(c *Config) string {
	return fmt.Sprintf("Check what it is; if nothing in it is needed, remove it yourself (prodel %s, or rm of the files %s names) and resume, which creates it again; otherwise keep it and start any new migration in a new --work with another --target",
		execx.ShellQuote(c.Target), filepath.Base(manifest.RecordPath(c.Target)))
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
