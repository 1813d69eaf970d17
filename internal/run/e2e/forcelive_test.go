package e2e

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Safety trial 7's open hole (force-live): a run ends verified, the DBA
// goes live on its target (proserve, his users write), later shuts it
// down, and the old command line runs again with --force (shell history,
// a cron, a runbook), in a new work directory or as `oedl prepare
// --force`. OpenEdge writes a database in place, so the record still
// names every file with its device and inode, and --force deleted the
// production database. Now it is refused, exit 3, naming the target, the
// first changed file and what changed, and every file of the target,
// the log included, is byte for byte what it was. A target nobody
// touched since its run left it is still replaced.
func TestForceRefusesATargetWentLiveOn(t *testing.T) {
	tests := []struct {
		name    string
		use     func(e *env, dlc func(string, ...string))
		prepare bool // `oedl prepare --force` instead of `oedl run --force`
		refused bool
		// identity: oesim writes DB.db anew on a write (OpenEdge writes
		// it in place), so the record's inode proves it another file
		// before its state is compared.
		identity bool
	}{
		{name: "untouched since its run left it is replaced", use: func(*env, func(string, ...string)) {}},
		{name: "served and a sequence set by a user then shut down", use: func(e *env, dlc func(string, ...string)) {
			dlc("proserve", e.target)
			setSequence(e, dlc)
			dlc("proshut", e.target, "-by")
		}, refused: true, identity: true},
		{name: "served and shut down with nothing written by users", use: func(e *env, dlc func(string, ...string)) {
			dlc("proserve", e.target)
			dlc("proshut", e.target, "-by")
		}, refused: true},
		{name: "served and shut down then oedl prepare --force", prepare: true, use: func(e *env, dlc func(string, ...string)) {
			dlc("proserve", e.target)
			dlc("proshut", e.target, "-by")
		}, refused: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "sports")
			r := e.oedl(nil, e.runArgs()...)
			require.Equal(t, 0, r.code, r.stderr)
			e.verified()
			tc.use(e, e.dlc())
			before := everyByte(t, filepath.Dir(e.target))

			first := e.work
			e.work = filepath.Join(e.dir, "work2") // the old command line, its work directory cleared or another
			args := e.runArgs("--force")
			if tc.prepare {
				args = e.prepareArgs("--force")
			}
			r = e.oedl(nil, args...)
			if !tc.refused {
				require.Equal(t, 0, r.code, r.stderr)
				e.verified()
				return
			}
			assert.Equal(t, 3, r.code, r.stderr)
			wants := []string{
				"--force replaces a target only while it is exactly as the oedl run that made it left it, and " + e.target + " is not",
				e.target + ".lg changed since the oedl run in " + first + " left it at ", "its log grew",
				"remove it yourself (prodel", "or choose another --target",
			}
			if tc.identity {
				wants = []string{e.target + ".db (its control area) is a file of the database " + e.target + " that its oedl record does not prove"}
			}
			for _, want := range wants {
				assert.Contains(t, r.stderr, want)
			}
			assert.Equal(t, before, everyByte(t, filepath.Dir(e.target)), "every file of the target as it was, its log included")
		})
	}
}

// everyByte is the size and SHA-256 of every file under dir, the
// database's log included.
func everyByte(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, en := range entries {
		if en.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, en.Name()))
		require.NoError(t, err)
		m[en.Name()] = fmt.Sprintf("%d %x", len(data), sha256.Sum256(data))
	}
	require.NotEmpty(t, m)
	return m
}
