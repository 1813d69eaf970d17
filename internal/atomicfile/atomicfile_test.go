package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
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

// TestWritersHonourTheUmask: a DBA whose umask is 077 keeps what oedl
// writes (the plan's schema, the report, verify.json) private; oedl made
// every file 0644 whatever the umask said (new-user trial 5).
func TestWritersHonourTheUmask(t *testing.T) {
	for _, tc := range []struct {
		umask      int
		perm, want os.FileMode
	}{
		{0o022, Perm, 0o644},
		{0o077, Perm, 0o600},
		{0o002, Perm, 0o644},
		{0o027, 0o755, 0o750},
		{0o077, 0o755, 0o700},
	} {
		t.Run(fmt.Sprintf("umask %03o perm %03o", tc.umask, tc.perm), func(t *testing.T) {
			withUmask(t, tc.umask)
			path := filepath.Join(t.TempDir(), "plan.json")
			require.NoError(t, os.WriteFile(path, []byte("old"), 0o666))
			require.NoError(t, WriteFileMode(path, []byte("new"), tc.perm))
			info, err := os.Stat(path)
			require.NoError(t, err)
			assert.Equal(t, tc.want, info.Mode().Perm())
		})
	}
}

// withUmask sets the process's umask for the rest of a test. The umask is
// the process's: the test must not be parallel (parallel tests run after
// the sequential ones are done).
func withUmask(t *testing.T, umask int) {
	t.Helper()
	old := syscall.Umask(umask)
	t.Cleanup(func() { syscall.Umask(old) })
}

// TempFor reads back the name of the file a leftover temporary was for: a
// run killed mid-write left ".eta.json.1489450356.tmp" in its work
// directory (lefts30), which run.WorkEntries must know for what it is.
func TestTempFor(t *testing.T) {
	dir := t.TempDir()
	made, err := createTemp(dir, tempPrefix("eta.json"), tempSuffix, Perm)
	require.NoError(t, err)
	made.Close()
	tests := []struct {
		name, want string
		ok         bool
	}{
		{filepath.Base(made.Name()), "eta.json", true},
		{".eta.json.1489450356.tmp", "eta.json", true},
		{".journal.jsonl.0.tmp", "journal.jsonl", true},
		{"eta.json.1489450356.tmp", "", false},   // no leading dot
		{".eta.json.tmp", "", false},             // no random part
		{".eta.json.12ab.tmp", "", false},        // not digits
		{"..1.tmp", "", false},                   // no name
		{".eta.json.1489450356.tmpx", "", false}, // not the suffix
	}
	for _, tt := range tests {
		got, ok := TempFor(tt.name)
		assert.Equal(t, tt.ok, ok, tt.name)
		assert.Equal(t, tt.want, got, tt.name)
	}
}
