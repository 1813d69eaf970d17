package diskstats

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A /proc/diskstats of a kernel with discard and flush fields (18 fields a
// line); testdata/README.md says where the layout comes from.
func TestParse(t *testing.T) {
	f, err := os.Open("../../testdata/diskstats/proc-diskstats")
	require.NoError(t, err)
	defer f.Close()
	devs, err := Parse(f, "diskstats")
	require.NoError(t, err)
	require.Len(t, devs, 4)
	nvme := devs[1]
	assert.Equal(t, Device{Major: 259, Minor: 0, Name: "nvme0n1",
		Counts: Counts{Reads: 1528331, SectorsRead: 104877246, Writes: 2288940, SectorsWritten: 186263392}, BusyMs: 1493268}, nvme)
	assert.Equal(t, "nvme1n1", devs[3].Name)
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ in, err string }{
		{"   8 0 sda 1 2 3", "diskstats:1: 6 fields"},
		{"   8 0 sda 1 2 x 4 5 6 7 8 9 10 11", `"x" is not a counter`},
		{"   -8 0 sda 1 2 3 4 5 6 7 8 9 10 11", `"-8" is not a counter`},
		{"   8 0 sda 1 2 3 4 5 6 7 8 9 z 11", `"z" is not a counter`},
	} {
		_, err := Parse(strings.NewReader(tc.in), "diskstats")
		assert.ErrorContains(t, err, tc.err)
	}
	devs, err := Parse(strings.NewReader("\n\n"), "diskstats")
	require.NoError(t, err)
	assert.Empty(t, devs)
}

func TestSourceAndSub(t *testing.T) {
	path := filepath.Join(t.TempDir(), "diskstats")
	require.NoError(t, os.WriteFile(path, []byte(" 253 0 vdisk 10 0 80 0 2 0 16 0 0 0 0\n"), 0o644))
	c, err := Source{Path: path, Device: "vdisk"}.Read()
	require.NoError(t, err)
	assert.Equal(t, Counts{10, 80, 2, 16}, c)
	assert.Equal(t, Counts{4, 40, 0, 0}, c.Sub(Counts{6, 40, 3, 16}), "a counter that went down gives 0")
	_, err = Source{Path: path, Device: "sda"}.Read()
	assert.ErrorContains(t, err, `no device "sda"`)
}

func FuzzParse(f *testing.F) {
	raw, _ := os.ReadFile("../../testdata/diskstats/proc-diskstats")
	f.Add(string(raw))
	f.Add(" 253 0 vdisk 10 0 80 0 2 0 16 0 0 0 0\n")
	f.Fuzz(func(t *testing.T, in string) {
		devs, err := Parse(strings.NewReader(in), "fuzz")
		if err != nil {
			assert.Contains(t, err.Error(), "fuzz")
			return
		}
		for _, d := range devs {
			assert.NotEmpty(t, d.Name)
		}
	})
}

// DeviceOf finds the line of the device a directory is on, by its major
// and minor numbers.
func TestDeviceOf(t *testing.T) {
	dir := t.TempDir()
	major, minor, err := devOf(dir)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "diskstats")
	lines := fmt.Sprintf(" 1 1 other 0 0 0 0 0 0 0 0 0 0 0\n %d %d work 1 0 8 0 1 0 8 0 0 0 0\n", major, minor)
	require.NoError(t, os.WriteFile(path, []byte(lines), 0o644))
	name, err := DeviceOf(path, dir)
	require.NoError(t, err)
	assert.Equal(t, "work", name)
	require.NoError(t, os.WriteFile(path, []byte(" 1 1 other 0 0 0 0 0 0 0 0 0 0 0\n"), 0o644))
	_, err = DeviceOf(path, dir)
	assert.ErrorContains(t, err, "no device")
}
