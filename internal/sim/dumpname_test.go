package sim

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
)

// A table name with '/' or ".." (no real OpenEdge name can hold either:
// letters, digits and # $ % & - _ only) must not let a dump write outside
// the directory it is given: the real proutil writes DIR/<table>.bd, and
// so does oesim, with the separator mapped to '_'.
func TestDumpNameStaysInItsDirectory(t *testing.T) {
	env := newDLC(t)
	db := filepath.Join(env.work, "db", "odd")
	require.NoError(t, os.MkdirAll(filepath.Dir(db), 0o755))
	st := "b .\nd \"Schema Area\":6,64;1 .\nd \"Data\":7,64;8 .\n"
	require.NoError(t, os.WriteFile(db+".st", []byte(st), 0o644))
	tables := map[string]string{"../../escape": ".._.._escape.bd", "a/b": "a_b.bd", "..": "...bd"}
	var df string
	for name := range tables {
		df += `ADD TABLE "` + name + `"
  AREA "Data"

ADD FIELD "n" OF "` + name + `" AS integer
  FORMAT "->,>>>,>>9"
  INITIAL "0"
  POSITION 2
  ORDER 10

`
	}
	df += ".\nPSC\ncpstream=UTF-8\n.\n0000000000\n"
	require.NoError(t, os.WriteFile(db+".df", []byte(df), 0o644))
	env.ok(t, "prostrct", "create", db, db+".st", "-blocksize", "8192")
	env.ok(t, "procopy", filepath.Join(env.dlc, "empty8"), db)
	env.ok(t, "_progres", "-b", "-db", db, "-1", "-p", "prodict/load_df.p", "-param", db+".df")

	outer := filepath.Join(env.work, "dump")
	dir := filepath.Join(outer, "a", "b")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	before := listTree(t, env.work)
	for name, file := range tables {
		out := env.ok(t, "proutil", db, "-C", "dump", name, dir)
		assert.True(t, openedge.HasMessage(out, openedge.MsgDumpComplete), out)
		assert.FileExists(t, filepath.Join(dir, file), name)
	}
	after := listTree(t, env.work)
	var added []string
	for _, p := range after {
		if !contains(before, p) {
			added = append(added, p)
		}
	}
	sort.Strings(added)
	want := []string{}
	for _, file := range tables {
		want = append(want, filepath.Join("dump", "a", "b", file))
	}
	sort.Strings(want)
	assert.Equal(t, want, added, "the dumps wrote exactly their files, in their directory")
}

// listTree lists the files under root, relative to it.
func listTree(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, p)
		out = append(out, rel)
		return err
	}))
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
