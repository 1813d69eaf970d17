package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/estimate"
	"github.com/oedl/oedl/internal/simtest"
)

func TestCalibratePreconditions(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"no source", []string{"--work", dir, "--plan", dir, "-o", "x.json"}, ExitUsage, "--source"},
		{"no plan", []string{"--source", "db", "--work", dir, "-o", "x.json"}, ExitUsage, "--plan"},
		{"no DLC", []string{"--source", "db", "--work", dir, "--plan", dir, "-o", "x.json", "--dlc", filepath.Join(dir, "nodlc")}, ExitPrecondition, "proutil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runOedl(t, append([]string{"calibrate"}, tt.args...)...)
			assert.Equal(t, tt.code, code, stderr)
			assert.Contains(t, stderr, tt.stderr)
		})
	}
}

// TestCalibrateEndToEndWithOesim calibrates on oesim databases with a
// virtual disk, checks that the source was only read, and estimates the
// plan with the result. The largest table is over --sample-max in both:
// sports' OrderLine leads its primary index with an integer and is cut
// with dumpspecified; erp's indexes all lead with the character *_domain,
// so its large sample is the largest table under --sample-max, whole.
func TestCalibrateEndToEndWithOesim(t *testing.T) {
	if testing.Short() {
		t.Skip("builds oesim and a database")
	}
	for _, tc := range []struct {
		profile, sampleMax string
		note               *regexp.Regexp
	}{
		{"sports", "150KB", regexp.MustCompile(`large sample: PUB\.OrderLine Ordernum LE \d+, [\d,]+ of [\d,]+ records`)},
		{"erp", "150KB", regexp.MustCompile(`large sample: no index of PUB\.xxext_xref leads with a number or a date`)},
	} {
		t.Run(tc.profile, func(t *testing.T) {
			work := t.TempDir()
			dlc := simtest.DLC(t, work)
			src := filepath.Join(work, "src", "prod")
			require.NoError(t, os.MkdirAll(filepath.Dir(src), 0o755))
			simtest.Run(t, dlc, work, simtest.Oesim(t), "gen", "--dlc", dlc, "--db", src, "--profile", tc.profile, "--scale", "3MB", "--seed", "3")
			planDir := filepath.Join(work, "plan")
			code, _, stderr := runOedl(t, "plan", "--source", src, "--dlc", dlc, "-o", planDir)
			require.Equal(t, ExitOK, code, stderr)

			before := snapshot(t, filepath.Dir(src))
			t.Setenv("DLC", dlc)
			t.Setenv("OESIM_DISK_MBPS", "200")
			t.Setenv("OESIM_STARTUP_MS", "5")
			cal := filepath.Join(work, "cal.json")
			code, _, stderr = runOedl(t, "calibrate", "--source", src, "--dlc", dlc, "--work", filepath.Join(work, "cal"),
				"--plan", planDir, "-o", cal, "--sample-tables", "8", "--sample-max", tc.sampleMax)
			require.Equal(t, ExitOK, code, stderr)
			assert.Equal(t, before, snapshot(t, filepath.Dir(src)), "calibrate only reads the source")
			assert.Regexp(t, tc.note, stderr)

			m, err := estimate.ReadModel(cal)
			require.NoError(t, err)
			assert.Contains(t, m.Origin, "calibrated")
			assert.Positive(t, m.Hardware.DiskMBps)
			assert.NotEmpty(t, m.Uncertainty.Residuals)

			code, stdout, stderr := runOedl(t, "estimate", "--plan", planDir, "--calibration", cal, "--samples", "5")
			require.Equal(t, ExitOK, code, stderr)
			assert.Contains(t, stdout, "calibrated")
			assert.NoFileExists(t, src+".lk", "no broker or lock left behind")
		})
	}
}

// snapshot is every file of dir with its size and modification time,
// but the database log (.lg): every utility that opens a database appends
// a line to it, in OpenEdge as in oesim.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || filepath.Ext(p) == ".lg" {
			return err
		}
		out[p] = fmt.Sprintf("%s %d", info.ModTime().Format(time.RFC3339Nano), info.Size())
		return nil
	}))
	return out
}
