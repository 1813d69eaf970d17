package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/schedule"
)

// TestFailureTheJournalCouldNotRecordIsSaid: the work disk full, a dump
// fails with errno 28 and its failure cannot be journalled either. The
// run's closing summary said only the dump's error: that the journal had
// missed records (what the DBA must know before trusting a resume) was in
// no line the DBA read (new-user trial 6).
func TestFailureTheJournalCouldNotRecordIsSaid(t *testing.T) {
	cfg := fakeSetup(t, placement("PUB.customer", "Cust", 1000))
	cfg.Runner = stepRunner(func(_ context.Context, c execx.Cmd) (execx.Result, error) {
		out := "** Error writing " + filepath.Join(c.Args[len(c.Args)-1], "customer.bd") + ", errno = 28. (6174)\n"
		return execx.Result{Output: out, ExitCode: 1}, fmt.Errorf("exit 1: %w", execx.ErrExit)
	})
	cfg.fill()
	require.NoError(t, os.MkdirAll(filepath.Join(cfg.Work, "logs"), 0o755))
	jw, _, err := journal.Open(filepath.Join(cfg.Work, journal.FileName))
	require.NoError(t, err)
	require.NoError(t, jw.Close()) // every Append fails from here, as on a full disk
	j := &schedule.Job{ID: "dump:PUB.customer", Kind: schedule.KindDump, Table: "PUB.customer", Records: 1000, Bytes: 1400}
	g, err := schedule.NewGraph([]*schedule.Job{j})
	require.NoError(t, err)
	e := newExecutor(&cfg, &schedule.Built{Graph: g}, jw, nil)
	e.sink = event.SinkFunc(func(event.Event) {})
	out := e.run(context.Background(), j, 1)
	require.Error(t, out.Err)
	failed := e.failedJobs(&schedule.Result{Failed: map[string]error{j.ID: out.Err}})
	require.Len(t, failed, 1)
	assert.Contains(t, failed[0].Err, "errno = 28", "the utility's own line")
	assert.Contains(t, failed[0].Err, "not in the journal", "the journal's miss is said")
	assert.Contains(t, failed[0].Err, journal.FileName)
}
