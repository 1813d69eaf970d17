package openedge

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The structure and .df tests keep their own golden helper so that they do
// not depend on another test file of the package; the -update flag itself is
// shared and registered by whichever file initialises first.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files under testdata/")
	}
}

// stGolden compares got with testdata/<path>, or rewrites it under -update.
func stGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	path = filepath.Join("testdata", filepath.FromSlash(path))
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file; run go test -update once and review the diff")
	require.Equal(t, string(want), string(got), "output differs from %s (go test -update rewrites it)", path)
}
