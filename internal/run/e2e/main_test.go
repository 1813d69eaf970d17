package e2e

import (
	"os"
	"testing"
)

// The binaries and the generated fixtures every test shares (baseDir)
// go with the test binary: each run left one in $TMPDIR.
func TestMain(m *testing.M) {
	code := m.Run()
	if baseDir != "" {
		_ = os.RemoveAll(baseDir)
	}
	os.Exit(code)
}
