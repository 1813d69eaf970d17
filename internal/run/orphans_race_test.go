package run

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/schedule"
	"github.com/oedl/oedl/internal/sysproc"
)

// TestStopOrphansBrokerRace: a resume's holder says the target is served
// (276) by the killed run's broker, and proshut then says (1423): the
// broker died, or had not yet begun to listen, between the two calls (seen
// in CI under load). The holder is asked again: a database now free goes
// on, a broker still starting is shut down at the next try, and a broker
// the killed run's no longer is (it died and another serves the database)
// is left up, with no second proshut.
func TestStopOrphansBrokerRace(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the broker's identity is read from /proc")
	}
	tests := []struct {
		name      string
		race      func(broker *exec.Cmd, db string) func(f *fakeOE)
		proshuts  int
		servedEnd bool
		notice    string
	}{
		{"the broker dies", func(b *exec.Cmd, db string) func(*fakeOE) {
			return func(f *fakeOE) { killBroker(b); f.served[db] = false }
		}, 1, false, ""},
		{"the broker is not yet listening", func(*exec.Cmd, string) func(*fakeOE) {
			return func(*fakeOE) {}
		}, 2, false, "shut down the broker the killed run left on"},
		{"the broker dies and another serves the database", func(b *exec.Cmd, _ string) func(*fakeOE) {
			return func(*fakeOE) { killBroker(b) }
		}, 1, true, "is gone: the one serving it now is someone else's"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, oe := servedTarget(t)

			broker := exec.Command("sleep", "60")
			require.NoError(t, broker.Start())
			t.Cleanup(func() { killBroker(broker) })
			id, err := sysproc.Of(broker.Process.Pid)
			require.NoError(t, err)
			oe.shutdownRace[cfg.Target] = tt.race(broker, cfg.Target)

			var notices []string
			cfg.Events = event.SinkFunc(func(e event.Event) { notices = append(notices, e.Message) })
			r := &runner{cfg: &cfg, servedByUs: map[string]bool{schedule.DBTarget: true},
				brokers: map[string]sysproc.ID{schedule.DBTarget: id}}
			require.NoError(t, r.stopOrphans(context.Background(), journal.Replay(nil)))

			assert.Equal(t, tt.proshuts, oe.count("proshut "+cfg.Target+" -by"))
			assert.Equal(t, tt.servedEnd, oe.served[cfg.Target])
			assert.False(t, r.servedByUs[schedule.DBTarget])
			if tt.notice == "" {
				assert.Empty(t, notices)
			} else {
				require.Len(t, notices, 1)
				assert.Contains(t, notices[0], tt.notice)
			}
		})
	}
}

// TestStopOrphansBrokerNeverListens: a broker that answers (1423) to every
// proshut while the holder says (276) is not waited for without end: the
// resume is refused, naming (1423).
func TestStopOrphansBrokerNeverListens(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the broker's identity is read from /proc")
	}
	cfg, oe := servedTarget(t)
	var deaf func(f *fakeOE)
	deaf = func(f *fakeOE) { f.shutdownRace[cfg.Target] = deaf }
	oe.shutdownRace[cfg.Target] = deaf
	id, err := sysproc.Of(os.Getpid()) // alive throughout: the killed run's broker
	require.NoError(t, err)

	r := &runner{cfg: &cfg, servedByUs: map[string]bool{schedule.DBTarget: true},
		brokers: map[string]sysproc.ID{schedule.DBTarget: id}}
	err = r.stopOrphans(context.Background(), journal.Replay(nil))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "(1423)")
	assert.Equal(t, brokerRaceTries, oe.count("proshut "+cfg.Target+" -by"))
	assert.True(t, oe.served[cfg.Target])
}

// servedTarget is a resume's set-up whose target exists and is served.
func servedTarget(t *testing.T) (Config, *fakeOE) {
	cfg := fakeSetup(t, placement("PUB.customer", "Cust", 1000))
	cfg.fill()
	require.NoError(t, os.MkdirAll(cfg.Work, 0o755))
	require.NoError(t, os.MkdirAll(filepath.Dir(cfg.Target), 0o755))
	require.NoError(t, os.WriteFile(cfg.Target+".db", nil, 0o644))
	oe := newFakeOE(cfg.Plan)
	cfg.Runner = oe
	oe.served[cfg.Target] = true
	return cfg, oe
}

func killBroker(b *exec.Cmd) {
	if b.ProcessState == nil {
		_ = b.Process.Signal(syscall.SIGKILL)
		_ = b.Wait()
	}
}
