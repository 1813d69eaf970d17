package sim

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCrashBeforeFirstRecord: "crash", and "crash-after=0" which it
// stands for, kill the utility before it does anything
// (docs/oesim-faults.md): no .bd, no record loaded, no index deactivated.
// Counting records from 1, a check made after each record never sees 0,
// so these faults must strike at start.
func TestCrashBeforeFirstRecord(t *testing.T) {
	env, db := smallDB(t)
	bd := dumpOne(t, env, db, "Customer")
	tgt := emptyCopy(t, env, db, "tgt")
	dumpDir := func(name string) string {
		dir := filepath.Join(env.work, "crash-"+name)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		return dir
	}
	for _, tc := range []struct {
		name      string
		rule      string
		utility   string
		args      []string
		untouched func(t *testing.T)
	}{
		{
			name: "dump crash", rule: "dump:Customer:crash", utility: "proutil",
			args: []string{db, "-C", "dump", "Customer", dumpDir("a")},
			untouched: func(t *testing.T) {
				assert.NoFileExists(t, filepath.Join(env.work, "crash-a", "Customer.bd"))
			},
		},
		{
			name: "dump crash-after=0", rule: "dump:*:crash-after=0", utility: "proutil",
			args: []string{db, "-C", "dump", "Customer", dumpDir("b")},
			untouched: func(t *testing.T) {
				assert.NoFileExists(t, filepath.Join(env.work, "crash-b", "Customer.bd"))
			},
		},
		{
			name: "load crash", rule: "load:PUB.Customer:crash", utility: "proutil",
			args: []string{tgt, "-C", "load", bd},
			untouched: func(t *testing.T) {
				c := mustOpenControl(t, tgt)
				for _, ix := range c.Table("Customer").Indexes {
					assert.True(t, ix.Active, "index %s deactivated before the crash", ix.Name)
				}
				assert.Zero(t, counts(analysis(t, env, tgt))["PUB.Customer"])
			},
		},
		{
			name: "idxbuild crash", rule: "idxbuild:crash", utility: "proutil",
			args: []string{db, "-C", "idxbuild", "all", "-T", env.work},
		},
		{
			name: "procopy crash", rule: "procopy:crash-after=0", utility: "procopy",
			args: []string{filepath.Join(env.dlc, "empty8"), filepath.Join(env.work, "copy")},
			untouched: func(t *testing.T) {
				assert.NoFileExists(t, filepath.Join(env.work, "copy.db"))
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := env.run(t, []string{"OESIM_FAULTS=" + tc.rule}, "", tc.utility, tc.args...)
			assert.Equal(t, -1, r.code, "killed by a signal, not an exit status:\n%s", r.out)
			assert.NotContains(t, r.out, "Dumped")
			if tc.untouched != nil {
				tc.untouched(t)
			}
		})
	}
}

// TestHangAfterZeroHangsAtStart: hang-after=0 hangs before the first
// record, as crash-after=0 crashes there.
func TestHangAfterZeroHangsAtStart(t *testing.T) {
	env, db := smallDB(t)
	dir := filepath.Join(env.work, "d")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	kill := startHeld(t, env, db, "dump:Customer:hang-after=0,once", db, "-C", "dump", "Customer", dir)
	kill()
	assert.NoFileExists(t, filepath.Join(dir, "Customer.bd"), "the dump hung before writing anything")
}
