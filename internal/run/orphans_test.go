package run

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/sysproc"
)

// TestStopOrphans: a resume stops every utility the killed run left
// running, whether the journal named it or only its environment marks it,
// SIGKILL for one that ignores SIGTERM, and leaves alone a process that
// merely got a recorded PID again, or that belongs to another work
// directory.
func TestStopOrphans(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process identity is read from /proc")
	}
	defer func(term, kill time.Duration) { orphanTermWait, orphanKillWait = term, kill }(orphanTermWait, orphanKillWait)
	orphanTermWait, orphanKillWait = 200*time.Millisecond, 5*time.Second

	cfg := fakeSetup(t, placement("PUB.customer", "Cust", 1000))
	cfg.fill()
	require.NoError(t, os.MkdirAll(cfg.Work, 0o755))
	mine := WorkEnv + "=" + cfg.workMarker()
	start := func(env string, script string) sysproc.ID {
		cmd := exec.Command("sh", "-c", script)
		cmd.Env = append(os.Environ(), env)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
		id, err := sysproc.Of(cmd.Process.Pid)
		require.NoError(t, err)
		return id
	}
	journalled := start(mine, "sleep 60")
	markedOnly := start(mine, "sleep 60")
	stubborn := start(mine, `trap "" TERM; sleep 60`)
	strangerWithOldPID := start("OTHER=1", "sleep 60")
	otherRun := start(WorkEnv+"="+filepath.Join(t.TempDir(), "another-work"), "sleep 60")
	recycled := strangerWithOldPID
	recycled.Start-- // the PID the journal recorded, given to another process since

	rp := journal.Replay([]journal.Record{
		{Job: "load:PUB.customer", Kind: "load", State: journal.Started, Table: "PUB.customer", Area: "Cust"},
		{Job: "load:PUB.customer", State: journal.Running, Proc: &journalled},
		{Job: "dump:PUB.order", Kind: "dump", State: journal.Started, Table: "PUB.order"},
		{Job: "dump:PUB.order", State: journal.Running, Proc: &recycled},
	})
	var notices []string
	r := &runner{cfg: &cfg, servedByUs: map[string]bool{}}
	cfg.Events = event.SinkFunc(func(e event.Event) { notices = append(notices, e.Message) })
	require.NoError(t, r.stopOrphans(context.Background(), rp))

	for _, id := range []sysproc.ID{journalled, markedOnly, stubborn} {
		assert.False(t, id.Alive(), "pid %d still runs", id.PID)
	}
	assert.True(t, strangerWithOldPID.Alive(), "a recycled PID is never signalled")
	assert.True(t, otherRun.Alive(), "another work directory's utilities are not this run's")
	require.Len(t, notices, 1)
	assert.Contains(t, notices[0], "process(es) the killed run left running")
	assert.Contains(t, notices[0], fmt.Sprintf("load:PUB.customer (pid %d)", journalled.PID))

	// Nothing left: a second resume finds nothing to stop.
	notices = nil
	require.NoError(t, r.stopOrphans(context.Background(), rp))
	assert.Empty(t, notices)
}
