package sim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProstrctRefusesSharedExtentFiles: two extents that resolve to one
// file (a directory that does not exist is a file name, so two lines
// naming it are one file) would overwrite each other; prostrct create and
// add refuse them, naming the .st line, and leave the database as it was.
func TestProstrctRefusesSharedExtentFiles(t *testing.T) {
	env := newDLC(t)
	w := env.work
	nodir := filepath.Join(w, "no-such-dir")
	head := "b " + w + "\nd \"Schema Area\":6,64;1 " + w + "\n"
	for _, tc := range []struct {
		name string
		st   string
		line int // the .st line refused
	}{
		{"two extents of an area on a missing directory",
			head + "d \"Data\":7,64;8 " + nodir + " f 1024\nd \"Data\":7,64;8 " + nodir + "\n", 4},
		{"two areas on one file",
			head + "d \"A\":7,64;8 " + filepath.Join(w, "shared") + "\nd \"B\":8,64;8 " + filepath.Join(w, "shared") + "\n", 4},
		{"a data extent on the recovery area's file",
			"b " + filepath.Join(w, "bi") + "\nd \"Schema Area\":6,64;1 " + w + "\nd \"A\":7,64;8 " + filepath.Join(w, "bi") + "\n", 3},
		{"an extent on the control file",
			head + "d \"A\":7,64;8 " + filepath.Join(w, "new.db") + "\n", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stPath := filepath.Join(w, "new.st")
			require.NoError(t, os.WriteFile(stPath, []byte(tc.st), 0o644))
			r := env.run(t, nil, "", "prostrct", "create", filepath.Join(w, "new"), stPath, "-blocksize", "8192")
			assert.Equal(t, exitFail, r.code, r.out)
			assert.Contains(t, r.out, stPath+":"+itoa(tc.line)+":")
			assert.Contains(t, strings.ToLower(r.out), "same file")
			assert.NoFileExists(t, filepath.Join(w, "new.db"))
			r = env.run(t, nil, "", "prostrct", "create", filepath.Join(w, "new"), stPath, "-validate")
			assert.Equal(t, exitFail, r.code, "-validate checks it too: %s", r.out)
		})
	}

	db := filepath.Join(w, "db", "x")
	require.NoError(t, os.MkdirAll(filepath.Dir(db), 0o755))
	dbSt := filepath.Join(w, "x.st")
	require.NoError(t, os.WriteFile(dbSt, []byte("b "+filepath.Dir(db)+"\nd \"Schema Area\":6,64;1 "+filepath.Dir(db)+
		"\nd \"Data\":7,64;8 "+filepath.Dir(db)+"\n"), 0o644))
	env.ok(t, "prostrct", "create", db, dbSt, "-blocksize", "8192")
	before := env.ok(t, "prostrct", "list", db, filepath.Join(w, "before.st"))
	existing := filepath.Join(filepath.Dir(db), "x_7.d1")
	require.FileExists(t, existing)
	for _, tc := range []struct {
		name string
		st   string
		line int
	}{
		{"a new area on an existing extent", "d \"More\":9,64;8 " + existing + "\n", 1},
		{"an existing area on its own extent", "d \"Data\":7,64;8 " + existing + "\n", 1},
		{"two new extents on a missing directory", "d \"More\":9,64;8 " + nodir + " f 1024\nd \"More\":9,64;8 " + nodir + "\n", 2},
	} {
		t.Run("add: "+tc.name, func(t *testing.T) {
			addSt := filepath.Join(w, "add.st")
			require.NoError(t, os.WriteFile(addSt, []byte(tc.st), 0o644))
			r := env.run(t, nil, "", "prostrct", "add", db, addSt)
			assert.Equal(t, exitFail, r.code, r.out)
			assert.Contains(t, r.out, addSt+":"+itoa(tc.line)+":")
			assert.Contains(t, strings.ToLower(r.out), "same file")
			assert.Contains(t, r.out, "prostrct add FAILED. (12867)")
			after := env.ok(t, "prostrct", "list", db, filepath.Join(w, "after.st"))
			assert.Equal(t, before, after, "the database is unchanged")
		})
	}
}

// prostrct create never writes over a file that exists: an existing
// extent (or a link where an extent goes, whatever it points to) is
// refused, naming it, and nothing is created or changed.
func TestProstrctCreateRefusesExistingFiles(t *testing.T) {
	env := newDLC(t)
	dir := filepath.Join(env.work, "db")
	other := filepath.Join(env.work, "someone-elses.d1")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(other, []byte("not ours"), 0o644))
	st := "b " + dir + "\nd \"Schema Area\":6,64;1 " + dir + "\nd \"Data\":7,64;8 " + dir + " f 1024\nd \"Data\":7,64;8 " + dir + "\n"
	stPath := filepath.Join(env.work, "new.st")
	require.NoError(t, os.WriteFile(stPath, []byte(st), 0o644))
	db := filepath.Join(dir, "new")
	for _, tc := range []struct {
		name  string
		place func(path string) error
	}{
		{"an extent file left behind", func(p string) error { return os.WriteFile(p, []byte("old data"), 0o644) }},
		{"a link where an extent goes", func(p string) error { return os.Symlink(other, p) }},
		{"a dangling link", func(p string) error { return os.Symlink(filepath.Join(env.work, "nowhere"), p) }},
	} {
		for _, name := range []string{"new.b1", "new.d1", "new_7.d1", "new_7.d2"} {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				existing := filepath.Join(dir, name)
				require.NoError(t, tc.place(existing))
				t.Cleanup(func() { os.Remove(existing) })
				before := listTree(t, env.work)
				r := env.run(t, nil, "", "prostrct", "create", db, stPath, "-blocksize", "8192")
				assert.Equal(t, exitFail, r.code, r.out)
				assert.Contains(t, r.out, existing+" already exists")
				assert.Equal(t, before, listTree(t, env.work), "nothing created")
				data, err := os.ReadFile(other)
				require.NoError(t, err)
				assert.Equal(t, "not ours", string(data))
			})
		}
	}
	env.ok(t, "prostrct", "create", db, stPath, "-blocksize", "8192")
}
