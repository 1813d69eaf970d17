package sim

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRelativePathDatabase: prodb of $DLC/empty makes a relative-path
// database (Progress: "PRODB maintains pathname convention"); moved with
// OS tools it still opens from any directory, its extents resolved from
// the .db's; prostrct list shows them "./name"; procopy of it and prostrct
// add on it give absolute paths ("PROCOPY uses absolute pathnames",
// "PROSTRCT ADD and pathnames").
func TestRelativePathDatabase(t *testing.T) {
	env := newDLC(t)
	w := env.work
	made := filepath.Join(w, "made", "rel")
	require.NoError(t, os.MkdirAll(filepath.Dir(made), 0o755))
	env.ok(t, "prodb", made, "empty")
	// Moved by OS tools to a directory the utilities do not run in.
	moved := filepath.Join(w, "elsewhere", "sub")
	require.NoError(t, os.MkdirAll(filepath.Dir(moved), 0o755))
	require.NoError(t, os.Rename(filepath.Dir(made), moved))
	db := filepath.Join(moved, "rel")

	out := env.ok(t, "prostrct", "list", db, filepath.Join(w, "rel.st"))
	assert.Contains(t, out, "Name: ./rel.db")
	assert.Contains(t, out, "Name: ./rel.b1")
	assert.Contains(t, out, "Name: ./rel.d1")
	assert.NotContains(t, out, w, "no extent is listed by an absolute path")
	st, err := os.ReadFile(filepath.Join(w, "rel.st"))
	require.NoError(t, err)
	assert.Contains(t, string(st), " ./rel.d1")
	env.ok(t, "proutil", db, "-C", "dbanalys")
	assert.NoFileExists(t, filepath.Join(w, "rel.b1"), "nothing is resolved from the utilities' directory")

	again := filepath.Join(w, "again")
	env.ok(t, "prodb", again, db)
	assert.Contains(t, env.ok(t, "prostrct", "list", again, filepath.Join(w, "again.st")), "Name: ./again.d1", "prodb keeps the convention")

	copied := filepath.Join(w, "copied")
	env.ok(t, "procopy", db, copied)
	assert.Contains(t, env.ok(t, "prostrct", "list", copied, filepath.Join(w, "copied.st")), "Name: "+copied+".d1")

	add := filepath.Join(w, "add.st")
	require.NoError(t, os.WriteFile(add, []byte("d \"Data\":7,64;8 "+moved+"\n"), 0o644))
	env.ok(t, "prostrct", "add", db, add)
	out = env.ok(t, "prostrct", "list", db, filepath.Join(w, "added.st"))
	assert.Contains(t, out, "Name: "+db+".d1", "prostrct add made it absolute-path")
	assert.Contains(t, out, "Name: "+db+"_7.d1")
	env.ok(t, "proutil", db, "-C", "dbanalys")
}
