package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/sim/msg"
	"github.com/oedl/oedl/internal/simtest"
)

func TestScaleThresholds(t *testing.T) {
	tests := []struct {
		name                  string
		total                 int64
		large, medium, thread int64
	}{
		{"the default demo", 5 << 20, 262144, 26214, 262144},
		{"a 2 GB demo", 2 << 30, 107374182, 10737418, 107374182},
		{"tiny: floors keep most tables small", 100 << 10, 64 << 10, 8 << 10, 64 << 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := scaleThresholds(tt.total)
			assert.Equal(t, tt.large, got.Large)
			assert.Equal(t, tt.medium, got.Medium)
			assert.Equal(t, tt.thread, got.Threaded)
			assert.Contains(t, got.String(), "5%")
		})
	}
}

// TestDemoShowsTheDecisions runs the demo on the erp profile at a small
// scale: with thresholds scaled to the database, the plan has large tables
// in their own areas (BPC 512), medium pools (BPC 64) and small pools
// (BPC 8), and the biggest tables are dumped with threads, their sections
// loaded as they land.
func TestDemoShowsTheDecisions(t *testing.T) {
	if testing.Short() {
		t.Skip("builds oesim and runs a migration")
	}
	oesim := simtest.Oesim(t)
	dir := filepath.Join(t.TempDir(), "demo")
	var stdout, stderr bytes.Buffer
	code := Execute(context.Background(), &IOStreams{In: &bytes.Buffer{}, Out: &stdout, ErrOut: &stderr},
		[]string{"demo", "--dir", dir, "--scale", "3MB", "--no-tui", "--oesim", oesim})
	require.Equal(t, ExitOK, code, stderr.String())
	assert.Contains(t, stderr.String(), "thresholds scaled to this database")

	st, err := os.ReadFile(filepath.Join(dir, "plan", "target.st"))
	require.NoError(t, err)
	// d "Area":N,RPB;BPC path
	bpc := map[string]int{}
	for _, m := range regexp.MustCompile(`(?m)^d "([^"]+)":\d+,\d+;(\d+)`).FindAllStringSubmatch(string(st), -1) {
		if strings.HasSuffix(m[1], "_Data") {
			bpc[m[2]]++
		}
	}
	for _, want := range []string{"512", "64", "8"} {
		assert.Positive(t, bpc[want], "data areas with %s blocks per cluster in\n%s", want, st)
	}

	recs, err := journal.Read(filepath.Join(dir, "work", journal.FileName))
	require.NoError(t, err)
	sections := 0
	for _, r := range recs {
		if r.Kind == "load" && r.Section > 1 && r.State == journal.Done {
			sections++
		}
	}
	assert.Positive(t, sections, "a threaded dump's sections are loaded as they land")
	// The demo runs with oedl run's own defaults (it ran with the first
	// ones, crash-safe, unbatched, a bare target, long after run's moved).
	require.NotEmpty(t, recs)
	for _, k := range []string{"batch_loads", "no_integrity", "tune_target"} {
		assert.EqualValues(t, 1, recs[0].Settings[k], "%s: oedl run's default", k)
	}
	assert.EqualValues(t, 0, recs[0].Settings["loads_per_area"], "no per-area cap beyond OpenEdge's (run's default)")
	// The next demo in this directory may clear it: the run wrote nothing
	// run.WorkEntries lacks (stop 30 review: a name missing from the
	// demo's own list made the second demo refuse, exit 2).
	assert.NoError(t, demoClearable(dir))
}

