package tune

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/diskstats"
)

func TestParseCPU(t *testing.T) {
	for _, tc := range []struct {
		line      string
		busy, all uint64
		ok        bool
	}{
		{"cpu  100 10 50 800 40 0 5 0 0 0", 165, 1005, true},
		{"cpu0 100 10 50 800 40 0 5 0 0 0", 0, 0, false},
		{"cpu  100 10 50", 0, 0, false},
		{"cpu  100 x 50 800 40 0 5 0", 0, 0, false},
	} {
		busy, all, err := parseCPU(tc.line)
		assert.Equal(t, tc.ok, err == nil, tc.line)
		assert.Equal(t, [2]uint64{tc.busy, tc.all}, [2]uint64{busy, all}, tc.line)
	}
}

// Two readings a second apart: the run's and the machine's busy share, the bytes the device
// moved and the share of the second it was busy; what was not read is
// unknown (negative).
func TestInterval(t *testing.T) {
	dir := t.TempDir()
	stat, disk := filepath.Join(dir, "stat"), filepath.Join(dir, "diskstats")
	write := func(cpu, line string) {
		require.NoError(t, os.WriteFile(stat, []byte(cpu+"\ncpu0 1 2 3 4 5 6 7 8\n"), 0o644))
		require.NoError(t, os.WriteFile(disk, []byte(line), 0o644))
	}
	own := time.Duration(0)
	s := Sampler{Own: func() time.Duration { return own }, Cores: 2, Stat: stat, Disk: &diskstats.Source{Path: disk, Device: "vdisk"}}
	t0 := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	write("cpu  100 0 100 800 0 0 0 0", " 253 0 vdisk 10 0 80 0 2 0 16 0 0 100 0\n")
	a := s.Read(t0)
	write("cpu  150 0 150 850 50 0 0 0", " 253 0 vdisk 20 0 2128 0 2 0 16 0 0 900 0\n")
	own = 600 * time.Millisecond // of 2 cores for 1 s
	b := s.Read(t0.Add(time.Second))
	o := s.Interval(a, b)
	assert.InDelta(t, 0.3, o.CPUBusy, 1e-9)
	assert.InDelta(t, 0.5, o.MachineBusy, 1e-9)
	assert.InDelta(t, 2048*512, o.DiskBytes, 1e-9)
	assert.InDelta(t, 0.8, o.DiskBusy, 1e-9)

	none := Sampler{}
	o = none.Interval(none.Read(t0), none.Read(t0.Add(time.Second)))
	assert.Equal(t, Observation{Seconds: 1, CPUBusy: -1, MachineBusy: -1, DiskBusy: -1}, o)
}
