package run

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/manifest"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/units"
)

// TestSpaceOfTheExtentsDirectories: the target's room is checked where
// target.st puts its extents, not in the .db's directory. A plan whose
// extents went to a small filesystem passed the preflight (the .db's
// directory had room) and the run failed at its loads, after the dumps.
// The extents' directory here is /dev/shm, a filesystem of its own, with
// a fixed extent bigger than it (only described: checkSpace writes
// nothing).
func TestSpaceOfTheExtentsDirectories(t *testing.T) {
	cfg, dir, smallFree := smallExtentsDir(t)
	extent := smallFree + 64<<20 // more than it holds; nothing is written
	st := &openedge.Structure{Areas: []*openedge.StructArea{
		{Type: openedge.AreaData, Name: "Schema Area", Number: 6, RPB: 64, BPC: 1, Extents: []openedge.Extent{{Path: "."}}},
		{Type: openedge.AreaData, Name: "Cust", Number: 7, RPB: 64, BPC: 8, Extents: []openedge.Extent{
			{Path: dir, Fixed: true, SizeKB: extent >> 10}, {Path: dir}}},
	}}
	r := &runner{cfg: &cfg}
	_, err := r.checkSpace(st)
	var pe *PreconditionError
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, err.Error(), "not enough disk space on the filesystem of "+dir)

	st.Areas[1].Extents = []openedge.Extent{{Path: filepath.Dir(cfg.Target)}}
	msg, err := r.checkSpace(st)
	require.NoError(t, err, "the extents beside the .db")
	assert.Contains(t, msg, "target in "+filepath.Dir(filepath.Dir(cfg.Target)))
}

// smallExtentsDir is a directory for extents on a filesystem other than
// the work's (/dev/shm), with the room it has.
func smallExtentsDir(t *testing.T) (Config, string, int64) {
	small := "/dev/shm"
	cfg := fakeSetup(t, testTables...)
	cfg.fill()
	require.NoError(t, os.MkdirAll(cfg.Work, 0o755))
	smallFree, smallFS := freeOn(t, small)
	_, workFS := freeOn(t, filepath.Dir(cfg.Work))
	if smallFS == workFS {
		t.Skipf("needs %s on a filesystem of its own", small)
	}
	dir, err := os.MkdirTemp(small, "oedl-extents-")
	if err != nil {
		t.Skipf("%s: %v", small, err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return cfg, dir, smallFree
}

func freeOn(t *testing.T, dir string) (int64, [2]int32) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Skipf("statfs %s: %v", dir, err)
	}
	return int64(st.Bavail) * int64(st.Bsize), st.Fsid.X__val
}

// TestSpaceOfAKeptTarget: a target kept by a resume (or after oedl
// prepare) is checked where target.st puts its areas' extents, as a new
// one is, not in the .db's directory; its fixed extents exist already, so
// one bigger than the filesystem's room is no reason to refuse.
func TestSpaceOfAKeptTarget(t *testing.T) {
	cfg, dir, smallFree := smallExtentsDir(t)
	st := &openedge.Structure{Areas: []*openedge.StructArea{
		{Type: openedge.AreaData, Name: "Schema Area", Number: 6, RPB: 64, BPC: 1, Extents: []openedge.Extent{{Path: "."}}},
		{Type: openedge.AreaData, Name: "Cust", Number: 7, RPB: 64, BPC: 8, Extents: []openedge.Extent{
			{Path: dir, Fixed: true, SizeKB: (smallFree + 64<<20) >> 10}, {Path: dir}}},
	}}
	r := &runner{cfg: &cfg, resumeKeepsTarget: true}
	msg, err := r.checkSpace(st)
	require.NoError(t, err, "the fixed extent is there already")
	assert.Contains(t, msg, "target in "+dir)
}

