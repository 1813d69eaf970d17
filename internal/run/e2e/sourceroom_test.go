package e2e

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBesideAServedSourceItsRoomIsKept (safety trial 12): the source is
// served (production goes on) on a filesystem of its own, and oedl
// calibrate, oedl prepare and oedl run are given a --work and a --target
// on that same filesystem. A full disk stops a served database the moment
// its variable extent, BI or AI extends, so each refuses (exit 3) before
// it writes there, naming the filesystem, what it would take, what would
// be left and the source's files that grow there, unless what it leaves
// is at least the source's headroom (--source-headroom, stated by the
// DBA, or the default of at least 1 GiB). On the old code prepare made
// the target there (exit 0, whatever it left) and calibrate checked no
// space at all (a 64 MiB extent formatted to time it). The source's
// bytes are never written by any of it; a DBA's load into the served
// source still goes through after the accepted preparation. It needs a
// tmpfs, so root (mount(2)).
func TestBesideAServedSourceItsRoomIsKept(t *testing.T) {
	e := newEnv(t, "sports"+relativeSuffix) // its extents beside its .db wherever it is copied
	mnt := filepath.Join(e.dir, "mnt")
	require.NoError(t, os.MkdirAll(mnt, 0o755))
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=64m"); err != nil {
		t.Skipf("a tmpfs is needed (mount(2) as root): %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(mnt, syscall.MNT_DETACH) })
	src := filepath.Join(mnt, "src", filepath.Base(e.source))
	require.NoError(t, copyDB(e.source, src))
	e.source = src
	t.Cleanup(func() { e.shutdownIfServed(src) }) // before the tmpfs goes (cleanups run last first)
	e.target = filepath.Join(mnt, "tgt", filepath.Base(e.target))
	e.work = filepath.Join(mnt, "work")
	dlc := e.dlc()
	dlc("proserve", e.source)
	before := sourceBytes(t, e.source)
	used := usedKB(t, mnt)

	calibrate := []string{"calibrate", "--source", e.source, "--plan", e.fx.planDir, "--dlc", e.fx.dlc,
		"--work", filepath.Join(mnt, "cal"), "-o", filepath.Join(e.dir, "cal.json"), "--sample-tables", "8", "--sample-max", "150KB"}
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"prepare, the default headroom", e.prepareArgs(), []string{"no room left for the source", "filesystem of " + filepath.Dir(e.target), "1 GiB kept", src + "_7.d1"}},
		{"prepare, a headroom stated bigger than what is left", e.prepareArgs("--source-headroom", "60MiB"), []string{"no room left for the source", "60 MiB kept"}},
		{"calibrate, the default headroom", calibrate, []string{"filesystem of " + filepath.Join(mnt, "cal", "calibrate")}},
		{"calibrate, more than the filesystem holds", append(calibrate, "--source-headroom", "0"), []string{"not enough disk space", "a fixed extent timed 64 MiB"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.oedl(nil, tc.args...)
			assert.Equal(t, 3, r.code, r.stderr)
			for _, w := range tc.want {
				assert.Contains(t, r.stderr, w)
			}
			assert.NoFileExists(t, e.target+".db", "no target made")
			assert.InDelta(t, used, usedKB(t, mnt), 256, "nothing of size written beside the source")
		})
	}

	// The DBA states the room the source needs: the preparation goes on,
	// and production still writes.
	r := e.oedl(nil, e.prepareArgs("--source-headroom", "16MiB")...)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, before, sourceBytes(t, e.source), "oedl wrote none of the served source's files")
	dump := filepath.Join(e.dir, "bd")
	require.NoError(t, os.MkdirAll(dump, 0o755))
	dlc("proutil", e.source, "-C", "dump", "PUB.Customer", dump)
	dlc("proutil", e.source, "-C", "load", filepath.Join(dump, "Customer.bd"))

	// The window: the source shut down, the run refused the same way
	// before it dumps a byte there.
	dlc("proshut", e.source, "-by")
	before = sourceBytes(t, e.source)
	r = e.oedl(nil, e.runArgs()...)
	assert.Equal(t, 3, r.code, r.stderr)
	assert.Contains(t, r.stderr, "no room left for the source")
	assert.NoDirExists(t, filepath.Join(e.work, "dump", "PUB.Customer"))
	assert.Equal(t, before, sourceBytes(t, e.source), "the source as it was")
}

// sourceBytes is every file of db's directory (size and SHA-256) but its
// log, which every open writes.
func sourceBytes(t *testing.T, db string) map[string]string {
	m := everyByte(t, filepath.Dir(db))
	delete(m, filepath.Base(db)+".lg")
	return m
}