// TestDemoInOtherLanguages: `PROMSGS=<a translated message file> oedl
// demo`. The utilities speak the language (the file is oesim's, written as
// the demo's own DLC would hold it), and the demo ends verified all the
// same: oedl reads numbers, exit codes and structure, never words.
func TestDemoInOtherLanguages(t *testing.T) {
	if testing.Short() {
		t.Skip("builds oesim and runs a migration")
	}
	oesim := simtest.Oesim(t)
	msgs := t.TempDir()
	require.NoError(t, msg.Install(msgs))
	for _, tt := range []struct {
		name, promsgs, rebuilt string
	}{
		{"Portuguese", "prolang/brz/promsgs.brz", "índices foram reconstruídos. (11465)"},
		{"German", "prolang/ger/promsgs.ger", "Indizes wurden neu aufgebaut. (11465)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("PROMSGS", filepath.Join(msgs, filepath.FromSlash(tt.promsgs)))
			dir := filepath.Join(t.TempDir(), "demo")
			var stdout, stderr bytes.Buffer
			// IsTerminal: the live screen draws the run, into the buffer.
			code := Execute(context.Background(), &IOStreams{In: &bytes.Buffer{}, Out: &stdout, ErrOut: &stderr, IsTerminal: true},
				[]string{"demo", "--dir", dir, "--profile", "sports", "--scale", "2MB", "--oesim", oesim})
			require.Equal(t, ExitOK, code, stderr.String())
			assert.Contains(t, stderr.String(), "verified", "the screen's end")

			work := filepath.Join(dir, "work")
			idx, err := filepath.Glob(filepath.Join(work, "logs", "idxbuild*"))
			require.NoError(t, err)
			require.NotEmpty(t, idx)
			data, err := os.ReadFile(idx[0])
			require.NoError(t, err)
			assert.Contains(t, string(data), tt.rebuilt)

			for _, args := range [][]string{
				{"verify", "--before", filepath.Join(work, "source.tba"), "--after", filepath.Join(work, "target.tba")},
				{"report", "--work", work},
			} {
				stdout.Reset()
				stderr.Reset()
				code = Execute(context.Background(), &IOStreams{In: &bytes.Buffer{}, Out: &stdout, ErrOut: &stderr}, args)
				assert.Equal(t, ExitOK, code, "%v: %s", args, stderr.String())
				// The demo's own next step agrees with the run's verdict: the
				// baseline's (2486) is the run's broker, not an approximation.
				// (The report keeps the run's own warnings, such as the price of
				// its -i loads, said at its start.)
				assert.NotContains(t, stderr.String(), "approximation", "%v", args)
			}
		})
	}
}

// TestDemoOnASmallDisk (safety-hosts): the demo's source is its own
// (generated by the demo, served by no one), so the room oedl keeps for a
// source to grow (at least 1 GiB by default) is not kept for it: on a
// 256 MiB filesystem the demo ends verified. The old demo was refused
// (exit 3, "no room left for the source"). That oedl's own files fit is
// still checked: on a filesystem that holds the generated source but
// not the run, the demo is refused (exit 3, "not enough disk space")
// before the run writes. It needs a tmpfs, so root (mount(2)).
func TestDemoOnASmallDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("builds oesim and runs a migration")
	}
	oesim := simtest.Oesim(t)
	for _, tc := range []struct {
		name, size string
		code       int
		want       string
	}{
		{"room for the demo but for no headroom", "256m", ExitOK, "verified"},
		// About 94 MiB before the run (the DLC, the source), 94.5 more
		// for the run (its target's fixed extents the most).
		{"no room for the run", "160m", ExitPrecondition, "not enough disk space on the filesystem of"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mnt := t.TempDir()
			if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size="+tc.size); err != nil {
				t.Skipf("a tmpfs is needed (mount(2) as root): %v", err)
			}
			t.Cleanup(func() { _ = syscall.Unmount(mnt, syscall.MNT_DETACH) })
			dir := filepath.Join(mnt, "demo")
			var stdout, stderr bytes.Buffer
			code := Execute(context.Background(), &IOStreams{In: &bytes.Buffer{}, Out: &stdout, ErrOut: &stderr},
				[]string{"demo", "--dir", dir, "--profile", "sports", "--scale", "2MB", "--no-tui", "--oesim", oesim})
			assert.Equal(t, tc.code, code, stderr.String())
			assert.Contains(t, stderr.String(), tc.want)
			assert.NotContains(t, stderr.String(), "no room left for the source")
		})
	}
}
