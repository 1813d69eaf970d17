package hostse2e

import (
	"os"
	"testing"
)

// The binaries and the generated fixtures every test shares (binDir)
// go with the test binary: each run left one in $TMPDIR.
func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	os.Exit(code)
}
