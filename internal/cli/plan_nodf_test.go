package cli

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPlanWithoutDFNamesWhatItLacks: a plan made from a report alone has no
// target.df, so the commands that build the target from it (run, its dry
// run, prepare, calibrate) cannot use it. Each says so as bad input (exit 2)
// naming --df and --source, rather than "target.df not found: run oedl
// plan first" (exit 3) after the DBA had just run oedl plan; and plan itself
// says it when it writes such a plan, while estimate still prices it.
func TestPlanWithoutDFNamesWhatItLacks(t *testing.T) {
	dir := t.TempDir()
	tba, _ := planFixture(t, dir, "", "")
	planDir := filepath.Join(dir, "plan")
	code, _, stderr := runOEDL(append([]string{"plan", "--tabanalys", tba, "-o", planDir, "--target", "/db/new/prod"}, fixedMachine...)...)
	require.Equal(t, ExitOK, code, stderr)
	assert.Contains(t, stderr, "No --df: no target.df")

	code, _, stderr = runOEDL("estimate", "--plan", planDir)
	assert.Equal(t, ExitOK, code, stderr)

	work := filepath.Join(dir, "work")
	for _, args := range [][]string{
		{"run", "--dry-run", "--source", "/db/prod", "--target", "/db/new/prod", "--plan", planDir},
		{"run", "--source", "/db/prod", "--target", "/db/new/prod", "--plan", planDir, "--work", work},
		{"prepare", "--source", "/db/prod", "--target", "/db/new/prod", "--plan", planDir, "--work", work},
		{"calibrate", "--source", "/db/prod", "--plan", planDir, "--work", work, "-o", filepath.Join(dir, "cal.json")},
	} {
		t.Run(args[0]+" "+args[1], func(t *testing.T) {
			code, _, stderr := runOEDL(args...)
			assert.Equal(t, ExitUsage, code, stderr)
			assert.Contains(t, stderr, "made without the source's .df")
			assert.Contains(t, stderr, "--df")
			assert.Contains(t, stderr, "--source")
			assert.NoDirExists(t, work, "nothing written before the plan is refused")
		})
	}
}
