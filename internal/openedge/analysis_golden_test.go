package openedge

import (
	"path/filepath"
	"testing"

	"github.com/oedl/oedl/internal/golden"
)

// assertGolden compares got with testdata/<name>, or rewrites it under -update.
func assertGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Assert(t, filepath.Join("testdata", filepath.FromSlash(name)), got)
}
