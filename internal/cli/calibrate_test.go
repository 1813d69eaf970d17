package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/estimate"
	"github.com/oedl/oedl/internal/run"
	"github.com/oedl/oedl/internal/simtest"
)

func TestCalibratePreconditions(t *testing.T) {
	dir := t.TempDir()
	// A DLC and a source that pass the file checks, for a plan that does
	// not hold together: refused as bad input before any utility runs.
	dlc := filepath.Join(dir, "dlc")
	require.NoError(t, os.MkdirAll(filepath.Join(dlc, "bin"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dlc, "bin", "proutil"), nil, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "src.db"), nil, 0o644))
	broken := estimatePlanDir(t)
	edit(t, filepath.Join(broken, "target.st"), regexp.MustCompile(`(d "a0":7),64;8`), "${1},64;64")
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"no source", []string{"--work", dir, "--plan", dir, "-o", "x.json"}, ExitUsage, "--source"},
		{"no plan", []string{"--source", "db", "--work", dir, "-o", "x.json"}, ExitUsage, "--plan"},
		{"no DLC", []string{"--source", "db", "--work", dir, "--plan", dir, "-o", "x.json", "--dlc", filepath.Join(dir, "nodlc")}, ExitPrecondition, "proutil"},
		{"a plan that does not hold together", []string{"--source", filepath.Join(dir, "src"), "--work", filepath.Join(dir, "work"), "--plan", broken, "-o", "x.json", "--dlc", dlc},
			ExitUsage, "target.st:"},
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
		name, profile, sampleMax string
		note                     *regexp.Regexp
		// counted: the disk is described and its counters read, so the
		// calibration keeps the disk and measures the traffic.
		counted bool
	}{
		{"sports", "sports", "150KB", regexp.MustCompile(`large sample: PUB\.OrderLine Ordernum LE \d+, [\d,]+ of [\d,]+ records`), false},
		{"erp", "erp", "150KB", regexp.MustCompile(`large sample: no index of PUB\.xxext_xref leads with a number or a date`), false},
		{"sports on a described disk, counted", "sports", "150KB", regexp.MustCompile(`dump traffic measured: .* per table byte`), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			work := t.TempDir()
			simtest.KeepLogsOnFailure(t, work)
			dlc := simtest.DLC(t, work)
			src := filepath.Join(work, "src", "prod")
			simtest.Gen(t, dlc, work, src, tc.profile, "3MB", 3)
			t.Setenv("DLC", dlc)
			t.Setenv("OESIM_DISK_MBPS", "200")
			t.Setenv("OESIM_STARTUP_MS", "5")
			var disk []string
			if tc.counted {
				t.Setenv("OESIM_DISK_IOPS", "4000")
				disk = []string{"--disk-mbps", "209.7152", "--iops", "4000",
					"--diskstats", filepath.Join(dlc, ".oesim", "diskstats"), "--disk-device", "vdisk"}
			}
			planDir := filepath.Join(work, "plan")
			code, _, stderr := runOedl(t, "plan", "--source", src, "--dlc", dlc, "-o", planDir)
			require.Equal(t, ExitOK, code, stderr)

			before := snapshot(t, filepath.Dir(src))
			cal := filepath.Join(work, "out", "cal.json") // out/ not made yet: the write makes it
			code, _, stderr = runOedl(t, append([]string{"calibrate", "--source", src, "--dlc", dlc, "--work", filepath.Join(work, "cal"),
				"--plan", planDir, "-o", cal, "--sample-tables", "8", "--sample-max", tc.sampleMax}, disk...)...)
			require.Equal(t, ExitOK, code, stderr)
			assert.Equal(t, before, snapshot(t, filepath.Dir(src)), "calibrate only reads the source")
			assert.Regexp(t, tc.note, stderr)

			m, err := estimate.ReadModel(cal)
			require.NoError(t, err)
			assert.Contains(t, m.Origin, "calibrated")
			assert.Positive(t, m.Hardware.DiskMBps)
			assert.NotEmpty(t, m.Uncertainty.Residuals)
			if tc.counted {
				assert.Equal(t, 4000.0, m.Hardware.DiskIOPS, "the described disk is kept")
				assert.Contains(t, stderr, "load traffic measured")
				assert.Contains(t, stderr, "idxbuild traffic measured")
				// A dump reads its table's blocks (at least its bytes: more
				// where blocks are part empty) and writes its .bd.
				assert.GreaterOrEqual(t, m.Dump.ReadPerByte, 1.0)
				assert.InDelta(t, 1.2, m.Dump.WritePerByte, 0.3)
				// Tabanalys is priced on the loaded scratch, the source's
				// by how many more blocks it reads per table byte.
				assert.Contains(t, stderr, "tabanalys of the source:")
				assert.Greater(t, m.SourceScanFactor, 0.0)
			}

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

// TestCalibrateRefusesAWorkInUse: a calibration clears WORK/calibrate
// before it begins, and a second one given the same --work removed the
// first's scratch databases while its broker served them (safety trial
// 9). Now it takes WORK/oedl.lock first, and a file of that name that is
// not oedl's lock is left alone.
func TestCalibrateRefusesAWorkInUse(t *testing.T) {
	dir := t.TempDir()
	dlc := filepath.Join(dir, "dlc")
	require.NoError(t, os.MkdirAll(filepath.Join(dlc, "bin"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dlc, "bin", "proutil"), nil, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "src.db"), nil, 0o644))
	planDir := estimatePlanDir(t)
	earlier := func(t *testing.T, work string) string {
		log := filepath.Join(work, "calibrate", "calibrate.log")
		require.NoError(t, os.MkdirAll(filepath.Dir(log), 0o755))
		require.NoError(t, os.WriteFile(log, []byte("the first calibration's\n"), 0o644))
		return log
	}
	args := func(work string) []string {
		return []string{"calibrate", "--source", filepath.Join(dir, "src"), "--work", work, "--plan", planDir,
			"-o", filepath.Join(dir, "c.json"), "--dlc", dlc}
	}

	t.Run("another calibration holds the work directory", func(t *testing.T) {
		work := filepath.Join(dir, "busy")
		log := earlier(t, work)
		unlock, err := run.LockCalibration(work)
		require.NoError(t, err)
		defer unlock()
		code, _, stderr := runOedl(t, args(work)...)
		assert.Equal(t, ExitPrecondition, code, stderr)
		assert.Contains(t, stderr, "another oedl calibrate (pid")
		assert.NotContains(t, stderr, "oedl status", "a calibration keeps no journal for status to read")
		assert.FileExists(t, log, "the first calibration's scratch was cleared")
	})
	t.Run("someone's oedl.lock", func(t *testing.T) {
		work := filepath.Join(dir, "foreign")
		log := earlier(t, work)
		lock := filepath.Join(work, "oedl.lock")
		require.NoError(t, os.WriteFile(lock, []byte("notes\n"), 0o644))
		code, _, stderr := runOedl(t, args(work)...)
		assert.Equal(t, ExitPrecondition, code, stderr)
		assert.Contains(t, stderr, lock+" is not a lock oedl wrote")
		data, err := os.ReadFile(lock)
		require.NoError(t, err)
		assert.Equal(t, "notes\n", string(data))
		assert.FileExists(t, log)
	})
}

// TestCalibrateStopsAnEarlierCalibrationsBroker (safety trial 12): a
// calibration killed with kill -9 never runs its deferred proshut, and its
// scratch database's broker went on serving files the next calibration
// removed (oesim: a `_mprosrv` on a deleted .lk; OpenEdge: its shared
// memory and semaphores held until a reboot), shut down by nothing. Now
// the next calibration shuts it down (the database is its own scratch)
// before it clears WORK/calibrate.
func TestCalibrateStopsAnEarlierCalibrationsBroker(t *testing.T) {
	work := t.TempDir()
	dlc := simtest.DLC(t, work)
	src := filepath.Join(work, "src", "prod")
	simtest.Gen(t, dlc, work, src, "sports", "3MB", 3)
	t.Setenv("DLC", dlc)
	t.Setenv("OESIM_DISK_MBPS", "200")
	t.Setenv("OESIM_STARTUP_MS", "5")
	planDir := filepath.Join(work, "plan")
	code, _, stderr := runOedl(t, "plan", "--source", src, "--dlc", dlc, "-o", planDir)
	require.Equal(t, ExitOK, code, stderr)

	cal := filepath.Join(work, "cal")
	left := filepath.Join(cal, "calibrate", "scratch0", "scratch") // what the killed calibration left, served
	simtest.Gen(t, dlc, work, left, "sports", "1MB", 4)
	require.NoError(t, os.WriteFile(filepath.Join(cal, "calibrate", "calibrate.log"), []byte("the killed calibration's\n"), 0o644))
	simtest.Run(t, dlc, work, filepath.Join(dlc, "bin", "proserve"), left)
	brokers := servingBrokers(t, left)
	t.Cleanup(func() { // never leave it behind, whatever the test found
		for _, pid := range servingBrokers(t, left) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	require.NotEmpty(t, brokers, "the earlier calibration's broker")

	code, _, stderr = runOedl(t, "calibrate", "--source", src, "--dlc", dlc, "--work", cal, "--plan", planDir,
		"-o", filepath.Join(work, "cal.json"), "--sample-tables", "8", "--sample-max", "150KB")
	require.Equal(t, ExitOK, code, stderr)
	assert.Contains(t, stderr, "shutting down the broker an earlier calibration left on "+left)
	for _, pid := range brokers {
		// proshut returns once the broker let go of the database; the
		// process ends just after (a zombie where nothing reaps it).
		deadline := time.Now().Add(10 * time.Second)
		for running(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		assert.False(t, running(pid), "the earlier broker %d still runs", pid)
	}
}

// running: process pid exists and is not a zombie.
func running(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, after, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(after, "Z")
}

// servingBrokers are the processes whose command line serves db (oesim's
// _mprosrv DB ...).
func servingBrokers(t *testing.T, db string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	var out []int
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscanf(e.Name(), "%d", &pid); err != nil {
			continue
		}
		cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(cmd), "\x00")
		if len(args) > 1 && filepath.Base(args[0]) == "_mprosrv" && args[1] == db {
			out = append(out, pid)
		}
	}
	return out
}
