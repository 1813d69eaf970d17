package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/sim/store"
)

// The broker this run started on the target is killed (kill -9 of its
// oesim broker) while the largest table loads (lefts30). The failure is
// the broker's: the attempt ends and the run resumes in place once,
// serving the target again; the areas of the loads that failed are
// repaired (crash-safe) or the target created again (-i), no table is
// dumped again, and the run ends verified with the restart told once (the
// output, oedl status, the report). On
// the old code a crash-safe run took each failed load for a bad file
// (dumped again, area truncated) while the loads after it opened the
// target single-user and refused each other (263); the dumps again then
// met the source's shutdown and the run failed naming the source's broker.
func TestTargetBrokerKilled(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"crash-safe", []string{"--no-integrity=false"}},
		{"no-integrity", []string{"--no-integrity"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// The kill must land while the load is still connected: one
			// that has already written its last record ends well and the
			// run with it, verified, no resume to see (a race the test
			// cannot close from outside: seen in CI under -race's load).
			// Such a round is verified and tried again, at most 3 times.
			var e *env
			var r *slowRun
			for round := 1; ; round++ {
				e = newEnv(t, "sports")
				largest := largestTable(t, e)
				r = startSlowRun(t, e, largest, tt.args...)
				r.waitLoadRunning(largest)
				h, err := store.ReadHolder(store.PathsFor(e.target))
				require.NoError(t, err)
				require.True(t, h != nil && h.Alive, "the target is not served: %+v", h)
				require.NoError(t, syscall.Kill(h.Pid, syscall.SIGKILL), "kill -9 of the target's broker")
				require.NoError(t, <-r.exited, r.stderr.String())
				e.verified()
				assert.Equal(t, tabanalysCounts(t, e, e.source), tabanalysCounts(t, e, e.target))
				if strings.Contains(r.stderr.String(), "resuming in place") || round == 3 {
					break
				}
				t.Logf("round %d: the load of %s ended before the broker's kill reached it; again", round, largest)
			}

			recs := e.journal()
			starts, gone := 0, 0
			for _, rec := range recs {
				switch {
				case rec.Job == journal.RunJob && rec.State == journal.Started:
					starts++
				case rec.Kind == "dump" && rec.Attempt > 1:
					t.Errorf("%s dumped again (attempt %d): its file was not the cause", rec.Job, rec.Attempt)
				}
			}
			assert.Equal(t, 2, starts, "one resume in place")
			gone = strings.Count(r.stderr.String(), "resuming in place")
			assert.Equal(t, 1, gone, r.stderr.String())
			assert.Contains(t, r.stderr.String(), "the broker this run started on the target "+e.target+" is gone")
			assert.Equal(t, 1, strings.Count(r.stderr.String(), "phase dump+load\n"), "the phases once")

			st := e.oedl(nil, "status", "--work", e.work)
			require.Equal(t, 0, st.code, st.stderr)
			assert.Contains(t, st.stdout, "dump+load")
			assert.Equal(t, 1, strings.Count(st.stdout, "dump+load"), st.stdout)
			assert.Contains(t, st.stdout, "(restarted)")
			assert.Contains(t, st.stdout, ", resumed in place once\n")
			assert.NotContains(t, st.stdout, "invocations")

			// The report says it once too: no "interrupted and resumed".
			md, err := os.ReadFile(filepath.Join(e.work, "report.md"))
			require.NoError(t, err)
			assert.Contains(t, string(md), "## Resumed in place")
			assert.Contains(t, string(md), ", resumed in place once |")
			assert.NotContains(t, string(md), "nterrupted")
		})
	}
}

// The broker this run started on the source is killed while a table
// dumps: the source is the DBA's database, so the run does not serve it
// again by itself; it stops, exit 1, naming the broker, and --resume
// serves it again and ends verified.
func TestSourceBrokerKilled(t *testing.T) {
	// The kill must land while the dump is still connected: one that has
	// already read its last record ends well, and the run with it,
	// verified (a race the test cannot close from outside: seen under
	// load). Such a round is verified and tried again, at most 3 times.
	for round := 1; ; round++ {
		e := newEnv(t, "sports")
		largest := largestTable(t, e)
		cmd := exec.Command(filepath.Join(e.fx.bin, "oedl"), e.runArgs()...)
		cmd.Env = append(append(os.Environ(), e.extra...), "OESIM_FAULTS=dump:"+largest+":slow=512KB")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		require.NoError(t, cmd.Start())
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		deadline := time.Now().Add(2 * time.Minute)
		for dumping := false; !dumping; {
			recs, _ := journal.Read(filepath.Join(e.work, journal.FileName))
			for _, p := range journal.Replay(recs).Procs() {
				dumping = dumping || (p.Job == "dump:"+largest && p.Proc.Alive())
			}
			select {
			case err := <-exited:
				t.Fatalf("oedl ended (%v) before the dump of %s ran:\n%s", err, largest, stderr.String())
			default:
			}
			require.True(t, time.Now().Before(deadline), "the dump of %s never ran", largest)
			time.Sleep(10 * time.Millisecond) // polling the journal of another process
		}
		h, err := store.ReadHolder(store.PathsFor(e.source))
		require.NoError(t, err)
		require.True(t, h != nil && h.Alive, "the source is not served: %+v", h)
		require.NoError(t, syscall.Kill(h.Pid, syscall.SIGKILL), "kill -9 of the source's broker")
		err = <-exited
		if err == nil && round < 3 {
			e.verified()
			t.Logf("round %d: the dump of %s ended before the broker's kill reached it; again", round, largest)
			continue
		}
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, stderr.String())
		assert.Equal(t, 1, ee.ExitCode(), stderr.String())
		assert.Contains(t, stderr.String(), "the broker this run started on the source "+e.source+" is gone")

		r := e.oedl(nil, e.runArgs("--resume")...)
		require.Equal(t, 0, r.code, r.stderr)
		e.verified()
		assert.Equal(t, tabanalysCounts(t, e, e.source), tabanalysCounts(t, e, e.target))
		return
	}
}
