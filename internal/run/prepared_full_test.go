package run

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/execx"
)

// TestTargetAnalysisOnAFullDiskIsAPrecondition: a prepared target whose
// disk a DBA filled to the last block cannot even be opened (its DB.lk
// cannot be written): the run's proof of it ends exit 3, the machine's to
// change, with the utility's line naming the file; it was exit 1, "non-zero
// exit", as if oedl had failed. Another failure stays what it was.
func TestTargetAnalysisOnAFullDiskIsAPrecondition(t *testing.T) {
	for _, tc := range []struct {
		name, out    string
		precondition bool
	}{
		{"oesim's write error, errno 28", "** Error writing /db/t.lk, errno = 28: no space left on device. (oesim)\n", true},
		{"(6091)", "bkioWrite:Insufficient disk space during write, fd 9, len 8192, offset 0, file /db/t.d1. (6091)\n", true},
		{"another failure", "** The database /db/t is in use in single-user mode. (263)\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := fakeSetup(t, placement("PUB.customer", "Cust", 1000))
			cfg.Runner = stepRunner(func(_ context.Context, c execx.Cmd) (execx.Result, error) {
				return execx.Result{Output: tc.out, ExitCode: 1}, fmt.Errorf("exit 1: %w", execx.ErrExit)
			})
			cfg.fill()
			r := &runner{cfg: &cfg}
			_, err := r.targetAnalysis(context.Background(), nil)
			require.Error(t, err)
			var pe *PreconditionError
			assert.Equal(t, tc.precondition, errors.As(err, &pe), "%v", err)
			if tc.precondition {
				assert.Contains(t, err.Error(), "disk is full")
				assert.Contains(t, err.Error(), "/db/t.", "the file the utility named")
			}
		})
	}
}
