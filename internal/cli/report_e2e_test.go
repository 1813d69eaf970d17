package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/report"
	"github.com/oedl/oedl/internal/simtest"
	"github.com/oedl/oedl/internal/tui"
	"github.com/oedl/oedl/internal/verify"
)

// TestReportEndToEndWithOesim runs the demo against oesim without a
// terminal, then checks what this issue shows: the plain progress lines
// (one per state change, never a redraw), the report written at the end of
// the run and again by `oedl report`, and `oedl status --json` replaying
// the journal into the same picture.
func TestReportEndToEndWithOesim(t *testing.T) {
	if testing.Short() {
		t.Skip("builds oesim and runs a migration")
	}
	dir := t.TempDir()
	oesim := simtest.Oesim(t)

	exec1 := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := Execute(context.Background(), &IOStreams{In: &bytes.Buffer{}, Out: &stdout, ErrOut: &stderr}, args)
		return code, stdout.String(), stderr.String()
	}
	demo := filepath.Join(dir, "demo")
	code, _, progress := exec1("demo", "--dir", demo, "--profile", "sports", "--scale", "2MB", "--no-tui", "--oesim", oesim)
	require.Equal(t, ExitOK, code, progress)
	work := filepath.Join(demo, "work")

	// Plain lines: no carriage return, no escape sequence; the loads
	// announce themselves and the run's end is said once.
	assert.NotContains(t, progress, "\r")
	assert.NotContains(t, progress, "\x1b[")
	assert.Contains(t, progress, "done    load PUB.Customer")
	assert.Equal(t, 1, strings.Count(progress, "run finished in"))

	// The run wrote its report; oedl report writes the same again.
	before, err := os.ReadFile(filepath.Join(work, report.MarkdownFile))
	require.NoError(t, err, "the run writes report.md at its end")
	code, _, errOut := exec1("report", "--work", work)
	require.Equal(t, ExitOK, code, errOut)
	after, err := os.ReadFile(filepath.Join(work, report.MarkdownFile))
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "the report is a function of the work directory")

	var v verify.Result
	b, err := os.ReadFile(filepath.Join(work, verify.JSONFile))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &v))
	md := string(after)
	assert.Contains(t, md, "**Verified: all ")
	assert.Equal(t, len(v.Rows), strings.Count(md, " | match | "), "a row per verified table")
	// The run estimated its own graph at its start: the report sets it
	// beside each phase, and the window against the outage. The demo
	// runs without a calibration: the estimate says it is the priors'.
	assert.Contains(t, md, "| Phase | Start | End | Duration | Jobs | Estimated (priors only) | Estimate error |")
	assert.Contains(t, md, "| Estimate | estimated ")
	assert.Contains(t, md, "from the built-in priors only")
	page, err := os.ReadFile(filepath.Join(work, report.HTMLFile))
	require.NoError(t, err)
	assert.Contains(t, string(page), `<svg xmlns="http://www.w3.org/2000/svg" class="gantt"`)

	// oedl status --json: the same fold, from the journal.
	code, stdout, errOut := exec1("status", "--work", work, "--json")
	require.Equal(t, ExitOK, code, errOut)
	// Only the fields this test needs: status --json adds its own
	// "alive" (whether the process is alive) beside the snapshot's "running" list.
	var snap struct {
		Finished bool           `json:"finished"`
		Counts   tui.Counts     `json:"counts"`
		Progress []tui.Progress `json:"progress"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &snap))
	assert.True(t, snap.Finished)
	assert.Zero(t, snap.Counts.Failed)
	for _, p := range snap.Progress {
		assert.Equal(t, 1.0, p.Fraction(), p.Kind)
	}
}
