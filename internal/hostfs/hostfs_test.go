package hostfs

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/execx"
)

// awkwardName is a file name that must survive every operation.
const awkwardName = "it's a $(name) with `ticks`, spaces\nand naïve ünïcode.bd"

func sumOf(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// conformance checks an FS rooted at dir (which it owns) the same way
// for every implementation: the answers of a remote host are those of
// this machine.
// side runs a shell snippet on the FS's host by other means (the test's
// own hand on that machine).
func conformance(t *testing.T, f FS, dir string, side func(script string)) {
	ctx := context.Background()
	sub := filepath.Join(dir, "dump", "PUB.odd")
	require.NoError(t, f.MkdirAll(ctx, sub))
	file := filepath.Join(sub, awkwardName)
	data := bytes.Repeat([]byte("record\x00\xff"), 1000)
	require.NoError(t, f.WriteFile(ctx, file, data))
	got, err := f.ReadFile(ctx, file)
	require.NoError(t, err)
	require.Equal(t, data, got)

	sums, err := f.Sums(ctx, file, file)
	require.NoError(t, err)
	assert.Equal(t, []Sum{{Path: file, Size: int64(len(data)), SHA256: sumOf(data)}, {Path: file, Size: int64(len(data)), SHA256: sumOf(data)}}, sums)

	st, err := f.Lstat(ctx, file, filepath.Join(sub, "missing"), sub)
	require.NoError(t, err)
	require.Len(t, st, 2)
	assert.Equal(t, int64(len(data)), st[file].Size)
	assert.True(t, st[file].Mode.IsRegular())
	assert.True(t, st[sub].IsDir())
	assert.NotZero(t, st[file].Ino)

	side("ln -s elsewhere " + filepath.Join(sub, "link"))
	list, err := f.List(ctx, sub)
	require.NoError(t, err)
	var names []string
	for _, i := range list {
		names = append(names, i.Name())
		if i.Name() == "link" {
			assert.Equal(t, fs.ModeSymlink, i.Mode.Type())
		}
	}
	sort.Strings(names)
	assert.Equal(t, []string{awkwardName, "link"}, names)
	target, err := f.Readlink(ctx, filepath.Join(sub, "link"))
	require.NoError(t, err)
	assert.Equal(t, "elsewhere", target)

	_, err = f.List(ctx, filepath.Join(dir, "none"))
	assert.ErrorIs(t, err, fs.ErrNotExist)
	_, err = f.ReadFile(ctx, filepath.Join(dir, "none"))
	assert.ErrorIs(t, err, fs.ErrNotExist)

	moved := filepath.Join(sub, "moved.bd")
	require.NoError(t, f.Rename(ctx, file, moved))
	st, err = f.Lstat(ctx, file, moved)
	require.NoError(t, err)
	assert.Len(t, st, 1)

	require.NoError(t, f.WriteFrom(ctx, filepath.Join(sub, "streamed"), bytes.NewReader(data)))
	var back bytes.Buffer
	require.NoError(t, f.ReadTo(ctx, filepath.Join(sub, "streamed"), &back))
	assert.Equal(t, data, back.Bytes())

	// Nothing outside what it owns.
	outside := filepath.Join(filepath.Dir(dir), "not-oedls")
	side("echo keep > " + outside)
	for _, p := range []string{outside, dir, filepath.Join(dir, "..", "not-oedls"), "relative/x", "/"} {
		assert.ErrorIs(t, f.RemoveAll(ctx, p), ErrNotOwned, p)
	}
	assert.ErrorIs(t, f.Rename(ctx, moved, outside), ErrNotOwned)
	assert.ErrorIs(t, f.WriteFrom(ctx, outside, bytes.NewReader(nil)), ErrNotOwned)
	st, err = f.Lstat(ctx, outside)
	require.NoError(t, err)
	require.Len(t, st, 1, "a file it does not own is still there")

	in, err := f.SumsIn(ctx, sub)
	require.NoError(t, err)
	require.Len(t, in, 2, "the two regular files, not the link")
	sort.Slice(in, func(a, b int) bool { return in[a].Path < in[b].Path })
	assert.Equal(t, Sum{Path: moved, Size: int64(len(data)), SHA256: sumOf(data)}, in[0])
	_, err = f.SumsIn(ctx, filepath.Join(dir, "none"))
	assert.ErrorIs(t, err, fs.ErrNotExist)

	require.NoError(t, f.Fresh(ctx, sub))
	list, err = f.List(ctx, sub)
	require.NoError(t, err)
	assert.Empty(t, list)
	assert.ErrorIs(t, f.Fresh(ctx, outside), ErrNotOwned)

	require.NoError(t, f.RemoveAll(ctx, filepath.Join(dir, "dump")))
	st, err = f.Lstat(ctx, filepath.Join(dir, "dump"))
	require.NoError(t, err)
	assert.Empty(t, st)
}

// A target's file the proof allowed is removed as a file, on either kind
// of host: one that became a directory since is refused, its tree left
// whole (safety trial 5); a symbolic link goes, not what it leads to; a
// missing name is no error; a file not owned is refused.
func TestRemoveFileNeverATree(t *testing.T) {
	ctx := context.Background()
	for name, f := range map[string]FS{"local": &Local{}, "remote": &Remote{Name: "here", R: execx.Local{}}} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			file, tree := filepath.Join(dir, "prod_7.d1"), filepath.Join(dir, "prod_8.d1")
			link, linked := filepath.Join(dir, "prod_9.d1"), filepath.Join(t.TempDir(), "someone.d1")
			require.NoError(t, os.WriteFile(file, []byte("made"), 0o644))
			require.NoError(t, os.MkdirAll(tree, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(tree, "keep"), []byte("someone's"), 0o644))
			require.NoError(t, os.WriteFile(linked, []byte("someone's"), 0o644))
			require.NoError(t, os.Symlink(linked, link))
			missing, empty := filepath.Join(dir, "prod_10.d1"), filepath.Join(dir, "prod_11.d1")
			require.NoError(t, os.Mkdir(empty, 0o755))
			f.Allow(file, tree, link, missing, empty)

			require.NoError(t, f.RemoveFile(ctx, file))
			assert.NoFileExists(t, file)
			assert.Error(t, f.RemoveFile(ctx, tree))
			assert.FileExists(t, filepath.Join(tree, "keep"))
			assert.Error(t, f.RemoveFile(ctx, empty), "not even an empty directory (os.Remove would take it)")
			assert.DirExists(t, empty)
			require.NoError(t, f.RemoveFile(ctx, link))
			_, err := os.Lstat(link)
			assert.ErrorIs(t, err, fs.ErrNotExist, "the link goes")
			assert.FileExists(t, linked, "what it led to stays")
			assert.NoError(t, f.RemoveFile(ctx, missing))
			assert.ErrorIs(t, f.RemoveFile(ctx, filepath.Join(dir, "other")), ErrNotOwned)
		})
	}
}

