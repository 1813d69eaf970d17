package estimate

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/execx"
)

type envRunner struct{ env []string }

func (r *envRunner) Run(_ context.Context, c execx.Cmd) (execx.Result, error) {
	r.env = c.Env
	return execx.Result{}, nil
}

// The scratch database's load_df.p runs in the scratch directory: it is
// handed the $PROSTARTUP preconditions checked (made absolute from oedl's
// directory by Calibrate), not a relative name it would read from its own.
func TestCalibrateHandsTheStartupPFChecked(t *testing.T) {
	dir := t.TempDir()
	r := &envRunner{}
	c := &calibrator{cfg: CalibrateConfig{DLC: dir, Runner: r}, dir: dir, startupPF: dir + "/site.pf"}
	_, _, err := c.exec(context.Background(), execx.Cmd{Path: "_progres", Dir: dir + "/scratch"})
	require.NoError(t, err)
	assert.Equal(t, []string{"DLC=" + dir, "PROSTARTUP=" + dir + "/site.pf"}, r.env)
}
