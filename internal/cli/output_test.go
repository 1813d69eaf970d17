package cli

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// unwritableDir is a directory nobody running the test can create a file
// in: a read-only one of our own, or, for root (whom permissions do not
// stop), sysfs, where even root cannot create a file.
func unwritableDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if os.Geteuid() == 0 {
		dir = "/sys"
	} else {
		require.NoError(t, os.Chmod(dir, 0o555))
		t.Cleanup(func() { _ = os.Chmod(dir, 0o755) })
	}
	if f, err := os.CreateTemp(dir, ".oedl-test-*"); err == nil {
		f.Close()
		_ = os.Remove(f.Name())
		t.Skipf("%s can be written here", dir)
	}
	return dir
}

// An output file that cannot be written is named as the DBA gave it, not
// by its directory: `oedl estimate --html w.html` run from a directory it
// cannot write in said "--html .: cannot write in ." (new-user trial 5).
func TestCheckOutputFileNamesTheFile(t *testing.T) {
	dir := unwritableDir(t)
	tests := []struct {
		name, path, want string
	}{
		{"relative, in the working directory", "w.html", "--html w.html: cannot write in " + dir},
		{"absolute", filepath.Join(dir, "w.html"), "--html " + filepath.Join(dir, "w.html") + ": cannot write in " + dir},
		{"in a directory to be made", filepath.Join("out", "w.html"), "--html " + filepath.Join("out", "w.html") + ": cannot write in " + dir},
	}
	t.Chdir(dir)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkOutputFile("--html", tt.path, oedlHTML)
			var ee *ExitError
			require.True(t, errors.As(err, &ee), "%v", err)
			assert.Equal(t, ExitPrecondition, ee.Code)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
