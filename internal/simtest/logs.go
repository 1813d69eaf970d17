package simtest

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// KeepLogsOnFailure logs every database log (.lg) under dir when t fails,
// before t's temporary directories go. A broker's stderr goes to its
// database's .lg (oesim's proserve sends it there, as OpenEdge does), so
// a failure that only shows under load keeps its cause in the test output.
// Call it after the t.TempDir that holds dir, so it runs before that
// directory's removal.
func KeepLogsOnFailure(t testing.TB, dir string) {
	t.Helper()
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || filepath.Ext(p) != ".lg" {
				return nil
			}
			if b, err := os.ReadFile(p); err == nil {
				t.Logf("%s:\n%s", p, b)
			}
			return nil
		})
	})
}
