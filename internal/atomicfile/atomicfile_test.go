package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriters(t *testing.T) {
	tests := []struct {
		name  string
		write func(path string, data []byte) error
	}{
		{"WriteFile", WriteFile},
		{"WriteFileNoSync", WriteFileNoSync},
		{"Write", func(path string, data []byte) error {
			return Write(path, func(w io.Writer) error { _, err := w.Write(data); return err })
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "verify.json")
			require.NoError(t, os.WriteFile(path, []byte("old"), 0o600))
			require.NoError(t, tt.write(path, []byte("new content")))
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, "new content", string(got))
			info, err := os.Stat(path)
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(Perm), info.Mode().Perm())
			assertOnly(t, dir, "verify.json")
		})
	}
}

func TestFailedWriteLeavesTheOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.md")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o644))
	boom := errors.New("boom")
	err := Write(path, func(w io.Writer) error {
		fmt.Fprint(w, "half of it")
		return boom
	})
	require.ErrorIs(t, err, boom)
	got, _ := os.ReadFile(path)
	assert.Equal(t, "old", string(got), "nothing half-written replaces the file")
	assertOnly(t, dir, "report.md")
}

func TestMissingDirectoryNamesThePath(t *testing.T) {
	err := WriteFile(filepath.Join(t.TempDir(), "no", "such", "plan.json"), []byte("x"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "plan.json")
}

func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	assert.ElementsMatch(t, names, got, "no temporary file is left behind")
}
