package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/run"
	"github.com/oedl/oedl/internal/sysproc"
)

// holdLock holds the work directory's lock until the test ends, as a
// running oedl would from its own process: an open-file-description lock
// conflicts with the POSIX lock status asks about even within this one
// process (a POSIX lock of our own would not).
func holdLock(t *testing.T, work string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(work, run.LockFile), os.O_RDWR|os.O_CREATE, 0o644)
	require.NoError(t, err)
	lk := unix.Flock_t{Type: unix.F_WRLCK}
	require.NoError(t, unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk))
	t.Cleanup(func() { f.Close() })
}

// leaveLock leaves the lock file of a run that ended (nobody holds it).
func leaveLock(t *testing.T, work string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(work, run.LockFile), []byte("4242\n"), 0o644))
}

// TestStatusTellsTheTruth: loads in flight of a living run are running,
// not areas to repair; a repair is claimed only once the run's process is
// dead (the lock tells); the verdict comes last; the exit status says
// whether the run failed.
func TestStatusTellsTheTruth(t *testing.T) {
	runStarted := journal.Record{Job: journal.RunJob, State: journal.Started, PID: 4242}
	loadStarted := journal.Record{Job: "load:PUB.order", Kind: "load", State: journal.Started, Table: "PUB.order", Area: "Orders", Attempt: 1}
	loadFailed := journal.Record{Job: "load:PUB.item", Kind: "load", State: journal.Failed, Table: "PUB.item", Area: "Items", Err: "proutil load exited with code 3"}
	itemStarted := journal.Record{Job: "load:PUB.item", Kind: "load", State: journal.Started, Table: "PUB.item", Area: "Items", Attempt: 1}
	verifyDone := journal.Record{Job: "verify", Kind: "verify", State: journal.Done, Message: "2 tables, 42 records; sha256 before abc after abc"}
	verifyFailed := journal.Record{Job: "verify", Kind: "verify", State: journal.Failed, Err: "1 table(s) do not match: PUB.order 40 -> 39"}
	loadDone := journal.Record{Job: "load:PUB.order", Kind: "load", State: journal.Done, Table: "PUB.order", Area: "Orders"}
	runDone := journal.Record{Job: journal.RunJob, State: journal.Done, Message: "verified"}
	runFailed := journal.Record{Job: journal.RunJob, State: journal.Failed, Err: "verify failed"}

	tests := []struct {
		name    string
		alive   bool
		recs    []journal.Record
		code    int
		want    []string
		notWant []string
	}{
		{"a healthy run with a load in flight", true, []journal.Record{runStarted, loadStarted},
			ExitOK, []string{"running (pid", "load", "PUB.order", "verify: not run yet"}, []string{"needs a repair", "not running"}},
		{"a living run repairs a failed load's area itself", true, []journal.Record{runStarted, itemStarted, loadFailed},
			ExitOK, []string{`area "Items": the run repairs it`}, []string{"needs a repair"}},
		{"a killed run: the load in flight needs a repair", false, []journal.Record{runStarted, loadStarted},
			ExitFailed, []string{"not running", `area "Orders" needs a repair`, "--resume", "verify: not run yet"}, []string{"running (pid"}},
		{"finished and verified", false, []journal.Record{runStarted, loadStarted, loadDone, verifyDone, runDone},
			ExitOK, []string{"verify: MATCH: 2 tables, 42 records"}, []string{"needs a repair", "not running"}},
		{"finished, counts differ", false, []journal.Record{runStarted, loadStarted, loadDone, verifyFailed, runFailed},
			ExitFailed, []string{"verify: FAILED: 1 table(s) do not match"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			work := writeJournal(t, tt.recs...)
			if tt.alive {
				holdLock(t, work)
			} else {
				leaveLock(t, work)
			}
			code, out, errOut := runOEDL("status", "--work", work)
			assert.Equal(t, tt.code, code, "%s\n%s", out, errOut)
			for _, w := range tt.want {
				assert.Contains(t, out, w)
			}
			for _, w := range tt.notWant {
				assert.NotContains(t, out, w)
			}
			lines := nonEmptyLines(out)
			assert.Contains(t, lines[len(lines)-1], "verify: ", "the verdict comes last")
		})
	}
}

// A utility the killed run left running is named, with what to do.
func TestStatusNamesOrphans(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process identity is read from /proc")
	}
	child := exec.Command("sleep", "60")
	require.NoError(t, child.Start())
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
	id, err := sysproc.Of(child.Process.Pid)
	require.NoError(t, err)
	work := writeJournal(t,
		journal.Record{Job: journal.RunJob, State: journal.Started, PID: 4242},
		journal.Record{Job: "load:PUB.order", Kind: "load", State: journal.Started, Table: "PUB.order", Area: "Orders"},
		journal.Record{Job: "load:PUB.order", State: journal.Running, Proc: &id},
	)
	leaveLock(t, work)
	code, out, _ := runOEDL("status", "--work", work)
	assert.Equal(t, ExitFailed, code)
	assert.Contains(t, out, "still running from the killed run: load:PUB.order (pid")
	assert.Contains(t, out, "oedl run --resume stops them")
}

func nonEmptyLines(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == '\n' })
}
