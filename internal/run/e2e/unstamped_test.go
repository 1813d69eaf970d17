package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/manifest"
	"github.com/oedl/oedl/internal/run"
	"github.com/oedl/oedl/internal/sysproc"
)

// kill -9 of oedl prepare while prostrct create makes the target: the
// target's record names every file and stamps none (the stamp follows the
// create). The DBA removes the half-made files and builds his own
// database at that path, with his records. Prepared again, the record
// proved his files by their names alone, and oedl removed his database
// and created its own (safety trial 6). A target whose create-target never
// finished holds no record (loads come after it), so one that holds
// records is not that target: refused, exit 3, his files untouched.
func TestPrepareAgainRefusesADatabaseMadeSinceAtUnstampedNames(t *testing.T) {
	probe := newEnv(t, "sports")
	r := probe.oedl(nil, probe.prepareArgs()...)
	require.Equal(t, 0, r.code, r.stderr)
	at := 0
	for i, rec := range probe.prepareJournal() {
		if rec.Job == "create-target" && rec.State == journal.Running {
			at = i + 1 // prostrct create has started: the record is written
			break
		}
	}
	require.Positive(t, at)

	e := newEnv(t, "sports")
	killed := e.oedl([]string{"OEDL_TEST_CRASH_AT=" + strconv.Itoa(at)}, e.prepareArgs()...)
	require.Equal(t, -1, killed.code, killed.stderr)
	marker, err := filepath.EvalSymlinks(e.work)
	require.NoError(t, err)
	deadline := time.Now().Add(time.Minute)
	for len(sysproc.WithEnv(run.WorkEnv, marker)) > 0 {
		require.True(t, time.Now().Before(deadline), "the killed preparation's prostrct never ended")
		time.Sleep(20 * time.Millisecond) // the orphaned prostrct, another process, finishing
	}
	rec, err := manifest.ReadRecord(manifest.OS{}, manifest.RecordPath(e.target))
	require.NoError(t, err)
	require.NotNil(t, rec)
	for _, f := range rec.Files {
		require.Nil(t, f.ID, "the kill came after the stamp: %s", f.Path)
	}

	// The DBA: the half-made target out, his own database in.
	dir := filepath.Dir(e.target)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, x := range entries {
		if !strings.HasPrefix(x.Name(), filepath.Base(e.target)+".oedl.") {
			require.NoError(t, os.Remove(filepath.Join(dir, x.Name())))
		}
	}
	dlc := func(prog string, args ...string) {
		c := exec.Command(filepath.Join(e.fx.dlc, "bin", prog), args...)
		c.Dir, c.Env = dir, append(os.Environ(), e.extra...)
		out, err := c.CombinedOutput()
		require.NoError(t, err, "%s %v\n%s", prog, args, out)
	}
	dumps := t.TempDir()
	dlc("proutil", e.source, "-C", "dump", "PUB.Customer", dumps)
	dlc("prostrct", "create", e.target, filepath.Join(e.fx.planDir, "target.st"))
	dlc("procopy", filepath.Join(e.fx.dlc, "empty8"), e.target)
	dlc("_progres", "-b", "-db", e.target, "-p", "load_df.p", "-param", filepath.Join(e.fx.planDir, "target.df"))
	dlc("proutil", e.target, "-C", "load", filepath.Join(dumps, "Customer.bd"))
	before := snapshotDir(t, dir)

	again := e.oedl(nil, e.prepareArgs()...)
	assert.Equal(t, 3, again.code, again.stderr)
	assert.Contains(t, again.stderr, "PUB.Customer")
	assert.Equal(t, before, snapshotDir(t, dir), "the DBA's database is as he left it")
}

// snapshotDir is every regular file of dir but oedl's lock and record:
// its inode and SHA-256.
func snapshotDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, x := range entries {
		if strings.Contains(x.Name(), ".oedl.") || strings.HasSuffix(x.Name(), ".lk") {
			continue
		}
		p := filepath.Join(dir, x.Name())
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		fi, err := os.Lstat(p)
		require.NoError(t, err)
		id, _ := manifest.IDOf(fi)
		sum := sha256.Sum256(data)
		out[x.Name()] = strconv.FormatUint(id.Ino, 10) + " " + hex.EncodeToString(sum[:])
	}
	return out
}
