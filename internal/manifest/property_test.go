package manifest

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/simtest"
)

// TestPropertyNothingIsCreatedOverAFile: for random layouts (a source
// database with an extent outside its directory, another database, stray
// files, symbolic links absolute, relative, chained, dangling, to files)
// and random plans (target directory and name, .st paths that are ".",
// "./", absolute, relative, through links, with "..", missing
// directories, extent file names), whatever the proof accepts, oesim's
// prostrct create, run as oedl runs it (in the target's directory, after
// the preflight made the directories), creates over no existing file, and
// creates no file the proof did not name. The oracle is the simulator's
// own path handling, not this package's.
//
// 150 layouts by default (about 2 s); OEDL_E2E_EXHAUSTIVE=1 runs 1500.
func TestPropertyNothingIsCreatedOverAFile(t *testing.T) {
	if testing.Short() {
		t.Skip("runs oesim: skipped with -short")
	}
	dlc := simtest.DLC(t, t.TempDir())
	n := 150
	if os.Getenv("OEDL_E2E_EXHAUSTIVE") == "1" {
		n = 1500
	}
	accepted, refused := 0, 0
	for seed := range uint64(n) {
		ok := t.Run(fmt.Sprint("seed-", seed), func(t *testing.T) {
			if checkLayout(t, dlc, seed) {
				accepted++
			} else {
				refused++
			}
		})
		if !ok {
			break
		}
	}
	t.Logf("%d plans accepted and created by oesim, %d refused", accepted, refused)
	require.Positive(t, accepted, "the generator must produce plans the proof accepts")
	require.Positive(t, refused, "and plans it refuses")
}

// layoutLines are the files every layout starts with (see tree).
var layoutLines = []string{
	"src/prod.db", "src/prod.b1", "src/prod.d1", "src/prod_7.d1", "src/prod_8.d1", "src/prod.lg", "data1/prod_9.d1",
	"other/other.db", "other/other.b1", "other/other_7.d1", "tgt/", "data2/", "plain.d1",
}

const sourceST = "b src/prod.b1\nd \"Schema Area\":6,64;1 src/prod.d1\nd \"A\":7,64;8 src/prod_7.d1\nd \"B\":8,64;8 src/prod_8.d1\nd \"C\":9,64;8 data1/prod_9.d1\n"

