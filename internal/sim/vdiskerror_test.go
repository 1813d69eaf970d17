package sim

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
)

// TestVirtualDiskFailureFailsTheUtility: when the shared disk's state
// file cannot be used (here vdisk.state is a directory, so it cannot be
// opened for writing), a utility that charges the disk fails with a
// message naming it, rather than run unthrottled and report success.
func TestVirtualDiskFailureFailsTheUtility(t *testing.T) {
	env, db := smallDB(t)
	bd := dumpOne(t, env, db, "Customer")
	tgt := emptyCopy(t, env, db, "tgt")
	broken := filepath.Join(env.work, "broken-state")
	require.NoError(t, os.MkdirAll(filepath.Join(broken, "vdisk.state"), 0o755))
	disk := []string{"OESIM_STATE=" + broken, "OESIM_DISK_MBPS=100000"}
	dir := filepath.Join(env.work, "d")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for _, tc := range []struct {
		name    string
		args    []string
		success int // the message of a successful run, which must not appear
	}{
		{"dump", []string{db, "-C", "dump", "Customer", dir}, openedge.MsgDumpComplete},
		{"load", []string{tgt, "-C", "load", bd}, openedge.MsgLoadComplete},
		{"idxbuild", []string{db, "-C", "idxbuild", "all"}, openedge.MsgIndexesRebuilt},
		{"idxbuild with sort files", []string{db, "-C", "idxbuild", "all", "-T", env.work}, openedge.MsgIndexesRebuilt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := env.run(t, disk, "", "proutil", tc.args...)
			assert.Equal(t, exitFail, r.code, r.out)
			assert.Contains(t, r.out, "virtual disk")
			assert.Contains(t, r.out, filepath.Join(broken, "vdisk.state"))
			assert.False(t, openedge.HasMessage(r.out, tc.success), r.out)
		})
	}
}
