package journal

import (
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAppendOnFullDiskLeavesNoTornMiddleLine: the work directory's disk
// fills while a run goes on (the DBA's full disk, nu-trial6). An Append
// whose write is cut short left the line's first bytes in the journal, and
// the next Append, once the DBA had freed space, glued its record onto
// them: a corrupt line in the middle, and the resume refused the journal
// ("the run cannot be resumed safely from a damaged journal"). The test
// binary, re-executed under RLIMIT_FSIZE (a real short write, EFBIG, as
// ENOSPC cuts a write on a full disk), appends until a write fails, lifts
// the limit (space freed) and appends twice more; every line must then be
// a record, and a record Append said was written must be read back.
func TestAppendOnFullDiskLeavesNoTornMiddleLine(t *testing.T) {
	if path := os.Getenv("OEDL_JOURNAL_FULLFS_CHILD"); path != "" {
		fullDiskChild(path)
		return
	}
	path := filepath.Join(t.TempDir(), FileName)
	child := exec.Command(os.Args[0], "-test.run=^TestAppendOnFullDiskLeavesNoTornMiddleLine$")
	child.Env = append(os.Environ(), "OEDL_JOURNAL_FULLFS_CHILD="+path)
	out, err := child.CombinedOutput()
	require.NoError(t, err, "%s", out)
	recs, err := Read(path)
	require.NoError(t, err, "the journal after a full disk and the space freed")
	require.NotEmpty(t, recs)
	last := recs[len(recs)-1]
	assert.Equal(t, "after-space-freed", last.Job, "the record appended once the space was back")
	for i, r := range recs {
		assert.Equal(t, int64(i+1), r.Seq, "records numbered without a gap")
	}
}

// fullDiskChild runs in the re-executed binary: see the test above.
func fullDiskChild(path string) {
	fail := func(msg string, err error) {
		os.Stderr.WriteString(msg + ": " + err.Error() + "\n")
		os.Exit(3)
	}
	signal.Ignore(syscall.SIGXFSZ) // the write fails with EFBIG instead of killing the process
	w, _, err := Open(path)
	if err != nil {
		fail("open", err)
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		fail("getrlimit", err)
	}
	small := lim
	small.Cur = 1000 // a few records, then a write cut in its middle
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &small); err != nil {
		fail("setrlimit", err)
	}
	failed := false
	for i := 0; i < 100 && !failed; i++ {
		failed = w.Append(Record{Job: "dump:PUB.table" + strconv.Itoa(i), State: Done}) != nil
	}
	if !failed {
		fail("no write failed", os.ErrInvalid)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		fail("setrlimit back", err)
	}
	for _, job := range []string{"load:PUB.table0", "after-space-freed"} {
		if err := w.Append(Record{Job: job, State: Done}); err != nil {
			fail("append after the space was freed", err)
		}
	}
	if err := w.Close(); err != nil {
		fail("close", err)
	}
	os.Exit(0)
}
