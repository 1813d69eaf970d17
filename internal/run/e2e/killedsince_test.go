package e2e

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestResumeOfAKilledRunRefusesItsTargetUsedSince (safety trial 12): kill
// -9 of oedl while a load runs; the DBA waits for the load's utility to
// end and takes the half-loaded target: shuts down the killed run's
// broker, serves it himself and loads a table into it (or, crash-safe,
// loads one single-user). Then the old `oedl run --resume` from the
// shell's history. A killed run leaves no end stamp, so the resume took
// every change as its own: the no-integrity rebuild removed the target
// (exit 0, the DBA's records gone), a crash-safe resume truncated the
// dirty area. Now the target's log shows a session of a process the
// journal never started, written after its last record: exit 3, naming
// the line, every byte of the target as it was. A killed run resumed with
// no one in between is still verified (TestNoIntegrityKillDuringLoad).
// On a log of the pre-10.1A layout (OESIM_LG_LAYOUT=9: no process ids)
// the old resume read no line at all and rebuilt the target; now the lines
// it cannot place refuse it (real-logs).
func TestResumeOfAKilledRunRefusesItsTargetUsedSince(t *testing.T) {
	const used, unplaced = "was used since this run was killed", "has no time and process id oedl can read"
	for _, tc := range []struct {
		name    string
		args    []string
		served  bool
		layout  string // OESIM_LG_LAYOUT
		refusal string
	}{
		{"no-integrity: the DBA serves and loads", nil, true, "", used},
		{"crash-safe: the DBA loads single-user", []string{"--no-integrity=false"}, false, "", used},
		{"a log of the pre-10.1A layout", nil, true, "9", unplaced},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "sports")
			if tc.layout != "" {
				e.extra = append(e.extra, "OESIM_LG_LAYOUT="+tc.layout)
			}
			largest := largestTable(t, e)
			slow := startSlowRun(t, e, largest, tc.args...)
			_, proc := slow.waitLoadRunning(largest)
			require.NoError(t, slow.cmd.Process.Kill(), "kill -9 of oedl alone")
			<-slow.exited
			deadline := time.Now().Add(2 * time.Minute)
			for proc.Alive() { // the DBA waits for the killed run's load to end
				require.True(t, time.Now().Before(deadline), "the killed run's load never ended")
				time.Sleep(50 * time.Millisecond)
			}
			// The DBA acts after the kill, later than the run's own
			// unrecorded utilities could write (run.killWindow, 3s, after
			// the journal's last record).
			recs := e.journal()
			for time.Since(recs[len(recs)-1].Time) <= 3*time.Second {
				time.Sleep(50 * time.Millisecond)
			}
			dlc := e.dlc()
			e.shutdownIfServed(e.target) // the killed run's broker
			if tc.served {
				dlc("proserve", e.target)
			}
			dlc("proutil", e.target, "-C", "load", filepath.Join(e.work, "dump", "PUB.Invoice", "Invoice.bd"))
			if tc.served {
				dlc("proshut", e.target, "-by")
			}
			before := everyByte(t, filepath.Dir(e.target))

			r := e.oedl(nil, e.runArgs(append(tc.args, "--resume")...)...)
			assert.Equal(t, 3, r.code, r.stderr)
			assert.Contains(t, r.stderr, tc.refusal)
			assert.Contains(t, r.stderr, e.target+".lg line")
			assert.Equal(t, before, everyByte(t, filepath.Dir(e.target)), "every byte of the target as the DBA left it")
		})
	}
}

// TestResumeOfAKilledRunOnAnOldLayoutLog: the cost of the safe side. On a
// log of the pre-10.1A layout (no process ids) the killed run's own load,
// which ends after the kill, writes lines that cannot be told from
// anyone's; with no one in between the resume is refused too, naming the
// line, and the DBA removes the target and resumes (real-logs).
func TestResumeOfAKilledRunOnAnOldLayoutLog(t *testing.T) {
	e := newEnv(t, "sports")
	e.extra = append(e.extra, "OESIM_LG_LAYOUT=9")
	largest := largestTable(t, e)
	slow := startSlowRun(t, e, largest)
	_, proc := slow.waitLoadRunning(largest)
	require.NoError(t, slow.cmd.Process.Kill(), "kill -9 of oedl alone")
	<-slow.exited
	deadline := time.Now().Add(2 * time.Minute)
	for proc.Alive() {
		require.True(t, time.Now().Before(deadline), "the killed run's load never ended")
		time.Sleep(50 * time.Millisecond)
	}
	r := e.oedl(nil, e.runArgs("--resume")...)
	assert.Equal(t, 3, r.code, r.stderr)
	assert.Contains(t, r.stderr, "has no time and process id oedl can read")
	assert.Contains(t, r.stderr, e.target+".lg line")
}
