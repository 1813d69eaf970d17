package sim

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProstrctCreateValidateWritesNothing: -validate makes every check
// prostrct create makes before writing (the .st, a database or a file
// already where the new one goes, the block size) and the documented
// one create does not make (room for the fixed extents now: Progress,
// "Validating structure description files"), in every message language,
// and writes nothing: not the database, not an extent, not a directory an
// extent needs, not its .lg. The directory is listed before and after.
func TestProstrctCreateValidateWritesNothing(t *testing.T) {
	env := newDLC(t)
	langs := []struct{ name, promsgs string }{
		{"en", filepath.Join(env.dlc, "promsgs")},
		{"pt", filepath.Join(env.dlc, "prolang", "brz", "promsgs.brz")},
		{"de", filepath.Join(env.dlc, "prolang", "ger", "promsgs.ger")},
	}
	const tb = 1 << 30 // 1 TB in KB: more than any test machine has free, twice
	for _, tc := range []struct {
		name   string
		setup  func(t *testing.T, dir string) // before the listing
		st     func(dir string) string
		extra  []string
		bs     string
		ok     bool
		inText func(dir, stPath string) string // "": only the exit code
	}{
		{name: "valid, its directories not made yet", ok: true,
			st: func(d string) string {
				return "b " + d + "\nd \"Schema Area\":6,64;1 " + d + "\nd \"Data\":7,64;8 " + d + "/data/x_7.d1 f 1024\nd \"Data\":7,64;8 " + d + "/data/x_7.d2\n"
			}},
		{name: "the database exists",
			setup: func(t *testing.T, d string) {
				require.NoError(t, os.WriteFile(filepath.Join(d, "new.db"), []byte("x"), 0o644))
			},
			st:     func(d string) string { return "b " + d + "\nd \"Schema Area\":6,64;1 " + d + "\n" },
			inText: func(d, _ string) string { return filepath.Join(d, "new.db") }},
		{name: "an extent's file exists",
			setup: func(t *testing.T, d string) {
				require.NoError(t, os.WriteFile(filepath.Join(d, "new_7.d1"), []byte("mine"), 0o644))
			},
			st: func(d string) string {
				return "b " + d + "\nd \"Schema Area\":6,64;1 " + d + "\nd \"Data\":7,64;8 " + d + "\n"
			},
			inText: func(d, _ string) string { return filepath.Join(d, "new_7.d1") }},
		{name: "no room for the fixed extents",
			st: func(d string) string {
				return fmt.Sprintf("b %s\nd \"Schema Area\":6,64;1 %s\nd \"Data\":7,64;8 %s f %d\nd \"Data\":7,64;8 %s f %d\nd \"Data\":7,64;8 %s\n", d, d, d, tb, d, tb, d)
			},
			inText: func(d, _ string) string { return fmt.Sprintf("%d KB", 2*tb) }},
		{name: "no large files", extra: []string{"OESIM_LARGE_FILES=no"},
			st: func(d string) string {
				return "b " + d + "\nd \"Schema Area\":6,64;1 " + d + "\nd \"Data\":7,64;8 " + d + " f 2097152\nd \"Data\":7,64;8 " + d + "\n"
			},
			inText: func(_, stPath string) string { return stPath + ":3:" }},
		{name: "a block size OpenEdge has not", bs: "3000",
			st: func(d string) string { return "b " + d + "\nd \"Schema Area\":6,64;1 " + d + "\n" }},
		{name: "a syntax error",
			st:     func(d string) string { return "b " + d + "\nq \"Schema Area\":6,64;1 " + d + "\n" },
			inText: func(_, stPath string) string { return stPath + ":2" }},
	} {
		for _, l := range langs {
			t.Run(tc.name+"/"+l.name, func(t *testing.T) {
				dir := t.TempDir()
				if tc.setup != nil {
					tc.setup(t, dir)
				}
				stPath := filepath.Join(dir, "new.st")
				require.NoError(t, os.WriteFile(stPath, []byte(tc.st(dir)), 0o644))
				bs := tc.bs
				if bs == "" {
					bs = "8192"
				}
				before := listTreeStat(t, dir)
				r := env.run(t, append([]string{"PROMSGS=" + l.promsgs}, tc.extra...), "", "prostrct", "create", filepath.Join(dir, "new"), stPath, "-blocksize", bs, "-validate")
				assert.Equal(t, before, listTreeStat(t, dir), "-validate wrote nothing: %s", r.out)
				if tc.ok {
					require.Equal(t, exitOK, r.code, r.out)
					// The create it validated works.
					r = env.run(t, nil, "", "prostrct", "create", filepath.Join(dir, "new"), stPath, "-blocksize", bs)
					require.Equal(t, exitOK, r.code, r.out)
					assert.FileExists(t, filepath.Join(dir, "data", "x_7.d1"))
					return
				}
				assert.Equal(t, exitFail, r.code, r.out)
				if tc.inText != nil {
					assert.Contains(t, r.out, tc.inText(dir, stPath))
				}
				// What -validate refuses, the create refuses too (the space
				// check aside: oesim's extents are sparse).
				if !strings.Contains(tc.name, "room") {
					r = env.run(t, append([]string{"PROMSGS=" + l.promsgs}, tc.extra...), "", "prostrct", "create", filepath.Join(dir, "new"), stPath, "-blocksize", bs)
					assert.Equal(t, exitFail, r.code, r.out)
				}
			})
		}
	}
}

// listTreeStat is every name under dir with its size and modification time.
func listTreeStat(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		out = append(out, fmt.Sprintf("%s %d %s", p, fi.Size(), fi.ModTime()))
		return nil
	}))
	return out
}
