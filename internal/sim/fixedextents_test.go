package sim

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
)

// allocatedBytes is what a file holds on disk (du's count), not its size.
func allocatedBytes(t *testing.T, path string) int64 {
	t.Helper()
	var st syscall.Stat_t
	require.NoError(t, syscall.Stat(path, &st))
	return st.Blocks * 512
}

// TestFixedExtentsHoldTheirBlocks: prostrct create and prostrct add format
// a fixed extent, as OpenEdge's do, so its blocks are on disk from then on
// and a disk filled afterwards cannot take them; proutil truncate area
// keeps them. oesim's fixed extents were sparse files (du: 0), so a disk
// filled between oedl prepare and oedl run failed oesim's loads where
// OpenEdge's would pass.
func TestFixedExtentsHoldTheirBlocks(t *testing.T) {
	env := newDLC(t)
	w := env.work
	dir := filepath.Join(w, "db")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	db := filepath.Join(dir, "x")
	stPath := filepath.Join(w, "x.st")
	require.NoError(t, os.WriteFile(stPath, []byte("b "+dir+" f 1024\nb "+dir+"\nd \"Schema Area\":6,64;1 "+dir+
		"\nd \"Data\":7,64;8 "+dir+" f 2048\nd \"Data\":7,64;8 "+dir+"\n"), 0o644))
	env.ok(t, "prostrct", "create", db, stPath, "-blocksize", "8192")
	addSt := filepath.Join(w, "add.st")
	require.NoError(t, os.WriteFile(addSt, []byte("d \"More\":8,64;8 "+dir+" f 1024\nd \"More\":8,64;8 "+dir+"\n"), 0o644))
	env.ok(t, "prostrct", "add", db, addSt)
	env.ok(t, "proutil", db, "-C", "truncate", "area", "Data")
	for _, tc := range []struct {
		file string
		kb   int64
	}{
		{"x.b1", 1024},
		{"x_7.d1", 2048},
		{"x_8.d1", 1024}, // prostrct add's
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join(dir, tc.file)
			fi, err := os.Stat(path)
			require.NoError(t, err)
			assert.Equal(t, tc.kb*1024, fi.Size())
			assert.GreaterOrEqual(t, allocatedBytes(t, path), tc.kb*1024, "the extent's blocks are on disk, not a sparse hole")
		})
	}
}

// TestDiskFullOnTheTargetsCreation: oesim's diskfull-after fault fires on
// prostrct create, prostrct add, procopy and _progres's load procedures,
// as on proutil's load: the utility prints OpenEdge's (6091) naming the
// file, in every message file, and fails. Before, the rule did nothing
// there and the utilities succeeded.
func TestDiskFullOnTheTargetsCreation(t *testing.T) {
	env, db := smallDB(t)
	w := env.work
	st, err := os.ReadFile(db + ".st")
	require.NoError(t, err)
	// newTarget is a directory and .st for a target with db's structure
	// on fixed extents.
	newTarget := func(t *testing.T, name string) (string, string) {
		dir := filepath.Join(w, name)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		stPath := filepath.Join(dir, name+".st")
		text := replaceDots(string(st), dir) + "d \"Fixed\":30,64;8 " + dir + " f 1024\nd \"Fixed\":30,64;8 " + dir + "\n"
		require.NoError(t, os.WriteFile(stPath, []byte(text), 0o644))
		return filepath.Join(dir, name), stPath
	}
	langs := []struct{ name, promsgs string }{
		{"en", filepath.Join(env.dlc, "promsgs")},
		{"pt", filepath.Join(env.dlc, "prolang", "brz", "promsgs.brz")},
		{"de", filepath.Join(env.dlc, "prolang", "ger", "promsgs.ger")},
	}
	for _, l := range langs {
		t.Run(l.name, func(t *testing.T) {
			lang := "PROMSGS=" + l.promsgs
			// saysFull checks the utility failed on (6091) naming a file
			// in dir.
			saysFull := func(t *testing.T, r result, dir string) {
				t.Helper()
				assert.Equal(t, exitFail, r.code, r.out)
				m, ok := openedge.NoSpace(r.out)
				require.True(t, ok, r.out)
				assert.Equal(t, openedge.MsgInsufficientSpace, m.Num, r.out)
				assert.Contains(t, m.Text, dir+string(filepath.Separator), "the file, and so the disk, that filled up")
			}
			tgt, stPath := newTarget(t, "create-"+l.name)
			r := env.run(t, []string{lang, "OESIM_FAULTS=prostrct:diskfull-after=512KB"}, "", "prostrct", "create", tgt, stPath, "-blocksize", "8192")
			saysFull(t, r, filepath.Dir(tgt))

			tgt, stPath = newTarget(t, "copy-"+l.name)
			env.ok(t, "prostrct", "create", tgt, stPath, "-blocksize", "8192")
			r = env.run(t, []string{lang, "OESIM_FAULTS=procopy:diskfull-after=0"}, "", "procopy", filepath.Join(env.dlc, "empty8"), tgt)
			saysFull(t, r, filepath.Dir(tgt))

			env.ok(t, "procopy", filepath.Join(env.dlc, "empty8"), tgt)
			r = env.run(t, []string{lang, "OESIM_FAULTS=_progres:diskfull-after=0"}, "",
				"_progres", "-b", "-db", tgt, "-p", "prodict/load_df.p", "-param", db+".df")
			saysFull(t, r, filepath.Dir(tgt))

			addSt := filepath.Join(w, "add-"+l.name+".st")
			require.NoError(t, os.WriteFile(addSt, []byte("d \"More\":31,64;8 "+filepath.Dir(tgt)+" f 1024\n"), 0o644))
			r = env.run(t, []string{lang, "OESIM_FAULTS=prostrct:diskfull-after=0"}, "", "prostrct", "add", tgt, addSt)
			saysFull(t, r, filepath.Dir(tgt))
		})
	}
}
