package poststeps

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/golden"
)

// TestScript: the script of each kind of source (golden files under
// testdata/, go test -update rewrites them): the steps that apply as
// commands, the others commented out with why, variables checked once.
func TestScript(t *testing.T) {
	tables := []string{"PUB.Customer", "PUB.order-line", "sales.Invoice"}
	tests := []struct {
		name string
		src  Source
	}{
		{"plain", Source{Known: true}},
		{"ai", Source{Known: true, AI: true}},
		{"ai_replication", Source{Known: true, AI: true, Replication: true}},
		{"unknown", Source{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			steps := Build("/opt/dlc", "/db/new/prod", "/work/run 1", tables, tt.src)
			script := Script("/db/new/prod", steps)
			golden.Assert(t, filepath.Join("testdata", tt.name+".sh"), []byte(script))
			if sh, err := exec.LookPath("sh"); err == nil {
				out, err := exec.Command(sh, "-n", "-c", script).CombinedOutput()
				require.NoError(t, err, "sh -n: %s", out)
			}
		})
	}
	golden.Assert(t, filepath.Join("testdata", "update-statistics.sql"), []byte(Statistics(tables)))
}

// TestScriptRefusesUnsetVariables: the script stops before any command
// when a variable of a step that applies is not set, naming it.
func TestScriptRefusesUnsetVariables(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	steps := Build("/nonexistent/dlc", "/db/new/prod", t.TempDir(), []string{"PUB.Customer"}, Source{Known: true, AI: true})
	cmd := exec.Command(sh, "-c", Script("/db/new/prod", steps))
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	out, err := cmd.CombinedOutput()
	require.Error(t, err)
	assert.Contains(t, string(out), "OEDL_BACKUP")
	assert.NotContains(t, string(out), "/nonexistent/dlc", "no command ran")
}

// TestWriteRead: what Write writes, Read reads back; no file, no steps.
func TestWriteRead(t *testing.T) {
	dir := t.TempDir()
	got, err := Read(dir)
	require.NoError(t, err)
	assert.Nil(t, got)
	steps := Build("/opt/dlc", "/db/t", dir, []string{"PUB.a"}, Source{Known: true, Replication: true})
	require.NoError(t, Write(dir, "/db/t", []string{"PUB.a"}, steps))
	got, err = Read(dir)
	require.NoError(t, err)
	assert.Equal(t, steps, got)
	st, err := os.Stat(filepath.Join(dir, ScriptFile))
	require.NoError(t, err)
	assert.NotZero(t, st.Mode()&0o100, "the script is executable")
	sql, err := os.ReadFile(filepath.Join(dir, StatisticsFile))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(sql), `UPDATE TABLE STATISTICS AND INDEX STATISTICS AND ALL COLUMN STATISTICS FOR "PUB"."a";`))

	require.NoError(t, os.WriteFile(filepath.Join(dir, JSONFile), []byte("{"), 0o644))
	_, err = Read(dir)
	assert.ErrorContains(t, err, JSONFile)
}

// TestWriteHonoursTheUmask: under the DBA's umask 077 the script and the
// steps are his alone; post-load.sh was chmod 0755 whatever the umask
// said (new-user trial 5).
func TestWriteHonoursTheUmask(t *testing.T) {
	old := syscall.Umask(0o077) // the process's: this test is not parallel
	t.Cleanup(func() { syscall.Umask(old) })
	dir := t.TempDir()
	require.NoError(t, Write(dir, "/db/t", []string{"PUB.a"}, Build("/opt/dlc", "/db/t", dir, []string{"PUB.a"}, Source{Known: true})))
	for name, want := range map[string]os.FileMode{ScriptFile: 0o700, StatisticsFile: 0o600, JSONFile: 0o600} {
		st, err := os.Stat(filepath.Join(dir, name))
		require.NoError(t, err)
		assert.Equal(t, want, st.Mode().Perm(), name)
	}
}

// A path with a line break (oedl run refuses one; the script guards
// itself too): in a comment, or in a command of a step that does not
// apply, the rest of the path was a line of its own, a command the DBA's
// shell ran (safety trial 7). Run with its variables set, the script now
// stops at its first command of oedl's (no sqlexp here) having run
// nothing of the path.
func TestScriptKeepsALineBreakInAComment(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	pwned := filepath.Join(dir, "PWNED")
	target := "/db/nl\ntouch " + pwned + "\n/x/prod"
	steps := Build(filepath.Join(dir, "nodlc"), target, "/work/run\ntouch "+pwned+"\n", []string{"PUB.Customer"}, Source{Known: true})
	script := Script(target, steps)
	cmd := exec.Command(sh, "-c", script)
	cmd.Env = append(os.Environ(), "OEDL_SQL_PORT=1", "OEDL_SQL_USER=u", "OEDL_SQL_PASSWORD=p", "OEDL_BACKUP=b")
	out, err := cmd.CombinedOutput()
	assert.Error(t, err, "stops at the missing sqlexp: %s", out)
	assert.NoFileExists(t, pwned, "%s", script)
}
