package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/sim/vdisk"
)

// TestConnectReadsTheMasterBlockThroughThePageCache: a utility call reads
// the database's master block from the device only when no call on that
// device read it before (the host's page cache holds it after, as it
// holds any block of a database opened without -directio); its log line
// is one written-back request (docs/oesim.md, "What a utility call costs
// the disk"). Before, every call read the master block from the device.
func TestConnectReadsTheMasterBlockThroughThePageCache(t *testing.T) {
	env, db := smallDB(t)
	state := t.TempDir()
	calls := 0
	call := func() [4]int64 {
		before := [4]int64{}
		if calls > 0 {
			before = diskstats(t, state)
		}
		calls++
		r := env.run(t, []string{"OESIM_STATE=" + state, vdisk.EnvIOPS + "=1000000"}, "", "proutil", db, "-C", "tabanalys")
		require.Equal(t, 0, r.code, r.out)
		after := diskstats(t, state)
		for i := range after {
			after[i] -= before[i]
		}
		return after
	}
	first, second := call(), call()
	assert.Equal(t, first[0]-1, second[0], "the second call reads one request fewer: the master block")
	assert.Equal(t, first[1]-16, second[1], "8 KiB fewer sectors read")
	assert.Equal(t, [2]int64{1, 8}, [2]int64{second[2], second[3]}, "the log line: one page, written back")
}
