package e2e

import (
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/sim/store"
)

func TestTargetBrokerKilledRepro(t *testing.T) {
	e := newEnv(t, "sports")
	largest := largestTable(t, e)
	r := startSlowRun(t, e, largest)
	r.waitLoadRunning(largest)
	h, err := store.ReadHolder(store.PathsFor(e.target))
	require.NoError(t, err)
	require.True(t, h != nil && h.Alive, "%+v", h)
	require.NoError(t, syscall.Kill(h.Pid, syscall.SIGKILL))
	err = <-r.exited
	t.Logf("exit: %v\nstderr:\n%s", err, r.stderr.String())
	for _, rec := range e.journal() {
		t.Logf("%s %s %s attempt=%d %s %s", rec.Kind, rec.Job, rec.State, rec.Attempt, rec.Reason, rec.Message)
	}
	st := e.oedl(nil, "status", "--work", e.work)
	t.Logf("status %d:\n%s%s", st.code, st.stdout, st.stderr)
	res := e.oedl(nil, e.runArgs("--resume")...)
	t.Logf("resume %d:\n%s", res.code, res.stderr)
}
