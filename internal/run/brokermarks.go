package run

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/oedl/oedl/internal/execx"
)

// A broker is this run's only when it carries this run's mark: WorkEnv,
// the work directory, which every utility oedl starts gets in its
// environment (Config.env) and which no two running oedl share (the work
// directory's lock). The mark is read from the broker's own process
// (/proc/PID/environ, as started; its argv names the database), never from
// a message's text. A broker without it is the DBA's; one with another
// work directory is another oedl run's; one whose environment cannot be
// read (another uid, /proc mounted hidepid) cannot be told, and is taken
// for someone else's: never used as this run's, never shut down (safety
// trial 13: a second run took a first run's broker of the source for its
// own and shut it down under the first's dumps).

// brokerMarksScript prints a line for every broker of database $1 (argv
// _mprosrv DB ..., as proserve starts it): its PID and, when its
// environment can be read, "=" and the value of the variable $2 in it
// (empty when the broker does not carry it); "?" when it cannot be read.
// Only processes that see this shell's files (its mount namespace) count:
// a container's, which may share the PID space, serves another file of
// that path. A host with no Linux /proc (AIX, Solaris: no cmdline file)
// fails the call rather than list no broker: "none" would read as "not
// this run's" and leave the run's own broker up. One grep picks the
// candidates: a process or more per entry
// of /proc took seconds on a busy host, and shutdown asks this on the
// window's chain.
const brokerMarksScript = `db="$1"; key="$2"
[ -r /proc/self/cmdline ] || { echo "no /proc/PID/cmdline on this host (not Linux): its brokers and their marks cannot be listed" >&2; exit 3; }
ns=$(readlink /proc/$$/ns/mnt 2>/dev/null)
for f in $(grep -l _mprosrv /proc/[0-9]*/cmdline 2>/dev/null); do
  d=${f%/cmdline}
  [ "$(readlink "$d/ns/mnt" 2>/dev/null)" = "$ns" ] || continue
  a=$({ tr '\000' '\n' < "$d/cmdline"; } 2>/dev/null | sed -n 1p); b=$({ tr '\000' '\n' < "$d/cmdline"; } 2>/dev/null | sed -n 2p)
  [ "${a##*/}" = _mprosrv ] && { [ "$b" = "$db" ] || [ "$b" = "$db.db" ]; } || continue
  if env=$({ tr '\000' '\n' < "$d/environ"; } 2>/dev/null) && [ -r "$d/environ" ]; then
    printf '%s =%s\n' "${d#/proc/}" "$(printf '%s\n' "$env" | sed -n "s/^$key=//p" | sed -n 1p)"
  else
    printf '%s ?\n' "${d#/proc/}"
  fi
done; exit 0`

// brokerMark is a broker of a database and the work directory of the
// oedl run that started it ("" when no oedl run did); unreadable when its
// environment could not be read (who started it is unknown).
type brokerMark struct {
	pid        int
	work       string
	unreadable bool
}

// brokerLister lists the brokers of database db with their marks. A
// Runner that implements it is asked instead of the processes (the unit
// tests' fake OpenEdge, whose brokers are no processes).
type brokerLister interface {
	brokerMarks(db string) ([]brokerMark, error)
}

// brokerMarks lists the brokers of database which on its host with their
// marks (brokerMarksScript), the call logged to log.
func (c *Config) brokerMarks(ctx context.Context, which string, log io.Writer) ([]brokerMark, error) {
	m := c.machine(c.atDB(which).host)
	if l, ok := m.runner.(brokerLister); ok {
		return l.brokerMarks(c.db(which))
	}
	if !m.remote {
		return localBrokerMarks(c.db(which))
	}
	var out strings.Builder
	res, err := m.runner.Run(ctx, execx.Cmd{Path: "sh", Args: []string{"-c", brokerMarksScript, "sh", c.db(which), WorkEnv},
		Stdout: &out, Timeout: 2 * time.Minute, Log: log})
	if err != nil {
		return nil, fmt.Errorf("%v %s", err, strings.TrimSpace(res.Output))
	}
	return parseBrokerMarks(out.String()), nil
}

