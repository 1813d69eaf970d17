package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/journal"
)

// writeJournal makes a work directory whose journal holds recs.
func writeJournal(t *testing.T, recs ...journal.Record) string {
	t.Helper()
	work := t.TempDir()
	w, _, err := journal.Open(filepath.Join(work, journal.FileName))
	require.NoError(t, err)
	for _, r := range recs {
		require.NoError(t, w.Append(r))
	}
	require.NoError(t, w.Close())
	return work
}

// TestStatusJSONAliveAndRunningJobs: "alive" says whether the run's process
// lives, and does not hide "running", the snapshot's list of running jobs.
func TestStatusJSONAliveAndRunningJobs(t *testing.T) {
	tests := []struct {
		name   string
		pid    int
		alive  bool
		killed bool
		code   int
	}{
		{"process alive", os.Getpid(), true, false, ExitOK},
		{"process gone", 0, false, true, ExitFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			work := writeJournal(t,
				journal.Record{Job: journal.RunJob, State: journal.Started, PID: tt.pid, Message: "started"},
				journal.Record{Job: "dump:PUB.customer", Kind: "dump", State: journal.Started, Table: "PUB.customer", Attempt: 1},
			)
			code, out, errOut := runOEDL("status", "--work", work, "--json")
			require.Equal(t, tt.code, code, errOut)
			var got struct {
				Alive   bool `json:"alive"`
				Killed  bool `json:"killed"`
				Running []struct {
					ID string `json:"id"`
				} `json:"running"`
			}
			require.NoError(t, json.Unmarshal([]byte(out), &got), out)
			assert.Equal(t, tt.alive, got.Alive)
			assert.Equal(t, tt.killed, got.Killed)
			if !tt.alive {
				assert.Empty(t, got.Running, "nothing runs under a dead oedl")
				return
			}
			require.Len(t, got.Running, 1, "the running jobs survive the alive flag")
			assert.Equal(t, "dump:PUB.customer", got.Running[0].ID)
		})
	}
}
