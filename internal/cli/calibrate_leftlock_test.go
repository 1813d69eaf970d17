package cli

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/simtest"
)

// TestCalibrateRefusesASourceLeftByACrash (safety trial 14): a source
// whose broker died without a shutdown keeps its DB.lk, and OpenEdge runs
// crash recovery at its next open, writing its BI and data extents. The
// calibration's tabanalys opened it anyway and removed the DB.lk, and said
// nothing. Now it refuses, exit 3, naming DB.lk, the source's files as
// they were.
func TestCalibrateRefusesASourceLeftByACrash(t *testing.T) {
	work := t.TempDir()
	dlc := simtest.DLC(t, work)
	src := filepath.Join(work, "src", "prod")
	simtest.Gen(t, dlc, work, src, "sports", "1MB", 3)
	t.Setenv("DLC", dlc)
	planDir := filepath.Join(work, "plan")
	code, _, stderr := runOedl(t, "plan", "--source", src, "--dlc", dlc, "-o", planDir)
	require.Equal(t, ExitOK, code, stderr)

	simtest.Run(t, dlc, work, filepath.Join(dlc, "bin", "proserve"), src)
	brokers := servingBrokers(t, src)
	require.NotEmpty(t, brokers)
	for _, pid := range brokers { // the broker this test started, as a crash ends it
		require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
		deadline := time.Now().Add(10 * time.Second)
		for running(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
	}
	require.FileExists(t, src+".lk")
	before := snapshot(t, filepath.Dir(src))

	code, _, stderr = runOedl(t, "calibrate", "--source", src, "--dlc", dlc, "--work", filepath.Join(work, "cal"),
		"--plan", planDir, "-o", filepath.Join(work, "cal.json"), "--sample-tables", "8", "--sample-max", "150KB")
	assert.Equal(t, ExitPrecondition, code, stderr)
	assert.Contains(t, stderr, src+".lk is there but nobody holds")
	assert.Equal(t, before, snapshot(t, filepath.Dir(src)), "the source's files are as they were")
	assert.NoFileExists(t, filepath.Join(work, "cal.json"))
}
