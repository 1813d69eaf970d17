package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/estimate"
	"github.com/oedl/oedl/internal/simtest"
)

// TestRunDryRunHardwareAndCalibration: --hardware and --calibration set the
// machine and model of oedl run --dry-run, as they do for oedl estimate;
// without them the dry run stays on this machine's cores and the model's
// disk, as oedl estimate does; a bad file is a usage error naming it.
func TestRunDryRunHardwareAndCalibration(t *testing.T) {
	dir := t.TempDir()
	tba, df := planFixture(t, dir, "", "")
	planDir := filepath.Join(dir, "plan")
	code, _, errOut := runOEDL(append([]string{"plan", "--tabanalys", tba, "--df", df, "-o", planDir, "--target", "/db/new/prod"}, fixedMachine...)...)
	require.Equal(t, ExitOK, code, errOut)

	calibrated := estimate.DefaultModel()
	calibrated.Hardware = estimate.Hardware{Cores: 3, MemoryBytes: 4 << 30, DiskMBps: 75, DiskIOPS: 900}
	calibration := filepath.Join(dir, "calibration.json")
	require.NoError(t, calibrated.WriteFile(calibration))
	broken := filepath.Join(dir, "broken.json")
	require.NoError(t, os.WriteFile(broken, []byte(`{"cores": "many"}`), 0o644))

	base := []string{"run", "--dry-run", "--source", "/db/prod", "--target", "/db/new/prod", "--plan", planDir}
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
		absent string // not in stdout
	}{
		{"default: plan's cores and the model's disk", nil, ExitOK, "on 4 cores, " + estimate.DefaultHardware(4, 0).DiskString(), "", ""},
		{"--hardware", []string{"--hardware", "../estimate/testdata/hardware/seed003.json"}, ExitOK, "on 8 cores, gp2 250 MiB/s / 4002 IOPS / 1.5 ms", "", ""},
		{"--calibration brings its machine", []string{"--calibration", calibration}, ExitOK, "on 3 cores, disk 71.5 MiB/s / 900 IOPS", "", ""},
		{"--hardware over --calibration", []string{"--calibration", calibration, "--hardware", "../estimate/testdata/hardware/seed003.json"}, ExitOK, "on 8 cores", "", ""},
		{"unreadable hardware", []string{"--hardware", broken}, ExitUsage, "", "broken.json", ""},
		{"missing calibration", []string{"--calibration", filepath.Join(dir, "nope.json")}, ExitUsage, "", "nope.json", ""},
		{"-i by default: its price said", nil, ExitOK, "# loads:    without crash protection (-i), ", "", ""},
		{"crash-safe: no price to say", []string{"--no-integrity=false"}, ExitOK, "# strategy:", "", "without crash protection"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runOEDL(append(append([]string{}, base...), tt.args...)...)
			require.Equal(t, tt.code, code, errOut)
			assert.Contains(t, out, tt.stdout)
			assert.Contains(t, errOut, tt.stderr)
			if tt.absent != "" {
				assert.NotContains(t, out, tt.absent)
			}
			if tt.code == ExitOK {
				assert.Contains(t, out, "# oedl run --dry-run: nothing is run")
			}
		})
	}
}

// TestRunDryRunOfAPreparedTarget: after oedl prepare, the dry run in the
// same --work is the run that keeps the prepared target: create-target is
// not in it, and its window is the one oedl estimate --prepared promised,
// not the 20 s with the target made inside the window it showed before.
func TestRunDryRunOfAPreparedTarget(t *testing.T) {
	if testing.Short() {
		t.Skip("builds oesim and a database")
	}
	dir := t.TempDir()
	dlc := simtest.DLC(t, dir)
	src := filepath.Join(dir, "src", "prod")
	simtest.Gen(t, dlc, dir, src, "sports", "1MB", 3)
	t.Setenv("DLC", dlc)
	planDir, target, work := filepath.Join(dir, "plan"), filepath.Join(dir, "new", "prod"), filepath.Join(dir, "work")
	require.NoError(t, os.MkdirAll(filepath.Dir(target), 0o755))
	code, _, errOut := runOedl(t, "plan", "--source", src, "--dlc", dlc, "--target", target, "-o", planDir, "--cores", "4")
	require.Equal(t, ExitOK, code, errOut)
	window := func(out string) string {
		m := regexp.MustCompile(`Estimated outage window:? (\S+)`).FindStringSubmatch(out)
		require.NotNil(t, m, out)
		return m[1]
	}
	code, out, errOut := runOedl(t, "estimate", "--plan", planDir, "--prepared", "--cores", "4")
	require.Equal(t, ExitOK, code, errOut)
	promised := window(out)

	dryRun := []string{"run", "--dry-run", "--source", src, "--target", target, "--plan", planDir, "--work", work}
	code, before, errOut := runOedl(t, dryRun...)
	require.Equal(t, ExitOK, code, errOut)
	require.Contains(t, before, "prostrct", "not prepared yet: the run creates the target")

	code, _, errOut = runOedl(t, "prepare", "--source", src, "--target", target, "--plan", planDir, "--work", work)
	require.Equal(t, ExitOK, code, errOut)
	code, after, errOut := runOedl(t, dryRun...)
	require.Equal(t, ExitOK, code, errOut)
	assert.NotContains(t, after, "prostrct", "the run keeps the prepared target")
	assert.Contains(t, after, "target prepared before the window")
	assert.Equal(t, promised, window(after), "the window oedl estimate --prepared promised")
	assert.NotEqual(t, window(before), window(after))
}
