package run

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHintsQuoteTheirPaths: the commands an error tells the DBA to run
// (resume, status, proshut) are pasted into a shell as printed; a path
// with a blank must stay one word, so it is shell-quoted there.
func TestHintsQuoteTheirPaths(t *testing.T) {
	tests := []struct {
		name string
		// hint returns the text of the error for a run in work.
		hint func(t *testing.T, work string) string
		want string // with %s the quoted work
	}{
		{"failed run", func(t *testing.T, work string) string {
			return (&FailedError{Err: errors.New("boom"), Work: work}).Error()
		}, "oedl run --resume --work '%s'"},
		{"work locked by another oedl", func(t *testing.T, work string) string {
			require.NoError(t, os.Mkdir(work, 0o755))
			unlock, err := lockWork(work, "run")
			require.NoError(t, err)
			defer unlock()
			_, err = lockWork(work, "run")
			require.Error(t, err)
			return err.Error()
		}, "oedl status --work '%s'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			work := filepath.Join(t.TempDir(), "dl work")
			assert.Contains(t, tt.hint(t, work), fmt.Sprintf(tt.want, work))
		})
	}
}
