package run

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/schedule"
)

// A killed oedl leaves its remote utilities running: its connections die
// with it (the master's Pdeathsig), but a utility on another host does
// not notice a session that ended until it writes to it, and a dump or a
// load writes to files. A resume must stop them before it repairs,
// truncates or loads anything, or a load the killed run left running
// would go on writing into an area the resume truncates and reloads.
//
// Every utility oedl starts on a host carries WorkEnv set to this run's
// work directory (the one here), as on this machine (orphans.go). A resume, once the brokers the
// killed run started are shut down (proshut -by, as a DBA does: brokers
// are never killed), finds on each remote host every process with that
// variable (/proc/PID/environ) and stops it: SIGTERM, then SIGKILL, and
// waits for it to go.

// orphanScript stops the processes whose environment holds every line
// given ("$@": the run's mark, and a job's to stop only that job's), and
// prints the PIDs it stopped ("stopped: 12 34").
const orphanScript = `pids=""
for d in /proc/[0-9]*; do p=${d#/proc/}; [ "$p" = "$$" ] && continue
  env=$(tr '\000' '\n' 2>/dev/null < "$d/environ") || continue; all=1
  for m in "$@"; do printf '%s\n' "$env" | grep -qxF -- "$m" || { all=0; break; }; done
  [ $all = 1 ] && pids="$pids $p"; done
[ -z "$pids" ] && exit 0
kill -TERM $pids 2>/dev/null; i=0
while [ $i -lt 40 ]; do alive=""; for p in $pids; do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done
  [ -z "$alive" ] && { echo "stopped:$pids"; exit 0; }; sleep 0.25; i=$((i+1)); done
kill -KILL $alive 2>/dev/null; sleep 0.5
for p in $alive; do kill -0 "$p" 2>/dev/null && { echo "still running:$alive"; exit 1; }; done
echo "stopped:$pids"`

// stopMarked runs orphanScript on machine m with the marks given: what it
// stopped ("stopped: 12 34", "" for nothing), or an error with what it
// said (the PIDs still running).
func stopMarked(ctx context.Context, m *machine, log io.Writer, marks ...string) (string, error) {
	var out strings.Builder
	res, err := m.runner.Run(ctx, execx.Cmd{Path: "sh", Args: append([]string{"-c", orphanScript, "sh"}, marks...),
		Stdout: &out, Timeout: 2 * time.Minute, Log: log})
	said := strings.TrimSpace(out.String())
	if err != nil {
		return "", fmt.Errorf("%v %s%s", err, said, strings.TrimSpace(res.Output))
	}
	return said, nil
}

// stopRemoteOrphans stops, on every remote host, what an earlier
// invocation of this run left running there.
func (r *runner) stopRemoteOrphans(ctx context.Context) error {
	c := r.cfg
	for _, m := range c.remoteMachines() {
		stopped, err := stopMarked(ctx, m, r.logWriter(), c.runMarker())
		if err != nil {
			return precondition("host %s: the utilities a killed run left running could not be stopped: %v", m.name, err)
		}
		if stopped != "" {
			r.notice(fmt.Sprintf("host %s: the killed run's utilities there %s (SIGTERM, then SIGKILL)", m.name, stopped))
		}
		if c.onTargetMachine()(m.name) {
			// Marked the killed run's: their lines in the target's log
			// are the run's (killedsince.go), the log being on this
			// machine's disks.
			for _, w := range strings.Fields(strings.TrimPrefix(stopped, "stopped:")) {
				if pid, err := strconv.Atoi(w); err == nil {
					r.ownProc(pid)
				}
			}
		}
	}
	return nil
}

// runMarker is the environment line that marks this run's utilities.
func (c *Config) runMarker() string { return WorkEnv + "=" + c.at("").workMarker() }

// stopKilledRun shuts down the brokers an earlier invocation started and
// left up, then stops its utilities on every remote host.
func (r *runner) stopKilledRun(ctx context.Context) error {
	for _, which := range r.cfg.databases() {
		if !r.servedByUs[which] {
			continue
		}
		if which == schedule.DBTarget && !r.cfg.targetExists(ctx) {
			r.servedByUs[which] = false
			continue
		}
		if _, err := r.shutDownKilledBroker(ctx, which); err != nil {
			return err
		}
	}
	return r.stopRemoteOrphans(ctx)
}

// onTargetMachine says whether a host of the hosts file is on the
// target's machine (its ssh destination): its processes are the ones
// that write the target's log. nil on one machine: every process is.
func (c *Config) onTargetMachine() func(host string) bool {
	l := c.hostLayout()
	if l == nil {
		return nil
	}
	dest := c.machine(l.Target).dest
	return func(host string) bool { return c.machine(host).dest == dest }
}
