package e2e

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/openedge"
)

// Safety trial 13: a run's preflight finds the source free, and before its
// proserve another broker serves it. The run must neither take that broker
// for its own (and shut it down at its end, under its users) nor dump
// through it: its serve refuses (exit 3), naming who serves it, and the
// broker still runs with its pid. Each run's proserve is held by the
// wait= fault until the test has started the other broker (no sleep).

// The DBA serves the source for his users between the run's preflight and
// its serve: the run said "already served", dumped through his broker and
// shut it down (proshut -by: his users disconnected).
func TestServeLeavesADBABrokerStartedAfterPreflight(t *testing.T) {
	e := newEnv(t, "sports")
	before := files(t, filepath.Dir(e.source))
	run, exited := e.start([]string{"OESIM_FAULTS=proserve:wait=run"}, e.runArgs("--dump-jobs", "2")...)
	waitJournal(t, e, exited, func(r journal.Record) bool { return r.Job == "serve:source" && r.State == journal.Started })
	dba := e.dbaServes(e.source) // the DBA's: no oedl mark
	e.release("run")
	r := run.wait(exited)

	assert.Equal(t, 3, r.code, r.stderr)
	assert.Contains(t, r.stderr, "cannot serve "+e.source+": a broker oedl did not start serves it since the preflight found it free (276)")
	assert.Equal(t, 16, e.holder(e.source), "the DBA's broker still serves the source")
	assert.True(t, alive(dba), "the DBA's broker (pid %d) still runs", dba)
	if _, err := os.Stat(e.target + ".db"); err == nil {
		assert.NotEqual(t, 16, e.holder(e.target), "the cleanup after the failure stopped the run's own broker of the target")
	}
	for _, rec := range e.journal() {
		assert.False(t, strings.HasPrefix(rec.Job, "dump") || rec.Job == "shutdown:source", "%s ran through the DBA's broker", rec.Job)
	}
	e.dlc()("proshut", e.source, "-by")
	assert.Equal(t, before, files(t, filepath.Dir(e.source)), "the source's files")
}

// Two runs on one source (other --work, --target): the second's preflight
// finds the source free, the first serves it before the second's proserve.
// The second took the first's broker as "already served", dumped through
// it and shut it down while the first dumped (its dumps killed, retried).
// Now the second refuses (exit 3) naming the first run's pid and work
// directory; the first's broker keeps its pid and the first run ends
// verified with no attempt failed.
func TestSecondRunLeavesTheFirstRunsBroker(t *testing.T) {
	e := newEnv(t, "sports")
	before := files(t, filepath.Dir(e.source))
	second := &env{t: t, fx: e.fx, dir: e.dir, source: e.source, target: filepath.Join(e.dir, "tgt2", filepath.Base(e.target)),
		work: filepath.Join(e.dir, "work2"), extra: e.extra}
	require.NoError(t, os.MkdirAll(filepath.Dir(second.target), 0o755))
	t.Cleanup(func() { second.shutdownIfServed(second.target) })

	b, bExited := second.start([]string{"OESIM_FAULTS=proserve:wait=second"}, second.runArgs("--dump-jobs", "2")...)
	waitJournal(t, second, bExited, func(r journal.Record) bool { return r.Job == "serve:source" && r.State == journal.Started })
	a, aExited := e.start([]string{"OESIM_FAULTS=dump:*:wait=first"}, e.runArgs("--dump-jobs", "2")...)
	waitJournal(t, e, aExited, func(r journal.Record) bool { return r.Job == "serve:source" && r.State == journal.Done })
	broker := servedBy(t, e)
	e.release("second")
	rb := b.wait(bExited)

	assert.Equal(t, 3, rb.code, rb.stderr)
	assert.Contains(t, rb.stderr, "is served by the broker (pid "+strconv.Itoa(broker)+") of another oedl run (pid "+strconv.Itoa(a.Process.Pid)+", --work "+e.work+")")
	assert.True(t, alive(broker), "the first run's broker (pid %d) still runs", broker)
	assert.Equal(t, 16, e.holder(e.source))
	for _, rec := range second.journal() {
		assert.False(t, strings.HasPrefix(rec.Job, "dump") || rec.Job == "shutdown:source", "the second run's %s ran", rec.Job)
	}

	// A third run while the first serves the source: its preflight
	// refuses it (exit 3) by the same name, not as a broker "oedl did not
	// start" with proshut -by advised (which would cut the first's dumps).
	third := &env{t: t, fx: e.fx, dir: e.dir, source: e.source, target: filepath.Join(e.dir, "tgt3", filepath.Base(e.target)),
		work: filepath.Join(e.dir, "work3"), extra: e.extra}
	require.NoError(t, os.MkdirAll(filepath.Dir(third.target), 0o755))
	rc := third.oedl(nil, third.runArgs("--dump-jobs", "2")...)
	assert.Equal(t, 3, rc.code, rc.stderr)
	assert.Contains(t, rc.stderr, "of another oedl run (pid "+strconv.Itoa(a.Process.Pid)+", --work "+e.work+")")
	assert.NotContains(t, rc.stderr, "proshut")
	assert.True(t, alive(broker), "the first run's broker (pid %d) still runs", broker)

	e.release("first")
	ra := a.wait(aExited)
	require.Equal(t, 0, ra.code, ra.stderr)
	e.verified()
	for _, rec := range e.journal() {
		assert.NotEqual(t, journal.Failed, rec.State, "the first run's %s failed: %s", rec.Job, rec.Err)
	}
	assert.Equal(t, before, files(t, filepath.Dir(e.source)), "the source's files")
}

