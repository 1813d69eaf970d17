package run

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/journal"
)

// A resume of a finished, verified run has nothing to do and writes
// nothing; with its target gone, it says so (exit 3) instead.
func TestResumeOfAFinishedRun(t *testing.T) {
	cfg := fakeSetup(t, testTables...)
	oe := newFakeOE(cfg.Plan)
	cfg.Runner = oe
	_, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	jpath := filepath.Join(cfg.Work, journal.FileName)
	before, err := os.ReadFile(jpath)
	require.NoError(t, err)
	calls := len(oe.calls)

	cfg.Resume = true
	res, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	require.NotNil(t, res.Finished)
	assert.Contains(t, res.Finished.Verify, "tables")
	after, err := os.ReadFile(jpath)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "the journal is left as it was")
	assert.Equal(t, calls, len(oe.calls), "no utility runs")

	require.NoError(t, os.Remove(cfg.Target+".db"))
	_, err = Run(context.Background(), cfg)
	var pe *PreconditionError
	require.True(t, errors.As(err, &pe), "%v", err)
	assert.Contains(t, err.Error(), "is gone")
}
