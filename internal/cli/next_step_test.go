package cli

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/run"
)

// TestResumeHintsQuoteTheWorkDirectory: the command a DBA is told to run
// next is pasted into a shell as printed; a --work with a blank (or a $)
// must reach oedl as one word, so it is shell-quoted in the hint.
func TestResumeHintsQuoteTheWorkDirectory(t *testing.T) {
	tests := []struct {
		name string
		// hint returns the text printed for a run in work.
		hint func(t *testing.T, work string) string
	}{
		{"interrupted run", func(t *testing.T, work string) string {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			c := run.Config{Work: work, Source: "/db/prod", Target: "/new/prod", PlanDir: "/dl/plan"}
			return runExit(ctx, context.Canceled, c.ResumeCommand()).Error()
		}},
		{"killed run, oedl status", func(t *testing.T, work string) string {
			require.NoError(t, os.Mkdir(work, 0o755))
			w, _, err := journal.Open(filepath.Join(work, journal.FileName))
			require.NoError(t, err)
			require.NoError(t, w.Append(journal.Record{Job: journal.RunJob, State: journal.Started, Message: "started"}))
			require.NoError(t, w.Close())
			_, out, _ := runOEDL("status", "--work", work)
			return out
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			work := filepath.Join(t.TempDir(), "dl work $night")
			assert.Contains(t, tt.hint(t, work), "oedl run --resume --work '"+work+"'")
		})
	}
}

// TestStatusPrintsTheWholeResumeCommand: the run's record keeps the plan
// directory (and the hosts file), so status prints the command a resume
// accepts, as the failed run itself did; it said "--work W" alone
// (nu-trial9's finding left open).
func TestStatusPrintsTheWholeResumeCommand(t *testing.T) {
	tests := []struct {
		name string
		run  journal.Record
		want string // after "--work W"
	}{
		{"one machine", journal.Record{Source: "/db/prod", Target: "/new db/prod", PlanDir: "/dl/plan"},
			" --source /db/prod --target '/new db/prod' --plan /dl/plan"},
		{"hosts", journal.Record{Source: "/db/prod", Target: "/new/prod", PlanDir: "/dl/plan", HostsFile: "/etc/oedl/hosts.yaml"},
			" --hosts /etc/oedl/hosts.yaml --plan /dl/plan"},
		{"an older journal", journal.Record{Source: "/db/prod", Target: "/new/prod"}, "\n"},
		{"calibrated, nu-trial10", journal.Record{Source: "/db/prod", Target: "/new/prod", PlanDir: "/dl/plan", Calibration: "/dl/cal.json"},
			" --source /db/prod --target /new/prod --plan /dl/plan --calibration /dl/cal.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			started := tt.run
			started.Job, started.State, started.Message = journal.RunJob, journal.Started, "started"
			work := writeJournal(t, started,
				journal.Record{Job: journal.RunJob, State: journal.Failed, Err: "interrupted", Reason: event.ReasonCancelled})
			_, out, errOut := runOEDL("status", "--work", work)
			assert.Contains(t, out, "continue it with oedl run --resume --work "+work+tt.want, errOut)
		})
	}
}

// TestStatusSaysHowToContinue: oedl status promises (its help) that the
// output of a run that failed or was interrupted says how to continue;
// a failed run said only "run failed after 2s". A run that needs no
// resume, or that a resume does not mend (a verify mismatch), gets none.
func TestStatusSaysHowToContinue(t *testing.T) {
	started := journal.Record{Job: journal.RunJob, State: journal.Started, Message: "started"}
	tests := []struct {
		name string
		recs []journal.Record
		want string // "" = no resume hint
	}{
		{"a job failed for good", []journal.Record{started,
			{Job: "dump:PUB.customer", Kind: "dump", State: journal.Failed, Table: "PUB.customer", Attempt: 3, Err: "exit code 1"},
			{Job: journal.RunJob, State: journal.Failed, Err: "1 job failed (dump:PUB.customer)"}},
			"not running: the last run failed; fix the cause (the failures below); continue it with oedl run --resume --work"},
		{"interrupted", []journal.Record{started,
			{Job: journal.RunJob, State: journal.Failed, Err: "interrupted", Reason: event.ReasonCancelled}},
			"not running: the last run was interrupted (the journal is consistent); continue it with oedl run --resume --work"},
		{"verify found a mismatch", []journal.Record{started,
			{Job: "verify", Kind: "verify", State: journal.Failed, Attempt: 1, Err: "PUB.customer: 10 before, 9 after"},
			{Job: journal.RunJob, State: journal.Failed, Err: "verify failed"}}, ""},
		{"verified", []journal.Record{started,
			{Job: journal.RunJob, State: journal.Done, Message: "verified: 1 table"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			work := writeJournal(t, tt.recs...)
			_, out, errOut := runOEDL("status", "--work", work)
			if tt.want == "" {
				assert.NotContains(t, out, "--resume --work", errOut)
				return
			}
			assert.Contains(t, out, tt.want+" "+work, errOut)
		})
	}
}
