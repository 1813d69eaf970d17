package e2e

import (
	"bytes"
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

// Ctrl-C (SIGINT) while dumps and loads run: the children stop, the
// brokers are shut down, the journal stays consistent, exit 130 with the
// advice to resume; --resume then finishes verified.
func TestInterruptAndResume(t *testing.T) {
	e := newEnv(t, "sports")
	cmd := exec.Command(filepath.Join(e.fx.bin, "oedl"), e.runArgs()...)
	cmd.Env = append(os.Environ(), e.extra...)
	// Slow start-up, so that the interrupt lands among running utilities.
	cmd.Env = append(cmd.Env, "OESIM_FAULTS=*:delay=150ms")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	waitForLoads(t, filepath.Join(e.work, journal.FileName), 3)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	err := cmd.Wait()
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "oedl should exit non-zero: %v", err)
	assert.Equal(t, 130, ee.ExitCode(), stderr.String())
	assert.Contains(t, stderr.String(), "--resume")
	recs := e.journal()
	last := recs[len(recs)-1]
	assert.Equal(t, journal.RunJob, last.Job)
	assert.Equal(t, "interrupted", last.Err)

	st := e.oedl(nil, "status", "--work", e.work)
	assert.Equal(t, 1, st.code, "an interrupted run has not finished: %s", st.stdout)
	assert.Contains(t, st.stdout, "verify: ")

	r := e.oedl(nil, e.runArgs("--resume")...)
	require.Equal(t, 0, r.code, r.stderr)
	e.verified()
}
