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

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/journal"
)

// preflightGate holds a run in its preflight, at the source's describe,
// until release is closed: the target does not exist yet, so a second
// run's preflight has nothing to refuse.
type preflightGate struct {
	execx.Runner
	once             sync.Once
	reached, release chan struct{}
}

func (g *preflightGate) Run(ctx context.Context, c execx.Cmd) (execx.Result, error) {
	if filepath.Base(c.Path) == "proutil" && strings.Join(c.Args[1:], " ") == "-C describe" && strings.HasSuffix(c.Args[0], "src") {
		g.once.Do(func() { close(g.reached) })
		<-g.release
	}
	return g.Runner.Run(ctx, c)
}

// TestSecondRunOnOneTargetIsRefused: two runs with different --work and
// one --target. Without the target's lock (tried by disabling it) the
// second run, started while the first is in its preflight, passes its own
// preflight, creates the target and loads it; the first then meets the
// second's record at its create-target. Only create-target's re-proof,
// a check and then a rename with nothing excluding the other process,
// stood between the two. With the lock the second is refused before it
// runs any utility, naming the first one's work directory.
func TestSecondRunOnOneTargetIsRefused(t *testing.T) {
	cfg := fakeSetup(t, testTables...)
	gate := &preflightGate{Runner: newFakeOE(cfg.Plan), reached: make(chan struct{}), release: make(chan struct{})}
	cfg.Runner = gate
	first := make(chan error, 1)
	go func() { _, err := Run(context.Background(), cfg); first <- err }()
	<-gate.reached

	other := cfg
	other.Work = filepath.Join(t.TempDir(), "work2")
	oe := newFakeOE(cfg.Plan)
	other.Runner = oe
	_, err := Run(context.Background(), other)
	var pe *PreconditionError
	require.ErrorAs(t, err, &pe, "exit 3")
	assert.Contains(t, err.Error(), "running in "+cfg.Work)
	assert.Contains(t, err.Error(), "oedl status --work "+cfg.Work)
	assert.Empty(t, oe.calls, "the second run ran no utility at all")
	recs, err := journal.Read(filepath.Join(other.Work, journal.FileName))
	require.NoError(t, err)
	assert.Empty(t, recs, "nor journalled anything")

	close(gate.release)
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
