package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEstimateChecksPlan: oedl estimate holds the plan directory together
// as oedl run does (plan.ReadTarget): a plan whose target.st or target.df
// disagrees with plan.json, or that lacks one, is refused with exit 2
// naming the file and line, not priced.
func TestEstimateChecksPlan(t *testing.T) {
	tests := []struct {
		name   string
		break_ func(t *testing.T, dir string)
		want   []string
	}{
		{"an area's records per block changed in target.st only", func(t *testing.T, dir string) {
			edit(t, filepath.Join(dir, "target.st"), regexp.MustCompile(`(d "[^"]+":7),\d+;`), "${1},1;")
		}, []string{"does not hold together", "target.st:", "(number,rpb;bpc)"}},
		{"a table moved in target.df only", func(t *testing.T, dir string) {
			edit(t, filepath.Join(dir, "target.df"), regexp.MustCompile(`(?m)^(ADD TABLE "[^"]+"\r?\n  AREA )"[^"]+"`), `${1}"Schema Area"`)
		}, []string{"does not hold together", "target.df:", `in area "Schema Area" here`}},
		{"an extent size hand-edited below prostrct's minimum", func(t *testing.T, dir string) {
			edit(t, filepath.Join(dir, "target.st"), regexp.MustCompile(` f \d+`), " f 16")
		}, []string{"target.st:", "not more than 32 KB"}},
		{"target.st removed", func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(filepath.Join(dir, "target.st")))
		}, []string{"target.st not found in the plan directory"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tba, df := planFixture(t, dir, "", "")
			planDir := filepath.Join(dir, "plan")
			code, _, errOut := runOEDL(append([]string{"plan", "--tabanalys", tba, "--df", df, "-o", planDir}, fixedMachine...)...)
			require.Equal(t, ExitOK, code, errOut)
			code, _, errOut = runOEDL("estimate", "--plan", planDir, "--cores", "4")
			require.Equal(t, ExitOK, code, "the plan as written is estimated: %s", errOut)

			tt.break_(t, planDir)
			for _, arg := range []string{planDir, filepath.Join(planDir, "plan.json")} {
				code, out, errOut := runOEDL("estimate", "--plan", arg, "--cores", "4")
				assert.Equal(t, ExitUsage, code, "estimate --plan %s: %s", arg, out)
				for _, w := range tt.want {
					assert.Contains(t, errOut, w)
				}
			}
		})
	}
}

// edit replaces every match of re in the file, and fails when there is
// none (a test that breaks nothing proves nothing).
func edit(t *testing.T, path string, re *regexp.Regexp, repl string) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.True(t, re.Match(data), "%s: nothing matches %s", path, re)
	require.NoError(t, os.WriteFile(path, re.ReplaceAll(data, []byte(repl)), 0o644))
}

// TestDryRunOnHostsChecksPlan: oedl run --dry-run --hosts proves no host's
// files (that is the run's preflight, over each connection), but the plan
// directory is on this machine: it is held together as everywhere else.
func TestDryRunOnHostsChecksPlan(t *testing.T) {
	dir := t.TempDir()
	hf := filepath.Join(dir, "hosts.yaml")
	require.NoError(t, os.WriteFile(hf, []byte("hosts:\n  prod:\n    role: source\n    ssh: p1\n    work: /w\n    db: /p\n  new:\n    role: target\n    db: /n\n"), 0o644))
	planDir := estimatePlanDir(t)
	args := []string{"run", "--dry-run", "--hosts", hf, "--plan", planDir, "--work", filepath.Join(dir, "work"), "--tune", "off"}
	code, _, errOut := runOEDL(args...)
	require.Equal(t, ExitOK, code, errOut)

	edit(t, filepath.Join(planDir, "target.st"), regexp.MustCompile(`(d "a0":7),64;8`), "${1},64;64")
	code, _, errOut = runOEDL(args...)
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "target.st:")
	assert.Contains(t, errOut, "does not hold together")
}
