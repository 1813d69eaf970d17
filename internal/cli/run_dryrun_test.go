package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/estimate"
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
	}{
		{"default: plan's cores and the model's disk", nil, ExitOK, "on 4 cores, " + estimate.DefaultHardware(4, 0).DiskString(), ""},
		{"--hardware", []string{"--hardware", "../estimate/testdata/hardware/seed003.json"}, ExitOK, "on 8 cores, gp2 250 MiB/s / 4002 IOPS / 1.5 ms", ""},
		{"--calibration brings its machine", []string{"--calibration", calibration}, ExitOK, "on 3 cores, disk 71.5 MiB/s / 900 IOPS", ""},
		{"--hardware over --calibration", []string{"--calibration", calibration, "--hardware", "../estimate/testdata/hardware/seed003.json"}, ExitOK, "on 8 cores", ""},
		{"unreadable hardware", []string{"--hardware", broken}, ExitUsage, "", "broken.json"},
		{"missing calibration", []string{"--calibration", filepath.Join(dir, "nope.json")}, ExitUsage, "", "nope.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runOEDL(append(append([]string{}, base...), tt.args...)...)
			require.Equal(t, tt.code, code, errOut)
			assert.Contains(t, out, tt.stdout)
			assert.Contains(t, errOut, tt.stderr)
			if tt.code == ExitOK {
				assert.Contains(t, out, "# oedl run --dry-run: nothing is run")
			}
		})
	}
}
