package cli

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/journal"
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
			return runExit(ctx, context.Canceled, work).Error()
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
