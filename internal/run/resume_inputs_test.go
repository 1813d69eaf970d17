package run

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/plan"
)

// A resume that names another --plan, --source or --target than its
// journal's run is bad usage (exit 2), refused before any utility runs
// and before the journal grows.
func TestResumeWithOtherInputsIsBadUsage(t *testing.T) {
	cfg := fakeSetup(t, testTables...)
	oe := newFakeOE(cfg.Plan)
	oe.hangLoad["PUB.order"] = true
	cfg.Runner = oe
	ctx, cancel := context.WithCancel(context.Background())
	cfg.Events = event.SinkFunc(func(e event.Event) {
		if e.Kind == event.JobStarted && e.Job == "load:PUB.order" {
			cancel()
		}
	})
	_, err := Run(ctx, cfg)
	require.True(t, errors.Is(err, context.Canceled), err)
	cfg.Events, cfg.Resume = nil, true
	journalPath := filepath.Join(cfg.Work, journal.FileName)
	before, err := os.ReadFile(journalPath)
	require.NoError(t, err)

	otherSource := filepath.Join(filepath.Dir(cfg.Source), "src2")
	require.NoError(t, os.WriteFile(otherSource+".db", nil, 0o644))
	for _, tc := range []struct {
		name   string
		change func(c *Config)
		want   string
	}{
		{"plan", func(c *Config) {
			p := *c.Plan
			p.Tables = append([]plan.Placement(nil), p.Tables...)
			p.Tables[0].Records++
			c.Plan = &p
		}, "gives another --plan"},
		{"source", func(c *Config) { c.Source = otherSource }, "gives --source " + otherSource + ", not " + cfg.Source},
		{"target", func(c *Config) { c.Target += "2" }, "gives --target " + cfg.Target + "2, not " + cfg.Target},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cfg
			c.Runner = newFakeOE(cfg.Plan)
			tc.change(&c)
			_, err := Run(context.Background(), c)
			var ue *UsageError
			require.ErrorAs(t, err, &ue, "exit 2")
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), journalPath)
			assert.Empty(t, c.Runner.(*fakeOE).calls, "no utility ran")
			after, err := os.ReadFile(journalPath)
			require.NoError(t, err)
			assert.Equal(t, before, after, "the journal is as the interrupted run left it")
		})
	}

	// The plan's target.st and target.df are not in plan.json's hash: an
	// edited one (an extent moved into the source's directory, the .df
	// changed) is refused too, exit 2, naming the file (safety trial 10).
	for _, name := range []string{plan.FileStructure, plan.FileDF} {
		t.Run("edited "+name, func(t *testing.T) {
			path := filepath.Join(cfg.PlanDir, name)
			orig, err := os.ReadFile(path)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(path, append(append([]byte(nil), orig...), "# edited\n"...), 0o644))
			defer func() { require.NoError(t, os.WriteFile(path, orig, 0o644)) }()
			c := cfg
			c.Runner = newFakeOE(cfg.Plan)
			_, err = Run(context.Background(), c)
			var ue *UsageError
			require.ErrorAs(t, err, &ue, "exit 2")
			assert.Contains(t, err.Error(), path+" changed since the run began")
			assert.Empty(t, c.Runner.(*fakeOE).calls, "no utility ran")
			after, err := os.ReadFile(journalPath)
			require.NoError(t, err)
			assert.Equal(t, before, after, "the journal is as the interrupted run left it")
		})
	}
	t.Run("plan files gone", func(t *testing.T) {
		path := filepath.Join(cfg.PlanDir, plan.FileStructure)
		require.NoError(t, os.Rename(path, path+".aside"))
		defer func() { require.NoError(t, os.Rename(path+".aside", path)) }()
		c := cfg
		c.Runner = newFakeOE(cfg.Plan)
		_, err := Run(context.Background(), c)
		require.Error(t, err)
		assert.Contains(t, err.Error(), path)
		assert.Empty(t, c.Runner.(*fakeOE).calls, "no utility ran")
	})

	oe.hangLoad["PUB.order"] = false
	res, err := Run(context.Background(), cfg)
	require.NoError(t, err, "with its own inputs the run resumes")
	assert.True(t, res.Resumed)
}