// started is an oedl started in the background, its output kept.
type started struct {
	*exec.Cmd
	out, errb *bytes.Buffer
}

// start starts oedl with args and the env's environment plus more.
func (e *env) start(more []string, args ...string) (*started, <-chan error) {
	e.t.Helper()
	s := &started{Cmd: exec.Command(filepath.Join(e.fx.bin, "oedl"), args...), out: &bytes.Buffer{}, errb: &bytes.Buffer{}}
	s.Env = append(append(os.Environ(), e.extra...), more...)
	s.Stdout, s.Stderr = s.out, s.errb
	require.NoError(e.t, s.Start())
	exited := make(chan error, 1)
	go func() { exited <- s.Wait() }()
	e.t.Cleanup(func() {
		if s.ProcessState == nil {
			_ = s.Process.Kill()
		}
	})
	return s, exited
}

// wait is the started oedl's result once it exits.
func (s *started) wait(exited <-chan error) result {
	err := <-exited
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	}
	return result{code: code, stdout: s.out.String(), stderr: s.errb.String()}
}

// release lets a utility held by the fault wait=name go on.
func (e *env) release(name string) {
	dir := filepath.Join(e.dir, "oesim-state", "release")
	require.NoError(e.t, os.MkdirAll(dir, 0o755))
	require.NoError(e.t, os.WriteFile(filepath.Join(dir, name), nil, 0o644))
}

// dbaServes serves db as the DBA would (proserve, no oedl mark) and
// returns its broker's pid.
func (e *env) dbaServes(db string) int {
	e.t.Helper()
	c := exec.Command(filepath.Join(e.fx.dlc, "bin", "proserve"), db)
	c.Env = append(os.Environ(), e.extra...)
	out, err := c.CombinedOutput()
	require.NoError(e.t, err, "proserve %s\n%s", db, out)
	pid, ok := openedge.BrokerPID(string(out))
	require.True(e.t, ok, "proserve names its broker's pid (5644):\n%s", out)
	return pid
}

// servedBy is the pid of the broker e's run started on its source, from
// its journal's serve record.
func servedBy(t *testing.T, e *env) int {
	t.Helper()
	for _, r := range e.journal() {
		if r.Job == "serve:source" && r.State == journal.Done && r.Broker != nil {
			return r.Broker.PID
		}
	}
	t.Fatal("the journal names no broker of the source")
	return 0
}

// alive: process pid runs and is a broker (_mprosrv).
func alive(pid int) bool {
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return err == nil && filepath.Base(string(bytes.SplitN(cmdline, []byte{0}, 2)[0])) == "_mprosrv"
}