// checkLayout builds one random layout and plan and checks the property;
// it reports whether the proof accepted the plan.
func checkLayout(t *testing.T, dlc string, seed uint64) bool {
	rng := rand.New(rand.NewPCG(seed, 0x0ed1))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	root := tree(t, layoutLines...)
	for _, stray := range []string{"tgt/new.b1", "tgt/prod.lk", "data2/new_7.d1", "tgt/new.oedl.json"} {
		if rng.IntN(6) == 0 {
			require.NoError(t, os.WriteFile(filepath.Join(root, stray), []byte("stray"), 0o644))
		}
	}
	require.NoError(t, os.MkdirAll(filepath.Join(root, "ln"), 0o755))
	for _, l := range []string{"a", "b", "c"} {
		target := pick(root+"/src", root+"/data1", root+"/other", root+"/tgt", root+"/data2", root+"/nowhere",
			root+"/plain.d1", "../src", "../data2", "b", "../ln/a", root+"/src/prod_7.d1")
		require.NoError(t, os.Symlink(target, filepath.Join(root, "ln", l)))
	}
	// prostrct refuses a name that is not a file; a random .st path is
	// any of these, relative ones from the target's directory.
	// Hostile paths (the source's, links, "..", existing files) among
	// harmless ones, so that both refusals and creations are common.
	hostile := []string{root + "/data1", root + "/src", root + "/ln/a", root + "/ln/b", root + "/ln/c", "../src",
		"../src/prod_7.d1", root + "/ln/a/../data2", root + "/plain.d1", "../ln/c/", "../ln/a/x.d1"}
	harmless := []string{".", "./", root + "/data2", "sub", "sub/", "../data2", "x.d1", root + "/data2/y.d1", root + "/data2/new/deeper", "../data2/z.b7"}
	path := func() string {
		if rng.IntN(5) == 0 {
			return pick(hostile...)
		}
		return pick(harmless...)
	}
	dir := filepath.Join(root, pick("tgt", "tgt", "tgt", "tgt/sub", "data2", "src", "data1", "other", "ln/a", "ln/b", "ln/c"))
	name := pick("new", "new", "new", "prod", "other")
	target := filepath.Join(dir, name)

	var st strings.Builder
	switch rng.IntN(3) {
	case 1:
		fmt.Fprintf(&st, "b %s\n", path())
	case 2:
		fmt.Fprintf(&st, "b %s f 1024\nb %s\n", path(), path())
	}
	if rng.IntN(10) < 7 {
		fmt.Fprintf(&st, "d \"Schema Area\":6,64;1 %s\n", path())
	}
	numbered := rng.IntN(2) == 0
	for i := range 1 + rng.IntN(3) {
		info := ""
		if numbered {
			info = fmt.Sprintf(":%d,64;8", []int{7, 8, 9, 12}[i])
		}
		extents := 1 + rng.IntN(2)
		for k := range extents {
			size := ""
			if k < extents-1 {
				size = " f 1024"
			}
			fmt.Fprintf(&st, "d \"Area%d\"%s %s%s\n", i, info, path(), size)
		}
	}
	for range rng.IntN(2) {
		fmt.Fprintf(&st, "a %s\n", path())
	}
	stPath := filepath.Join(root, "target.st")
	require.NoError(t, os.WriteFile(stPath, []byte(st.String()), 0o644))
	t.Logf("target %s, .st:\n%s", target, st.String())
	structure := parseST(t, st.String())
	if err := structure.Validate(); err != nil {
		t.Logf("invalid: %v", err)
		return false // prostrct refuses it before it creates anything; plan.Check too
	}

	entries, err := NewDatabase(OS{}, target, structure, dir)
	if err != nil {
		t.Logf("refused: %v", err)
		return false
	}
	src, err := ExistingDatabase(OS{}, "source", filepath.Join(root, "src", "prod"), parseST(t, strings.ReplaceAll(sourceST, " src/", " "+root+"/src/")))
	require.NoError(t, err)
	if _, err := Prove(OS{}, entries, Rules{Protected: []*Files{src}, Target: target}); err != nil {
		t.Logf("refused: %v", err)
		return false
	}

	before := snapshot(t, root)
	named := map[string]bool{}
	for _, e := range entries {
		require.NoError(t, os.MkdirAll(filepath.Dir(e.Resolved), 0o755), "the preflight makes the target's directories")
		named[e.Resolved] = true
	}
	res, err := execx.Local{}.Run(context.Background(), execx.Cmd{Path: filepath.Join(dlc, "bin", "prostrct"),
		Args: []string{"create", target, stPath, "-blocksize", "8192"}, Dir: filepath.Dir(target), Env: []string{"DLC=" + dlc}})
	after := snapshot(t, root)
	for p, was := range before {
		require.Equal(t, was, after[p], "%s existed before prostrct create and must be as it was", p)
	}
	require.NoError(t, err, "the proof accepted what prostrct refuses:\n%s", res.Output)
	for p, now := range after {
		if _, old := before[p]; !old && !strings.HasSuffix(now, "/") {
			require.True(t, named[p], "prostrct created %s, which the proof did not name", p)
		}
	}
	return true
}

// snapshot describes every entry under root: a file by identity, size and
// content, a link by its target, a directory by "/".
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			out[p] = "-> " + target
			return err
		case d.IsDir():
			out[p] = "/"
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		id, _ := identify(OS{}, p, fi)
		data, err := os.ReadFile(p)
		out[p] = fmt.Sprintf("%+v %d %x", id, fi.Size(), sha256.Sum256(data))
		return err
	}))
	return out
}
