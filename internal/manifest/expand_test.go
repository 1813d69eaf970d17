package manifest

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
)

func parseST(t testing.TB, text string) *openedge.Structure {
	t.Helper()
	st, err := openedge.ParseStructure(strings.NewReader(text), "target.st")
	require.NoError(t, err)
	return st
}

// paths are the entries' paths relative to root.
func paths(t *testing.T, root string, entries []Entry) []string {
	t.Helper()
	var out []string
	for _, e := range entries {
		rel, err := filepath.Rel(root, e.Resolved)
		require.NoError(t, err)
		out = append(out, rel)
	}
	return out
}

// TestNewDatabase: the files prostrct create makes from a .st, named as it
// names them, resolved from the directory it runs in.
func TestNewDatabase(t *testing.T) {
	root := tree(t, "tgt/", "data/", "ln/data -> /data", "afile.d1")
	tests := []struct {
		name, st string
		want     []string // after new.db, new.lg, new.lk
	}{
		{"no b, no Schema Area: prostrct adds them", "d \"Data\":7,64;8 .\n",
			[]string{"tgt/new.b1", "tgt/new.d1", "tgt/new_7.d1"}},
		{"relative, absolute, through a link, ending in /",
			"b .\nb ../data\nd \"Schema Area\":6,64;1 .\nd \"Data\":7,64;8 " + root + "/ln/data f 1024\nd \"Data\":7,64;8 ../data/sub/\n",
			[]string{"tgt/new.b1", "data/new.b2", "tgt/new.d1", "data/new_7.d1", "data/sub/new_7.d2"}},
		{"unnumbered areas from 7 after the highest; a and t numbered per type",
			"b .\nd \"Schema Area\" .\nd \"A\" .\nd \"B\" .\na .\na ../data\nt .\n",
			[]string{"tgt/new.b1", "tgt/new.d1", "tgt/new_7.d1", "tgt/new_8.d1", "tgt/new.a1", "data/new.a2", "tgt/new.t1"}},
		{"a directory that does not exist yet (oedl creates it) or a file name",
			"b newdir\nd \"Schema Area\" ../data/extra.d1\nd \"Data\":12,64;8 ../afile.d1\n",
			[]string{"tgt/newdir/new.b1", "data/extra.d1", "afile.d1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entries, err := NewDatabase(OS{}, filepath.Join(root, "tgt", "new.db"), parseST(t, tt.st), filepath.Join(root, "tgt"))
			require.NoError(t, err)
			assert.Equal(t, append([]string{"tgt/new.db", "tgt/new.lg", "tgt/new.lk"}, tt.want...), paths(t, root, entries))
		})
	}

	entries, err := NewDatabase(OS{}, filepath.Join(root, "tgt", "new"), parseST(t, "b .\nd \"Data\":7,64;8 . f 1024\n"), filepath.Join(root, "tgt"))
	require.NoError(t, err)
	assert.Equal(t, `extent 1 of area "Data", target.st:2`, entries[len(entries)-1].What)
	assert.Equal(t, "the Schema Area extent prostrct adds when the structure has none", entries[3].What)
	assert.Equal(t, "before-image extent 1, target.st:1", entries[4].What)
}

func TestNewDatabaseRefuses(t *testing.T) {
	root := tree(t, "tgt/", "data/", "ln/deep -> /data/a/b", "data/a/b/")
	tests := []struct {
		name, st, want string
	}{
		{"two extents on one file", "b .\nd \"Data\":7,64;8 x.d1\nd \"Data\":7,64;8 x.d1\n", "is the same file as extent 1 of area \"Data\", target.st:2"},
		{"an extent on another", "b .\nd \"Data\":7,64;8 new.b1\n", "is the same file as before-image extent 1, target.st:1"},
		{"a file taken for a directory", "b .\nd \"Data\":7,64;8 new.db\n", "would be inside " /* new.db */},
		{"'..' after a link", "b ln/deep/..\n", `"..\" after a symbolic link`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := parseST(t, strings.ReplaceAll(tt.st, "ln/", "../ln/"))
			_, err := NewDatabase(OS{}, filepath.Join(root, "tgt", "new"), st, filepath.Join(root, "tgt"))
			require.Error(t, err)
			assert.True(t, IsInput(err), "bad input whatever the filesystem holds: %v", err)
			assert.Contains(t, err.Error(), strings.ReplaceAll(tt.want, `\"`, `"`))
		})
	}
	_, err := NewDatabase(OS{}, "relative/db", parseST(t, "b .\n"), root)
	assert.Error(t, err)
}
