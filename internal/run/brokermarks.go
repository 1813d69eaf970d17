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

// brokerMarksScript prints a line for every broker of database $1 (argv
// _mprosrv DB ..., as proserve starts it): its PID, a blank and the value
// of the variable $2 in its initial environment (the mark of the oedl run
// that started it, WorkEnv; empty for a broker oedl did not start: the
// DBA's own does not carry it). Only processes that see this shell's files
// (its mount namespace) count: a container's, which may share the PID
// space, serves another file of that path.
const brokerMarksScript = `db="$1"; key="$2"; ns=$(readlink /proc/$$/ns/mnt 2>/dev/null)
for d in /proc/[0-9]*; do
  [ "$(readlink "$d/ns/mnt" 2>/dev/null)" = "$ns" ] || continue
  a=$({ tr '\000' '\n' < "$d/cmdline"; } 2>/dev/null | sed -n 1p); b=$({ tr '\000' '\n' < "$d/cmdline"; } 2>/dev/null | sed -n 2p)
  [ "${a##*/}" = _mprosrv ] && { [ "$b" = "$db" ] || [ "$b" = "$db.db" ]; } || continue
  m=$({ tr '\000' '\n' < "$d/environ"; } 2>/dev/null | sed -n "s/^$key=//p" | sed -n 1p)
  printf '%s %s\n' "${d#/proc/}" "$m"
done; exit 0`

// brokerMark is a broker of a database and the work directory of the
// oedl run that started it ("" when no oedl run did).
type brokerMark struct {
	pid  int
	work string
}

// brokerMarks lists the brokers of database which on its host with their
// marks (brokerMarksScript), the call logged to log.
func (c *Config) brokerMarks(ctx context.Context, which string, log io.Writer) ([]brokerMark, error) {
	m := c.machine(c.atDB(which).host)
	if !m.remote {
		return localBrokerMarks(c.db(which))
	}
	var out strings.Builder
	res, err := m.runner.Run(ctx, execx.Cmd{Path: "sh", Args: []string{"-c", brokerMarksScript, "sh", c.db(which), WorkEnv},
		Stdout: &out, Timeout: 2 * time.Minute, Log: log})
	if err != nil {
		return nil, fmt.Errorf("%v %s", err, strings.TrimSpace(res.Output))
	}
	var marks []brokerMark
	for _, line := range strings.Split(out.String(), "\n") {
		pid, work, _ := strings.Cut(line, " ")
		if n, err := strconv.Atoi(pid); err == nil {
			marks = append(marks, brokerMark{pid: n, work: work})
		}
	}
	return marks, nil
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
		environ, _ := os.ReadFile(dir + "/environ")
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

// anotherRunServes refuses database which when a broker serving it
// carries the mark of another oedl run: that run dumps or loads through
// it and shuts it down when it is done, so this run must neither take it
// for its own (its shutdown would cut the other run's dumps) nor dump
// through it (--online-source: the other run's shutdown would cut these).
// Safety trial 13: a second run started beside a first took the first's
// broker of the source for its own and shut it down under the first's
// dumps. nil when no such broker serves it, or when that cannot be told.
func (c *Config) anotherRunServes(ctx context.Context, which string, log io.Writer) error {
	marks, err := c.brokerMarks(ctx, which, log)
	if err != nil {
		return nil // the caller's own refusal stands
	}
	own := c.at("").workMarker()
	for _, b := range marks {
		if b.work != "" && b.work != own {
			return precondition("%s is served by the broker (pid %d) another oedl run started, whose work directory is %s: that run works through it and shuts it down when it is done, so this run neither uses nor stops it. "+
				"Let that run end (oedl status --work %s), then start this one again",
				c.db(which), b.pid, b.work, execx.ShellQuote(b.work))
		}
	}
	return nil
}

// servesOurs says whether the broker serving database which carries this
// run's mark: the one this run (or its killed invocation) started, which
// it may use as its own and shut down. Not one another run or the DBA
// started.
func (c *Config) servesOurs(ctx context.Context, which string, log io.Writer) (bool, error) {
	marks, err := c.brokerMarks(ctx, which, log)
	if err != nil {
		return false, err
	}
	own := c.at("").workMarker()
	for _, b := range marks {
		if b.work == own {
			return true, nil
		}
	}
	return false, nil
}