func TestLocalConformance(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "work")
	l := &Local{}
	l.Own(dir)
	conformance(t, l, dir, localSide(t))
}

// Remote's scripts, run by this machine's shell: the same answers as
// Local (over SSH they run the same way, see TestRemoteOverSSH).
func TestRemoteScriptsConformance(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "work")
	r := &Remote{Name: "here", R: execx.Local{}}
	r.Own(dir)
	require.NoError(t, r.CheckTools(context.Background()))
	conformance(t, r, dir, localSide(t))
}

func localSide(t *testing.T) func(string) {
	return func(script string) {
		out, err := exec.Command("sh", "-c", script).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
}

func TestCopy(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	from := &Local{}
	from.Own(filepath.Join(base, "a"))
	to := &Remote{Name: "b", R: execx.Local{}}
	to.Own(filepath.Join(base, "b"))
	src := filepath.Join(base, "a", awkwardName)
	require.NoError(t, os.MkdirAll(filepath.Dir(src), 0o755))
	data := bytes.Repeat([]byte{1, 2, 3, 0}, 300000)
	require.NoError(t, os.WriteFile(src, data, 0o644))
	want := Sum{Path: src, Size: int64(len(data)), SHA256: sumOf(data)}
	dst := filepath.Join(base, "b", "dump", "t.bd")

	sum, err := Copy(ctx, from, src, to, dst, want)
	require.NoError(t, err)
	assert.Equal(t, Sum{Path: dst, Size: want.Size, SHA256: want.SHA256}, sum)
	got, err := os.ReadFile(dst)
	require.NoError(t, err)
	assert.Equal(t, data, got)

	// A source that changed since its sum was taken: nothing lands.
	dst2 := filepath.Join(base, "b", "dump", "t.bd2")
	bad := want
	bad.SHA256 = sumOf([]byte("other"))
	_, err = Copy(ctx, from, src, to, dst2, bad)
	require.Error(t, err)
	assert.True(t, IsMismatch(err), "%v", err)
	for _, p := range []string{dst2, dst2 + PartSuffix} {
		_, serr := os.Stat(p)
		assert.True(t, os.IsNotExist(serr), "%s must not exist", p)
	}

	// A source that is gone: nothing lands either.
	_, err = Copy(ctx, from, src+"-gone", to, dst2, want)
	require.Error(t, err)
	_, serr := os.Stat(dst2 + PartSuffix)
	assert.True(t, os.IsNotExist(serr))
}

func TestParseStat(t *testing.T) {
	infos, err := ParseStat([]byte("a b\x0081a4\x0012\x0064\x007\x001795472730.744163719\x001795472731.5\x001795472732.000000001\x00dir\x0041ed\x004096\x0064\x008\x000.000000000\x001.0\x002.0\x00"))
	require.NoError(t, err)
	require.Len(t, infos, 2)
	assert.Equal(t, Info{Path: "a b", Mode: 0o644, Size: 12, Dev: 64, Ino: 7, Birth: 1795472730744163719,
		Mtime: 1795472731500000000, Ctime: 1795472732000000001}, infos[0])
	assert.True(t, infos[1].IsDir())
	assert.Zero(t, infos[1].Birth)
	for _, bad := range []string{"x\x00zz\x001\x001\x001\x000\x000\x000\x00", "x\x00", "x\x0081a4\x00-1\x001\x001\x000\x000\x000\x00",
		"\x0081a4\x001\x001\x001\x000\x000\x000\x00", "x\x0081a4\x001\x001\x001\x001.x\x000\x000\x00", "x\x0081a4\x001\x001\x001\x000\x00m\x000\x00",
		"x\x0081a4\x0012\x0064\x007\x000.0\x00"} {
		_, err := ParseStat([]byte(bad))
		assert.Error(t, err, "%q", bad)
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add([]byte("a b\x0081a4\x0012\x0064\x007\x001795472730.744163719\x001795472731.5\x001795472732.0\x00"))
	f.Add([]byte("dir\x0041ed\x004096\x0064\x008\x000.000000000\x001.0\x002.0\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		infos, err := ParseStat(data)
		if err != nil {
			return
		}
		for _, i := range infos {
			if i.Path == "" || i.Size < 0 || i.Birth < 0 {
				t.Fatalf("accepted %+v", i)
			}
		}
	})
}

// An owned tree is changed only through its own directories: WORK/dump
// moved to another disk and linked back, a dump's directory emptied there
// would be a directory of the DBA's of that name (safety trial 7). The
// link itself, the last name, may go: removing it removes no file.
func TestOwnedNeverThroughALink(t *testing.T) {
	ctx := context.Background()
	for name, f := range map[string]FS{"local": &Local{}, "remote": &Remote{Name: "here", R: execx.Local{}}} {
		t.Run(name, func(t *testing.T) {
			base := t.TempDir()
			work, other := filepath.Join(base, "work"), filepath.Join(base, "other")
			mine := filepath.Join(other, "PUB.Customer", "mine.txt")
			require.NoError(t, os.MkdirAll(filepath.Dir(mine), 0o755))
			require.NoError(t, os.WriteFile(mine, []byte("the DBA's"), 0o644))
			require.NoError(t, os.MkdirAll(work, 0o755))
			require.NoError(t, os.Symlink(other, filepath.Join(work, "dump")))
			f.(interface{ Own(...string) }).Own(work)

			dumpDir := filepath.Join(work, "dump", "PUB.Customer")
			for op, err := range map[string]error{
				"fresh":      f.Fresh(ctx, dumpDir),
				"removeall":  f.RemoveAll(ctx, dumpDir),
				"rename":     f.Rename(ctx, filepath.Join(dumpDir, "mine.txt"), filepath.Join(work, "x")),
				"removefile": f.RemoveFile(ctx, filepath.Join(dumpDir, "mine.txt")),
			} {
				assert.ErrorIs(t, err, ErrThroughLink, op)
				assert.ErrorContains(t, err, filepath.Join(work, "dump")+" is", op)
			}
			got, err := os.ReadFile(mine)
			require.NoError(t, err)
			assert.Equal(t, "the DBA's", string(got))

			require.NoError(t, f.RemoveAll(ctx, filepath.Join(work, "dump")), "the link itself")
			assert.FileExists(t, mine)
		})
	}
}
