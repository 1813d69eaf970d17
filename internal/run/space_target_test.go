package run

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
)

// TestSpaceOfTheExtentsDirectories: the target's room is checked where
// target.st puts its extents, not in the .db's directory. A plan whose
// extents went to a small filesystem passed the preflight (the .db's
// directory had room) and the run failed at its loads, after the dumps.
// The extents' directory here is /dev/shm, a filesystem of its own, with
// a fixed extent bigger than it (only described: checkSpace writes
// nothing).
func TestSpaceOfTheExtentsDirectories(t *testing.T) {
	small := "/dev/shm"
	free := func(dir string) (int64, [2]int32) {
		var st syscall.Statfs_t
		if err := syscall.Statfs(dir, &st); err != nil {
			t.Skipf("statfs %s: %v", dir, err)
		}
		return int64(st.Bavail) * int64(st.Bsize), st.Fsid.X__val
	}
	cfg := fakeSetup(t, testTables...)
	cfg.fill()
	require.NoError(t, os.MkdirAll(cfg.Work, 0o755))
	smallFree, smallFS := free(small)
	_, workFS := free(filepath.Dir(cfg.Work))
	extent := smallFree + 64<<20 // more than it holds; nothing is written
	if smallFS == workFS {
		t.Skipf("needs %s on a filesystem of its own", small)
	}
	dir, err := os.MkdirTemp(small, "oedl-extents-")
	if err != nil {
		t.Skipf("%s: %v", small, err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	st := &openedge.Structure{Areas: []*openedge.StructArea{
		{Type: openedge.AreaData, Name: "Schema Area", Number: 6, RPB: 64, BPC: 1, Extents: []openedge.Extent{{Path: "."}}},
		{Type: openedge.AreaData, Name: "Cust", Number: 7, RPB: 64, BPC: 8, Extents: []openedge.Extent{
			{Path: dir, Fixed: true, SizeKB: extent >> 10}, {Path: dir}}},
	}}
	r := &runner{cfg: &cfg}
	_, err = r.checkSpace(st)
	var pe *PreconditionError
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, err.Error(), "not enough disk space on the filesystem of "+dir)

	st.Areas[1].Extents = []openedge.Extent{{Path: filepath.Dir(cfg.Target)}}
	msg, err := r.checkSpace(st)
	require.NoError(t, err, "the extents beside the .db")
	assert.Contains(t, msg, "target in "+filepath.Dir(filepath.Dir(cfg.Target)))
}
