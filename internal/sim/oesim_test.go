package sim

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOesimInstallTouchesNoOneElsesDLC: `oesim install DIR` lays out a
// simulated $DLC only in a new or empty directory or over its own earlier
// install; a directory that may be a licensed OpenEdge is refused with its
// files untouched, and a flag is never taken for the directory.
func TestOesimInstallTouchesNoOneElsesDLC(t *testing.T) {
	oesim := func(t *testing.T, dir string, args ...string) (int, string) {
		t.Helper()
		t.Chdir(dir)
		var out, errOut bytes.Buffer
		code := run(append([]string{"oesim"}, args...), nil, &out, &errOut)
		return code, out.String() + errOut.String()
	}
	t.Run("over a real DLC", func(t *testing.T) {
		dlc := t.TempDir()
		real := filepath.Join(dlc, "bin", "proutil")
		require.NoError(t, os.MkdirAll(filepath.Dir(real), 0o755))
		require.NoError(t, os.WriteFile(real, []byte("#!/bin/sh\n# OpenEdge\n"), 0o755))
		code, out := oesim(t, t.TempDir(), "install", dlc)
		assert.NotEqual(t, exitOK, code, out)
		assert.Contains(t, out, "no bin/oesim")
		got, err := os.ReadFile(real)
		require.NoError(t, err)
		assert.Equal(t, "#!/bin/sh\n# OpenEdge\n", string(got), "the real proutil is untouched")
		entries, err := os.ReadDir(dlc)
		require.NoError(t, err)
		assert.Len(t, entries, 1, "nothing added beside it")
	})
	t.Run("new, then again over itself", func(t *testing.T) {
		dlc := filepath.Join(t.TempDir(), "dlc")
		for range 2 {
			code, out := oesim(t, t.TempDir(), "install", dlc)
			require.Equal(t, exitOK, code, out)
			assert.FileExists(t, filepath.Join(dlc, "bin", "oesim"))
		}
	})
	for _, args := range [][]string{{"install", "--help"}, {"install", "-h"}, {"gen", "--help"}} {
		t.Run(args[0]+" "+args[1], func(t *testing.T) {
			cwd := t.TempDir()
			code, out := oesim(t, cwd, args...)
			assert.Equal(t, exitOK, code, out)
			assert.Contains(t, strings.ToLower(out), "usage")
			entries, err := os.ReadDir(cwd)
			require.NoError(t, err)
			assert.Empty(t, entries, "help writes nothing")
		})
	}
	t.Run("a flag is no directory", func(t *testing.T) {
		cwd := t.TempDir()
		code, _ := oesim(t, cwd, "install", "--dir")
		assert.Equal(t, exitUsage, code)
		assert.NoDirExists(t, filepath.Join(cwd, "--dir"))
	})
}
