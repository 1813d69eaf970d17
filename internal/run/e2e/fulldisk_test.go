package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPreparedTargetOnADiskFilledSince: oedl prepare makes the target on
// its own filesystem (a tmpfs); a DBA's file then fills that disk. Real
// prostrct create formats the fixed extents, so their space is the
// target's from the preparation on; oesim's were sparse files, so the
// DBA's file took it and the run's loads failed disk_full where
// OpenEdge's would not. Now:
//   - the disk filled to its last block: the run cannot open the kept
//     target (not even its DB.lk), exit 3 saying the disk is full, naming
//     the file, and it leaves no DB.lk behind (an empty one said "left
//     open" and made the target look used);
//   - the DBA frees 4 MiB: the run loads into the fixed extents prepare
//     formatted and is verified.
//
// The DBA's file is never written. It needs a tmpfs, so root (mount(2)).
func TestPreparedTargetOnADiskFilledSince(t *testing.T) {
	e := newEnv(t, "sports")
	mnt := filepath.Join(e.dir, "mnt")
	require.NoError(t, os.MkdirAll(mnt, 0o755))
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=96m"); err != nil {
		t.Skipf("a tmpfs is needed (mount(2) as root): %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(mnt, syscall.MNT_DETACH) })
	e.target = filepath.Join(mnt, "tgt", filepath.Base(e.target))
	require.NoError(t, os.MkdirAll(filepath.Dir(e.target), 0o755))
	r := e.oedl(nil, e.prepareArgs()...)
	require.Equal(t, 0, r.code, r.stderr)
	held := usedKB(t, mnt)
	assert.GreaterOrEqual(t, held, fixedExtentsKB(t, e.fx.planDir), "the prepared target holds its fixed extents' blocks")

	// The DBA fills the disk to its last block.
	dba := filepath.Join(mnt, "dba-export.dat")
	fill := bytes.Repeat([]byte("DBA data "), 1<<16)
	f, err := os.Create(dba)
	require.NoError(t, err)
	for {
		if _, err := f.Write(fill); err != nil {
			break
		}
	}
	require.NoError(t, f.Sync())
	before, err := os.ReadFile(dba)
	require.NoError(t, err)

	r = e.oedl(nil, e.runArgs()...)
	assert.Equal(t, 3, r.code, r.stderr)
	assert.Contains(t, r.stderr, "disk is full")
	assert.Contains(t, r.stderr, e.target+".lk", "the file that could not be written")
	assert.NoFileExists(t, e.target+".lk", "no DB.lk left behind")

	// The DBA frees 4 MiB.
	require.NoError(t, f.Truncate(int64(len(before))-4<<20))
	require.NoError(t, f.Close())
	before = before[:len(before)-4<<20]
	r = e.oedl(nil, e.runArgs()...)
	require.Equal(t, 0, r.code, r.stderr)
	assert.True(t, e.verified().OK)
	after, err := os.ReadFile(dba)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(before, after), "the DBA's file is never written")
}

// usedKB is what a filesystem's files hold.
func usedKB(t *testing.T, dir string) int64 {
	var st syscall.Statfs_t
	require.NoError(t, syscall.Statfs(dir, &st))
	return int64(st.Blocks-st.Bfree) * st.Bsize / 1024
}

// fixedExtentsKB sums the fixed extents of the plan's target.st.
func fixedExtentsKB(t *testing.T, planDir string) int64 {
	data, err := os.ReadFile(filepath.Join(planDir, "target.st"))
	require.NoError(t, err)
	var kb int64
	for _, line := range bytes.Split(data, []byte("\n")) {
		f := bytes.Fields(line)
		if n := len(f); n >= 2 && string(f[n-2]) == "f" {
			v, err := strconv.ParseInt(string(f[n-1]), 10, 64)
			require.NoError(t, err, "%s", line)
			kb += v
		}
	}
	return kb
}