// TestSpaceOfAReplacedTarget: --force over oedl's own earlier target
// removes its files before it creates the new one, so the room they hold
// is free for it. Counted as needed again, they refused a run on a disk
// that holds the new target. A file with another link frees nothing.
func TestSpaceOfAReplacedTarget(t *testing.T) {
	cfg, dir, _ := smallExtentsDir(t)
	old := filepath.Join(dir, "tgt_7.d1")
	require.NoError(t, os.WriteFile(old, make([]byte, 64<<20), 0o644))
	free, _ := freeOn(t, dir)
	st := &openedge.Structure{Areas: []*openedge.StructArea{
		{Type: openedge.AreaData, Name: "Schema Area", Number: 6, RPB: 64, BPC: 1, Extents: []openedge.Extent{{Path: "."}}},
		{Type: openedge.AreaData, Name: "Cust", Number: 7, RPB: 64, BPC: 8, Extents: []openedge.Extent{
			{Path: dir, Fixed: true, SizeKB: (free + 32<<20) >> 10}, {Path: dir}}},
	}}
	r := &runner{cfg: &cfg, proof: &targetProof{replace: []manifest.Found{{Entry: manifest.Entry{Path: old, Resolved: old}}}}}
	msg, err := r.checkSpace(st)
	require.NoError(t, err, "the earlier target's 64 MiB are freed for the new one")
	assert.Contains(t, msg, "64 MiB of it held by the earlier target's files this run replaces")

	require.NoError(t, os.Link(old, filepath.Join(dir, "another-name")))
	_, err = r.checkSpace(st)
	var pe *PreconditionError
	require.ErrorAs(t, err, &pe, "removing one of its two names frees nothing")
	assert.Contains(t, err.Error(), "not enough disk space on the filesystem of "+dir)
}

// TestSpaceOfTheLOBs: a table's LOBs are in its binary dump (PROUTIL DUMP
// writes them into the .bd) and then in the target's LOB area. Counted as
// its records alone, a table of 16 KB of records and 611 MB of LOBs (KB
// 000029044's layout) asked the work and the LOB area's directory for 16
// KB. Here the LOBs are larger than /dev/shm, where the LOB area's extent
// is: refused, naming that directory; the dumps count them too.
func TestSpaceOfTheLOBs(t *testing.T) {
	cfg, dir, smallFree := smallExtentsDir(t)
	if workFree, _ := freeOn(t, filepath.Dir(cfg.Work)); workFree < smallFree+2<<30 {
		// The dumps of LOBs larger than /dev/shm must fit the work's
		// filesystem, or the refusal names the work instead.
		t.Skipf("needs more free on the work's filesystem (%d bytes) than on %s (%d bytes)", workFree, dir, smallFree)
	}
	cfg.Plan.Tables[0].LOBBytes = smallFree + 64<<20
	cfg.Plan.Tables[0].LOBArea = "Blobs"
	st := &openedge.Structure{Areas: []*openedge.StructArea{
		{Type: openedge.AreaData, Name: "Schema Area", Number: 6, RPB: 64, BPC: 1, Extents: []openedge.Extent{{Path: "."}}},
		{Type: openedge.AreaData, Name: cfg.Plan.Tables[0].DataArea, Number: 7, RPB: 64, BPC: 8, Extents: []openedge.Extent{{Path: "."}}},
		{Type: openedge.AreaData, Name: "Blobs", Number: 8, RPB: 1, BPC: 8, Extents: []openedge.Extent{{Path: dir}}},
	}}
	r := &runner{cfg: &cfg}
	_, err := r.checkSpace(st)
	var pe *PreconditionError
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, err.Error(), "not enough disk space on the filesystem of "+dir)

	cfg.Plan.Tables[0].LOBArea = "" // LOBs without an area of their own stay in the table's
	cfg.Plan.Tables[0].LOBBytes = 1 << 30
	msg, err := r.checkSpace(st)
	require.NoError(t, err)
	assert.Contains(t, msg, "dumps "+units.FormatIEC(cfg.Plan.Tables[0].DumpBytes()))
}
