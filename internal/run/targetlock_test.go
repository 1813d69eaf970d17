package run

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/schedule"
)

// TestSecondRunOnOneTargetIsRefused: two runs with different --work and
// one --target, the second started once the first's preflight is done
// and before its create-target has written anything (held there by its
// event sink). Without the target's lock (tried by disabling it) the
// second passes its own preflight, creates the target and loads it: both
// had proven the same files free. With it the second is refused (exit 3)
// naming the first one's work directory, before it writes anything there.
func TestSecondRunOnOneTargetIsRefused(t *testing.T) {
	cfg := fakeSetup(t, testTables...)
	cfg.Runner = newFakeOE(cfg.Plan)
	proven, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	cfg.Events = event.SinkFunc(func(e event.Event) {
		if e.Kind == event.JobFinished && e.Job == string(schedule.KindPreflight) {
			once.Do(func() { close(proven); <-release })
		}
	})
	first := make(chan error, 1)
	go func() { _, err := Run(context.Background(), cfg); first <- err }()
	<-proven
	_, err := os.Stat(cfg.Target + ".db")
	require.ErrorIs(t, err, os.ErrNotExist, "the first run has not created the target yet")

	other := cfg
	other.Work, other.Events = filepath.Join(t.TempDir(), "work2"), nil
	oe := newFakeOE(cfg.Plan)
	other.Runner = oe
	_, err = Run(context.Background(), other)
	var pe *PreconditionError
	require.ErrorAs(t, err, &pe, "exit 3")
	assert.Contains(t, err.Error(), "running in "+cfg.Work)
	assert.Contains(t, err.Error(), "oedl status --work "+cfg.Work)
	for _, call := range oe.calls {
		assert.NotContains(t, call, cfg.Target, "the second run called nothing on the target")
	}
	_, err = os.Stat(cfg.Target + ".db")
	assert.ErrorIs(t, err, os.ErrNotExist, "nor created it")

	close(release)
	require.NoError(t, <-first, "the first run goes on unharmed")
}

func TestTargetLockRefusesForeignFiles(t *testing.T) {
	for _, tc := range []struct {
		name    string
		make    func(path string) error
		refused bool
	}{
		{"none", func(string) error { return nil }, false},
		{"empty", func(p string) error { return os.WriteFile(p, nil, 0o644) }, false},
		{"an earlier run's", func(p string) error { return os.WriteFile(p, []byte(targetLockHeader+"pid 1\nwork /w\n"), 0o644) }, false},
		{"someone's file", func(p string) error { return os.WriteFile(p, []byte("precious\n"), 0o644) }, true},
		{"a directory", func(p string) error { return os.Mkdir(p, 0o755) }, true},
		{"a link", func(p string) error {
			victim := filepath.Join(filepath.Dir(p), "victim")
			if err := os.WriteFile(victim, nil, 0o644); err != nil {
				return err
			}
			return os.Symlink(victim, p)
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := fakeSetup(t, testTables...)
			path := TargetLockPath(cfg.Target)
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			require.NoError(t, tc.make(path))
			before, _ := os.ReadFile(path)
			unlock, err := lockTarget(&cfg)
			if !tc.refused {
				require.NoError(t, err)
				unlock()
				data, err := os.ReadFile(path)
				require.NoError(t, err)
				assert.True(t, strings.HasPrefix(string(data), targetLockHeader))
				return
			}
			var pe *PreconditionError
			require.ErrorAs(t, err, &pe)
			assert.Contains(t, err.Error(), path)
			after, _ := os.ReadFile(path)
			assert.Equal(t, before, after, "left as it was")
		})
	}
}
