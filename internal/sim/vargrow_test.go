package sim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oedl/oedl/internal/sim/store"
	"github.com/oedl/oedl/internal/sim/vdisk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIdxbuildPaysForTheVariableExtentItGrows: the same table loaded into
// two targets that differ only in the Index area, variable in one and a
// fixed extent large enough in the other; idxbuild writes the same keys in
// both, and in the variable one it also formats every block the extent
// grows by (docs/oesim.md, "Variable extents grow formatted"), what the
// fixed extent paid at prostrct create. Before, the variable extent grew
// as a free sparse hole and both builds wrote the same sectors.
func TestIdxbuildPaysForTheVariableExtentItGrows(t *testing.T) {
	env, src := smallDB(t)
	tbl := biggest(analysis(t, env, src))
	dumpDir := filepath.Join(env.work, "dump")
	require.NoError(t, os.MkdirAll(dumpDir, 0o755))
	env.ok(t, "proutil", src, "-C", "dump", tbl.Name, dumpDir)
	bd := filepath.Join(dumpDir, tbl.Name+".bd")

	fixedIndex := strings.Replace(targetST, "d \"Index\":8,64;8 .\n", "d \"Index\":8,64;8 . f 65536\nd \"Index\":8,64;8 .\n", 1)
	require.NotEqual(t, targetST, fixedIndex)
	// idxbuild builds the table's indexes into the Index area; it returns
	// the sectors the build wrote and the bytes the area's variable
	// extent grew by.
	build := func(name, st string) (sectors, grown int64) {
		tgt := buildTarget(t, env, src, env.work, name, st)
		env.ok(t, "proutil", tgt, "-C", "load", bd)
		db, err := store.Open(store.PathsFor(tgt))
		require.NoError(t, err)
		exts := db.Ctl.AreaByNumber(8).Extents
		require.NoError(t, db.Close())
		variable := exts[len(exts)-1].Path
		size := func() int64 {
			st, err := os.Stat(variable)
			require.NoError(t, err)
			return st.Size()
		}
		before := size()
		state := t.TempDir()
		r := env.run(t, []string{"OESIM_STATE=" + state, vdisk.EnvIOPS + "=1000000"}, "", "proutil",
			tgt, "-C", "idxbuild", "all", "-TB", "64", "-TM", "32", "-TMB", "64")
		require.Equal(t, 0, r.code, r.out)
		return diskstats(t, state)[3], size() - before
	}
	varSectors, varGrown := build("variable", targetST)
	fixSectors, fixGrown := build("fixed", fixedIndex)
	require.Zero(t, fixGrown, "the fixed extent holds the indexes")
	require.Positive(t, varGrown, "the indexes grew the variable extent")
	t.Logf("variable Index extent grew %d bytes; idxbuild wrote %d sectors, %d into the fixed one", varGrown, varSectors, fixSectors)
	// A few sectors of slack: the log lines name the database, whose
	// paths differ in length.
	assert.InDelta(t, varGrown/512, varSectors-fixSectors, 8,
		"the variable extent's growth is written once more than the fixed build writes: %d bytes grown, %d and %d sectors written",
		varGrown, varSectors, fixSectors)
}
