package run

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/hosts"
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
			c := Config{Work: work, Source: "/db/prod", Target: "/new db/prod", PlanDir: "/dl/plan"}
			return (&FailedError{Err: errors.New("boom"), Work: work, Resume: c.ResumeCommand()}).Error()
		}, "fix the cause, then continue with: oedl run --resume --work '%s' --source /db/prod --target '/new db/prod' --plan /dl/plan"},
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

// TestResumeCommandIsComplete: the command a failed or interrupted run
// prints is the whole command, pasted from any directory: every input a
// resume must repeat, absolute (nu-trial9: "oedl run --resume --work work
// (with the same --source, --target and --plan)" left the DBA to find
// them at 3 a.m.). A hosts run names its hosts file, not the databases.
func TestResumeCommandIsComplete(t *testing.T) {
	wd, err := os.Getwd()
	require.NoError(t, err)
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"absolute paths", Config{Work: "/dl/work", Source: "/db/prod", Target: "/new/prod", PlanDir: "/dl/plan"},
			"oedl run --resume --work /dl/work --source /db/prod --target /new/prod --plan /dl/plan"},
		{"relative paths made absolute", Config{Work: "work", Source: "src/prod", Target: "/new/prod", PlanDir: "plan/"},
			"oedl run --resume --work " + filepath.Join(wd, "work") + " --source " + filepath.Join(wd, "src/prod") + " --target /new/prod --plan " + filepath.Join(wd, "plan")},
		{"hosts", Config{Work: "/dl/work", PlanDir: "/dl/plan", Hosts: &hosts.File{Path: "/etc/oedl/hosts.yaml"}},
			"oedl run --resume --work /dl/work --hosts /etc/oedl/hosts.yaml --plan /dl/plan"},
		// nu-trial10: without it the resume sized and estimated from the
		// built-in priors ("estimated 1m24s" for an idxbuild of 2 s).
		{"the calibration the run was given", Config{Work: "/dl/work", Source: "/db/prod", Target: "/new/prod", PlanDir: "/dl/plan", CalibrationFile: "cal.json"},
			"oedl run --resume --work /dl/work --source /db/prod --target /new/prod --plan /dl/plan --calibration " + filepath.Join(wd, "cal.json")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.cfg.ResumeCommand())
		})
	}
}
