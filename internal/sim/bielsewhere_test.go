package sim

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBIElsewhereLeavesNoDBb1: a target.st that puts the BI in a
// directory of its own. prostrct create, procopy $DLC/empty8, a schema
// load, a load, an index rebuild and a dump leave beside t.db only the
// files a real OpenEdge leaves there (t.db, t.lg and the data extents
// the .st put there): oesim's schema lock was DB.b1 beside DB.db, an
// empty stray BI a DBA takes for a misplaced extent and the target's
// manifest does not list. The lock is the real BI extent.
func TestBIElsewhereLeavesNoDBb1(t *testing.T) {
	env, db := smallDB(t)
	dir, bidir := filepath.Join(env.work, "t"), filepath.Join(env.work, "bi")
	for _, d := range []string{dir, bidir} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	st := filepath.Join(env.work, "t.st")
	require.NoError(t, os.WriteFile(st, []byte("b "+bidir+"\nd \"Schema Area\":6,64;1 "+dir+"\nd \"Data\":7,64;8 "+dir+"\n"), 0o644))
	tgt := filepath.Join(dir, "t")
	env.ok(t, "prostrct", "create", tgt, st, "-blocksize", "8192")
	env.ok(t, "procopy", filepath.Join(env.dlc, "empty8"), tgt)
	env.ok(t, "_progres", "-b", "-db", tgt, "-1", "-p", "prodict/load_df.p", "-param", intoData(t, db+".df", env.work))
	bd := dumpOne(t, env, db, "Customer")
	env.ok(t, "proutil", tgt, "-C", "load", bd)
	env.ok(t, "proutil", tgt, "-C", "idxbuild", "all")
	env.ok(t, "proutil", tgt, "-C", "dump", "Customer", env.work)

	assert.Equal(t, []string{"t.d1", "t.db", "t.lg", "t_7.d1"}, listTree(t, dir), "no DB.b1 beside the .db")
	assert.Equal(t, []string{"t.b1"}, listTree(t, bidir), "the BI where the .st put it")
}
