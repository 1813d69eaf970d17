package run

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The sequence values are read back from the target and compared with
// the source's: load_seqvals.p that sets nothing and still exits 0 (an
// error a batch client ends on with status 0) left every sequence at its
// initial value, and the run said "verified", so the first orders after
// the migration took numbers already used (nu-trial8).
func TestRunVerifiesTheSequenceValues(t *testing.T) {
	for _, lost := range []bool{false, true} {
		t.Run(map[bool]string{false: "restored", true: "not restored"}[lost], func(t *testing.T) {
			cfg := fakeSetup(t, testTables...)
			oe := newFakeOE(cfg.Plan)
			oe.seqLoadLost = lost
			cfg.Runner = oe
			_, err := Run(context.Background(), cfg)
			back, rerr := os.ReadFile(filepath.Join(cfg.Work, TargetSequenceValues))
			require.NoError(t, rerr, "the target's values are read back")
			if !lost {
				require.NoError(t, err)
				assert.Equal(t, "\"next-cust\" 1000\n", string(back))
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), `sequence values differ between the source and the target: next-cust 1000 -> 0`)
			assert.Contains(t, err.Error(), SequenceValues)
		})
	}
}
