package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/journal"
)

// kill -9 of oedl while it dumps from the broker it started on the source;
// the DBA shuts that broker down and serves the source again himself, for
// his users, before he resumes. The resume must not take the DBA's broker
// for the killed run's: it refuses the source in use (exit 3), as a first
// run does, and the DBA's broker still serves it. It shut the DBA's broker
// down (proshut -by: every user disconnected without notice) and dumped
// the rest of a source the users had been writing (new-user trial 5).
//
// The same with a journal that names no broker (one written before oedl
// recorded them, or a kill between proserve and its record): the DBA's
// broker is refused by name, not shut down; the killed run's own broker,
// which carries the run's mark, is still shut down and the run finishes.
func TestResumeLeavesTheDBAsBrokerUp(t *testing.T) {
	tests := []struct {
		name        string
		dbaServes   bool
		noIdentity  bool
		refusedWith string
	}{
		{"the DBA's broker and the killed run's identified", true, false, "oedl did not start"},
		{"the DBA's broker and a journal naming none", true, true, "cannot prove its own"},
		{"the killed run's broker and a journal naming none", false, true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "sports")
			cmd, exited := startSlowDump(t, e)
			waitJournal(t, e, exited, func(r journal.Record) bool { return r.Job == "serve:source" && r.State == journal.Done })
			require.NoError(t, cmd.Process.Kill(), "kill -9 of oedl alone")
			<-exited
			require.Equal(t, 16, e.holder(e.source), "the killed run's broker serves the source")
			if tc.noIdentity {
				withoutBrokers(t, filepath.Join(e.work, journal.FileName))
			}
			if tc.dbaServes {
				dlc := func(prog string, args ...string) {
					c := exec.Command(filepath.Join(e.fx.dlc, "bin", prog), args...)
					c.Env = append(os.Environ(), e.extra...)
					out, err := c.CombinedOutput()
					require.NoError(t, err, "%s %v\n%s", prog, args, out)
				}
				dlc("proshut", e.source, "-by")
				dlc("proserve", e.source) // the DBA's, for his users
			}

			r := e.oedl(nil, e.runArgs("--resume")...)
			if tc.refusedWith == "" {
				require.Equal(t, 0, r.code, r.stderr)
				e.verified()
				return
			}
			assert.Equal(t, 3, r.code, r.stderr)
			assert.Contains(t, r.stderr, tc.refusedWith)
			assert.Contains(t, r.stderr, e.source)
			assert.NotContains(t, r.stderr, "shut down the broker the killed run left on "+e.source)
			assert.Equal(t, 16, e.holder(e.source), "the DBA's broker still serves the source")
		})
	}
}

// withoutBrokers rewrites a journal as oedl wrote it before it recorded
// the brokers it started (no "broker" on the serves' done records).
func withoutBrokers(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []byte
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		var rec map[string]json.RawMessage
		if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &rec) != nil || rec["broker"] == nil {
			out = append(out, line...)
			continue
		}
		delete(rec, "broker")
		b, err := json.Marshal(rec)
		require.NoError(t, err)
		out = append(append(out, b...), '\n')
	}
	require.NoError(t, os.WriteFile(path, out, 0o644))
}

// kill -9 of oedl while proserve starts its broker on the source, before
// the serve's "done" names that broker (proserve held 2 s by oesim's delay
// fault); the DBA shuts the broker down and serves the source again
// himself, for his users, before he resumes. The journal identifies no
// broker, and the resume took whatever served the source for the killed
// run's: it shut the DBA's broker down (proshut -by: every user
// disconnected without notice) and went on (safety trial 6). A broker the
// killed run started carries its work directory's mark (WorkEnv) and names
// the database: none does here, so it is left up and the run refused.
func TestResumeLeavesTheDBAsBrokerUpWhenNoneWasRecorded(t *testing.T) {
	e := newEnv(t, "sports")
	cmd := exec.Command(filepath.Join(e.fx.bin, "oedl"), e.runArgs()...)
	cmd.Env = append(append(os.Environ(), e.extra...), "OESIM_FAULTS=proserve:delay=2s,once")
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	waitJournal(t, e, exited, func(r journal.Record) bool {
		if r.Job != "serve:source" || r.State != journal.Running || r.Proc == nil {
			return false
		}
		argv, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", r.Proc.PID))
		return strings.Contains(string(argv), "proserve")
	})
	require.NoError(t, cmd.Process.Kill(), "kill -9 of oedl alone, its proserve still starting the broker")
	<-exited
	deadline := time.Now().Add(time.Minute)
	for e.holder(e.source) != 16 {
		require.True(t, time.Now().Before(deadline), "the killed run's proserve never served the source")
		time.Sleep(20 * time.Millisecond) // the orphaned proserve, another process, starting its broker
	}
	recs, err := journal.Read(filepath.Join(e.work, journal.FileName))
	require.NoError(t, err)
	for _, r := range recs {
		require.False(t, r.Job == "serve:source" && r.State == journal.Done, "the kill came after the serve was journalled")
	}

	dlc := func(prog string, args ...string) {
		c := exec.Command(filepath.Join(e.fx.dlc, "bin", prog), args...)
		c.Env = append(os.Environ(), e.extra...) // the DBA's shell: no oedl mark
		out, err := c.CombinedOutput()
		require.NoError(t, err, "%s %v\n%s", prog, args, out)
	}
	dlc("proshut", e.source, "-by")
	dlc("proserve", e.source) // the DBA's, for his users

	r := e.oedl(nil, e.runArgs("--resume")...)
	assert.Equal(t, 3, r.code, r.stderr)
	assert.Contains(t, r.stderr, "(276)", "refused: the source in use")
	assert.NotContains(t, r.stderr, "shut down the broker the killed run left on "+e.source)
	assert.Equal(t, 16, e.holder(e.source), "the DBA's broker still serves the source")
}

// startSlowDump starts oedl run with the source's largest table dumped
// slowly (oesim's slow fault), for a test to kill it in the dumps: the
// process and the channel its Wait ends on.
func startSlowDump(t *testing.T, e *env) (*exec.Cmd, <-chan error) {
	t.Helper()
	largest := largestTable(t, e)
	cmd := exec.Command(filepath.Join(e.fx.bin, "oedl"), e.runArgs("--dump-jobs", "2")...)
	cmd.Env = append(append(os.Environ(), e.extra...), "OESIM_FAULTS=dump:"+largest+":slow=256KB")
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	return cmd, exited
}

// waitJournal polls the journal of a running oedl until a record matches.
func waitJournal(t *testing.T, e *env, exited <-chan error, match func(journal.Record) bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		recs, _ := journal.Read(filepath.Join(e.work, journal.FileName))
		for _, r := range recs {
			if match(r) {
				return
			}
		}
		select {
		case err := <-exited:
			t.Fatalf("oedl ended (%v) before the journal had the record", err)
		default:
		}
		require.True(t, time.Now().Before(deadline), "the journal never had the record")
		time.Sleep(10 * time.Millisecond) // polling the journal of another process
	}
}

// holder is proutil -C holder's exit code for db: 0 free, 14 single-user,
// 16 served.
func (e *env) holder(db string) int {
	c := exec.Command(filepath.Join(e.fx.dlc, "bin", "proutil"), db, "-C", "holder")
	c.Env = append(os.Environ(), e.extra...)
	err := c.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	require.NoError(e.t, err)
	return 0
}
