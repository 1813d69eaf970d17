package run

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/journal"
)

// TestCrashHookFiresAfterDurableRecordWithoutLock: OEDL_TEST_CRASH_AT=n
// fires right after the n-th record is in the journal, and the hook runs
// with the executor's lock free (a dying process must not leave the other
// goroutines waiting on it).
func TestCrashHookFiresAfterDurableRecordWithoutLock(t *testing.T) {
	tests := []struct {
		name    string
		crashAt int
		records int
		fires   []int // the journal length each time the hook ran
	}{
		{"no hook", 0, 3, nil},
		{"after the second record", 2, 3, []int{2, 3}},
		{"beyond the run", 5, 3, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			jw, _, err := journal.Open(filepath.Join(t.TempDir(), journal.FileName))
			require.NoError(t, err)
			t.Cleanup(func() { jw.Close() })
			e := &Executor{jw: jw, starts: map[string]int{}, crashAt: tt.crashAt}
			var fires []int
			old := crashHook
			t.Cleanup(func() { crashHook = old })
			crashHook = func() {
				// Held: no other worker can append a record before the
				// process is gone, so the journal ends at exactly N.
				require.False(t, e.mu.TryLock(), "the hook runs with the executor's lock held")
				recs, err := journal.Read(jw.Path())
				require.NoError(t, err)
				fires = append(fires, len(recs))
			}
			for i := range tt.records {
				require.NoError(t, e.record(journal.Record{Job: "dump:PUB.t", State: journal.Started, Attempt: i + 1}))
			}
			assert.Equal(t, tt.fires, fires)
		})
	}
}

// TestCrashNowDiesBySIGKILL runs crashNow in a child process whose only
// goroutine then waits: it must die by SIGKILL, not by Go's "all
// goroutines are asleep" exit 2, and never return.
func TestCrashNowDiesBySIGKILL(t *testing.T) {
	if os.Getenv("OEDL_CRASH_CHILD") == "1" {
		crashNow()
		os.Exit(0) // not reached: the test fails if the child exits 0
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashNowDiesBySIGKILL$")
	cmd.Env = append(os.Environ(), "OEDL_CRASH_CHILD=1")
	err := cmd.Run()
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "the child must not exit cleanly: %v", err)
	ws, ok := ee.Sys().(syscall.WaitStatus)
	require.True(t, ok)
	require.True(t, ws.Signaled(), "exit status %d instead of a signal", ws.ExitStatus())
	assert.Equal(t, syscall.SIGKILL, ws.Signal())
}
