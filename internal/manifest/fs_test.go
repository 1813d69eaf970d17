package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tree lays out a directory from a list of "path", "path/" (directory) and
// "path -> target" (symbolic link) lines under a temporary root.
func tree(t testing.TB, lines ...string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	for _, l := range lines {
		name, target, link := strings.Cut(l, " -> ")
		p := filepath.Join(root, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		switch {
		case link:
			if strings.HasPrefix(target, "/") {
				target = filepath.Join(root, target)
			}
			require.NoError(t, os.Symlink(target, p))
		case strings.HasSuffix(name, "/"):
			require.NoError(t, os.MkdirAll(p, 0o755))
		default:
			require.NoError(t, os.WriteFile(p, []byte(name), 0o644))
		}
	}
	return root
}

var resolveTree = []string{
	"src/prod.db", "src/prod_7.d1", "data/", "file",
	"ln/src -> /src", "ln/rel -> ../src", "ln/chain -> rel", "ln/up -> ..",
	"ln/loop1 -> loop2", "ln/loop2 -> loop1", "ln/dangling -> /nowhere/x", "ln/db -> /src/prod.db",
}

func TestResolve(t *testing.T) {
	root := tree(t, resolveTree...)
	tests := []struct {
		path, want string
		err        error
	}{
		{"src/prod.db", "src/prod.db", nil},
		{"ln/src/prod.db", "src/prod.db", nil},
		{"ln/rel/prod_7.d1", "src/prod_7.d1", nil},
		{"ln/chain/new.d1", "src/new.d1", nil},
		{"ln/db", "src/prod.db", nil},
		{"ln/src/../data", "data", nil},           // ".." goes up from where the link led
		{"ln/up/src/prod.db", "src/prod.db", nil}, // a link to ..
		{"missing/../src/x", "src/x", nil},
		{"data/new/deeper/x.d1", "data/new/deeper/x.d1", nil}, // what does not exist yet is kept as written
		{"ln/dangling", "nowhere/x", nil},
		{"ln/loop1/x", "", ErrLoop},
		{"file/x", "", syscall.ENOTDIR},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got, err := Resolve(OS{}, root+"/"+tt.path) // not Join: it would clean ".." away
			if tt.err != nil {
				require.ErrorIs(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, filepath.Join(root, tt.want), got)
		})
	}
	_, err := Resolve(OS{}, "relative/path")
	assert.Error(t, err, "only absolute paths are resolved")
}

// FuzzResolve: on a tree of links, wherever filepath.EvalSymlinks (the
// kernel's walk, done by the standard library) finds a path, Resolve
// finds the same, and Resolve never panics.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{"ln/src/prod.db", "ln/up/ln/rel/../data", "ln/chain/./prod_7.d1", "a/../ln/db", "ln/loop1", "//src//"} {
		f.Add(s)
	}
	root := tree(f, resolveTree...)
	f.Fuzz(func(t *testing.T, rel string) {
		if strings.ContainsRune(rel, 0) {
			return
		}
		p := root + string(filepath.Separator) + rel
		got, err := Resolve(OS{}, p)
		want, werr := filepath.EvalSymlinks(p)
		if werr != nil {
			return // a path the kernel cannot walk: Resolve may still name what would be created
		}
		require.NoError(t, err, "%s resolves to %s for EvalSymlinks", p, want)
		require.Equal(t, want, got, "%s", p)
		again, err := Resolve(OS{}, got)
		require.NoError(t, err)
		require.Equal(t, got, again, "a resolved path resolves to itself")
	})
}

func TestIDOfTellsHardLinksApart(t *testing.T) {
	root := tree(t, "a", "b")
	require.NoError(t, os.Link(filepath.Join(root, "a"), filepath.Join(root, "hard")))
	id := func(name string) ID {
		fi, err := os.Lstat(filepath.Join(root, name))
		require.NoError(t, err)
		i, ok := IDOf(fi)
		require.True(t, ok)
		return i
	}
	assert.Equal(t, id("a"), id("hard"))
	assert.NotEqual(t, id("a"), id("b"))
	_, ok := IDOf(fakeInfo{})
	assert.False(t, ok)
}

type fakeInfo struct{ os.FileInfo }

func (fakeInfo) Sys() any { return nil }
