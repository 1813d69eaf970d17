package sim

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/sim/vdisk"
)

// A load pays its before-image notes and checkpoints on the virtual disk
// by how it runs (openedge.LoadLog): the requests the device counts show
// it. The disk is very fast here: counters are compared, not times.
func TestLoadPaysBeforeImage(t *testing.T) {
	env, db := smallDB(t)
	bd := dumpOne(t, env, db, "Customer")
	for _, helper := range []string{"probiw", "proapw"} {
		r := env.run(t, nil, "", helper, db)
		assert.Equal(t, exitFail, r.code, "%s of a database nobody serves", helper)
		assert.Contains(t, r.out, "(1423)", helper)
	}
	disk := []string{"OESIM_DISK_MBPS=100000", "OESIM_DISK_IOPS=100000000"}
	state := filepath.Join(filepath.Dir(env.dlc), "state", vdisk.DiskstatsFile)
	// writes returns the write requests and sectors of one load of bd into
	// a fresh copy, set up by serve (nil: single-user).
	writes := func(t *testing.T, name string, serve func(tgt string), loadArgs ...string) (reqs, sectors uint64) {
		tgt := emptyCopy(t, env, db, name)
		if name == "small-cluster" {
			env.ok(t, "proutil", tgt, "-C", "truncate", "bi", "-bi", "16")
		}
		if serve != nil {
			serve(tgt)
			defer env.ok(t, "proshut", tgt, "-by")
		}
		r0, s0 := diskWrites(t, state)
		r := env.run(t, disk, "", "proutil", append([]string{tgt, "-C", "load", bd}, loadArgs...)...)
		require.Equal(t, 0, r.code, r.out)
		r1, s1 := diskWrites(t, state)
		return r1 - r0, s1 - s0
	}
	safeReqs, safeSectors := writes(t, "safe", nil)
	smallReqs, _ := writes(t, "small-cluster", nil)
	noIntReqs, noIntSectors := writes(t, "noint", nil, "-i")
	rawReqs, rawSectors := writes(t, "raw", nil, "-r")
	servedReqs, _ := writes(t, "served", func(tgt string) { env.ok(t, "proserve", tgt) })
	helpedReqs, helpedSectors := writes(t, "helped", func(tgt string) {
		env.ok(t, "proserve", tgt, "-B", "5000", "-bibufs", "25")
		env.ok(t, "probiw", tgt)
		env.ok(t, "proapw", tgt)
	})

	// -i writes a fifth of the notes, -r all of them, both behind.
	assert.Less(t, noIntSectors, rawSectors, "-i writes fewer BI blocks than -r")
	assert.GreaterOrEqual(t, safeSectors, rawSectors, "crash-safe writes what -r writes, and the BI blocks its checkpoints force")
	assert.Greater(t, smallReqs, safeReqs+10, "a 16K BI cluster: a checkpoint, its sync and flush, every 16K of notes")
	// Crash-safe, every BI block and every flushed data block is a request
	// of its own; behind, they merge.
	assert.Greater(t, safeReqs, 3*rawReqs, "crash-safe single-user: a request per BI block")
	assert.Greater(t, servedReqs, 3*helpedReqs, "served: the BIW and APW write behind what the loader waits for without them")
	assert.Less(t, helpedSectors, safeSectors+1, "the helpers write no more than the loader would")
	assert.Greater(t, noIntReqs, uint64(0))
}

// diskWrites reads the write requests and sectors of the virtual disk's
// counters (a /proc/diskstats line).
func diskWrites(t *testing.T, path string) (reqs, sectors uint64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return 0, 0
	}
	require.NoError(t, err)
	f := strings.Fields(string(b))
	require.GreaterOrEqual(t, len(f), 10, "diskstats line: %q", b)
	reqs, err = strconv.ParseUint(f[7], 10, 64)
	require.NoError(t, err)
	sectors, err = strconv.ParseUint(f[9], 10, 64)
	require.NoError(t, err)
	return reqs, sectors
}
