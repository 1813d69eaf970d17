package e2e

import (
	"bytes"
	"errors"
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

// Ctrl-C during idxbuild (nu-trial9): oedl status does not read "overall
// 100%" with the indexes not built, and the resume's idxbuild is done
// again after the stop, not "after a repair" (status-polish).
func TestInterruptIdxbuildAndResume(t *testing.T) {
	e := newEnv(t, "sports")
	cmd := exec.Command(filepath.Join(e.fx.bin, "oedl"), e.runArgs()...)
	// A slow idxbuild, so that the interrupt lands while it runs.
	cmd.Env = append(append(os.Environ(), e.extra...), "OESIM_FAULTS=idxbuild:delay=20s")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	waitForJob(t, filepath.Join(e.work, journal.FileName), "idxbuild")
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	err := cmd.Wait()
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "oedl should exit non-zero: %v", err)
	require.Equal(t, 130, ee.ExitCode(), stderr.String())

	st := e.oedl(nil, "status", "--work", e.work)
	assert.Equal(t, 1, st.code, st.stdout)
	assert.Regexp(t, `(?m)^overall .* (6[0-9])%`, st.stdout, "dumped and loaded, not indexed: two thirds")

	r := e.oedl(nil, e.runArgs("--resume")...)
	require.Equal(t, 0, r.code, r.stderr)
	e.verified()
	var idx string
	for _, l := range strings.Split(r.stderr, "\n") {
		if strings.Contains(l, "done    idxbuild") {
			idx = l
		}
	}
	assert.Contains(t, idx, "(attempt 2: done again after the stop)", r.stderr)
}

// waitForJob waits until the journal of another process records the
// start of job.
func waitForJob(t *testing.T, jpath, job string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		recs, _ := journal.Read(jpath)
		for _, r := range recs {
			if r.Job == job && r.State == journal.Started {
				return
			}
		}
		require.True(t, time.Now().Before(deadline), "%s never started", job)
		time.Sleep(20 * time.Millisecond) // polling the journal of another process
	}
}