// parseBrokerMarks reads brokerMarksScript's lines; one it did not write
// (no PID) is skipped.
func parseBrokerMarks(out string) []brokerMark {
	var marks []brokerMark
	for _, line := range strings.Split(out, "\n") {
		pid, rest, _ := strings.Cut(line, " ")
		n, err := strconv.Atoi(pid)
		if err != nil {
			continue
		}
		work, readable := strings.CutPrefix(rest, "=")
		if !readable {
			work = ""
		}
		marks = append(marks, brokerMark{pid: n, work: work, unreadable: !readable})
	}
	return marks
}

// localBrokerMarks is brokerMarksScript on this machine, read from /proc
// without starting a process per entry (the target's shutdown, which asks
// it, is on the window's chain).
func localBrokerMarks(db string) ([]brokerMark, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	ns, _ := os.Readlink("/proc/self/ns/mnt")
	key := []byte(WorkEnv + "=")
	var marks []brokerMark
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		dir := "/proc/" + e.Name()
		if theirs, _ := os.Readlink(dir + "/ns/mnt"); theirs != ns {
			continue
		}
		cmdline, err := os.ReadFile(dir + "/cmdline")
		if err != nil {
			continue
		}
		argv := bytes.Split(cmdline, []byte{0})
		if len(argv) < 2 || filepath.Base(string(argv[0])) != "_mprosrv" || (string(argv[1]) != db && string(argv[1]) != db+".db") {
			continue
		}
		b := brokerMark{pid: pid}
		environ, err := os.ReadFile(dir + "/environ")
		b.unreadable = err != nil
		for _, kv := range bytes.Split(environ, []byte{0}) {
			if v, ok := bytes.CutPrefix(kv, key); ok {
				b.work = string(v)
				break
			}
		}
		marks = append(marks, b)
	}
	return marks, nil
}

// notOursServes refuses database which when a broker serving it is
// another oedl run's, or one whose environment cannot be read: the other
// run works through it and shuts it down when it is done, so this run must
// neither take it for its own (its shutdown would cut the other run's
// dumps) nor dump through it (--online-source: the other run's shutdown
// would cut these); who started an unreadable one is unknown. The other
// run is named by its work directory and, while it runs, its pid (the
// stamp of its lock). nil when only this run's or a DBA's broker (no
// mark) serves it, or when the brokers cannot be listed (the caller's own
// refusal stands).
func (c *Config) notOursServes(ctx context.Context, which string, log io.Writer) error {
	marks, err := c.brokerMarks(ctx, which, log)
	if err != nil {
		return nil
	}
	own := c.at("").workMarker()
	db := c.db(which)
	for _, b := range marks {
		switch {
		case b.unreadable:
			return precondition("%s is served by a broker (pid %d) whose environment this user cannot read (another user's, or /proc mounted hidepid): oedl cannot tell who started it, so this run neither uses nor stops it. "+
				"Run oedl as the user who started it, or stop it first if it is nobody's", db, b.pid)
		case b.work != "" && b.work != own:
			return otherRunBroker(db, b)
		}
	}
	return nil
}

// otherRunBroker is the refusal of db, served by broker b another oedl
// run started.
func otherRunBroker(db string, b brokerMark) error {
	q := execx.ShellQuote(b.work)
	if held, _ := lockHeld(b.work); held {
		stamp, _ := os.ReadFile(filepath.Join(b.work, LockFile))
		pid, _, _ := strings.Cut(strings.TrimSpace(string(stamp)), " ")
		return precondition("%s is served by the broker (pid %d) of another oedl run (pid %s, --work %s): that run works through it and shuts it down when it is done, so this run neither uses nor stops it. "+
			"Let that run end (oedl status --work %s), then start this one again", db, b.pid, pid, b.work, q)
	}
	return precondition("%s is served by the broker (pid %d) an oedl run in --work %s started, and that run is not running (killed?): this run neither uses nor stops it. "+
		"Resume that run (oedl run --resume --work %s), which shuts it down when it ends", db, b.pid, b.work, q)
}

// servesOurs says whether a broker serving database which carries this
// run's mark: the one this run (or its killed invocation) started, which
// it may use as its own and shut down. Not one another run or the DBA
// started, nor one whose mark cannot be read.
func (c *Config) servesOurs(ctx context.Context, which string, log io.Writer) (bool, error) {
	marks, err := c.brokerMarks(ctx, which, log)
	if err != nil {
		return false, err
	}
	own := c.at("").workMarker()
	for _, b := range marks {
		if !b.unreadable && b.work == own {
			return true, nil
		}
	}
	return false, nil
}
