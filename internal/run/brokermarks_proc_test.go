package run

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Brokers read from /proc, by this process (localBrokerMarks) and by the
// script a host runs (brokerMarksScript, here run by sh on this machine):
// a process whose argv is _mprosrv DB is listed with the WorkEnv it was
// started with, empty when it has none; another database's is not.
func TestBrokerMarksFromProc(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("no /proc")
	}
	sleep, err := exec.LookPath("sleep")
	require.NoError(t, err)
	dir := t.TempDir()
	broker := filepath.Join(dir, "_mprosrv")
	data, err := os.ReadFile(sleep)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(broker, data, 0o755))
	// A copy of sleep named _mprosrv: argv[1], the database's name to
	// the lists, is its time to sleep (no broker is needed to be listed).
	start := func(db string, env ...string) int {
		cmd := exec.Command(broker, db)
		cmd.Env = append(os.Environ(), env...)
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd.Process.Pid
	}
	ours := start("3600", WorkEnv+"=/w/this")
	dba := start("3601")
	start("3602", WorkEnv+"=/w/other")
	for name, list := range map[string]func(db string) []brokerMark{
		"local": func(db string) []brokerMark { m, err := localBrokerMarks(db); require.NoError(t, err); return m },
		"script": func(db string) []brokerMark {
			out, err := exec.Command("sh", "-c", brokerMarksScript, "sh", db, WorkEnv).Output()
			require.NoError(t, err)
			return parseBrokerMarks(string(out))
		},
	} {
		assert.Equal(t, []brokerMark{{pid: ours, work: "/w/this"}}, list("3600"), name)
		assert.Equal(t, []brokerMark{{pid: dba}}, list("3601"), name)
		assert.Empty(t, list("3603"), name)
	}
}
