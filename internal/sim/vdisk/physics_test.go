package vdisk

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/volume"
)

// exact is a private device on a stopped clock that books exactly what is
// charged, so that each sleep is the end of a reservation from t0.
func exact(t *testing.T, c Config) (*Disk, *fakeClock) {
	t.Helper()
	clock := &fakeClock{now: t0}
	c.Clock, c.Quantum = clock, -1
	d, err := open(c)
	require.NoError(t, err)
	return d, clock
}

// Sequential requests are counted merged to the device's size (256 KiB for
// the generic device and EBS SSD classes); random ones one each.
func TestRequestsCountByAccessPattern(t *testing.T) {
	d, clock := exact(t, Config{IOPS: 1000})       // 1 ms an operation, bytes free
	require.NoError(t, d.Sequential(1<<20, false)) // 4 operations of 256 KiB
	require.NoError(t, d.Random(8, 8192, false))   // 8 operations
	require.NoError(t, d.Random(1, 1<<20, true))   // a 1 MiB random write counts 4
	assert.Equal(t, []time.Duration{4 * time.Millisecond, 12 * time.Millisecond, 16 * time.Millisecond}, clock.sleeps)
}

// A volume with separate ceilings (gp3: 3000 IOPS, 125 MiB/s) holds each
// for its own share: a request of many small operations and one of a few
// large ones, at once, take what the busier ceiling needs, not the sum.
func TestSeparateCeilings(t *testing.T) {
	d, clock := exact(t, Config{Volume: volume.GP3})
	require.NoError(t, d.Random(3000, 4096, false)) // 1 s of operations, 12 MB
	require.NoError(t, d.Sequential(125e6, false))  // 1 s of bytes (125 MiB/s = 131 MB/s), 477 operations
	got := clock.sleeps
	require.Len(t, got, 2)
	assert.InDelta(t, 1.0, got[0].Seconds(), 0.01, "the operations pipe")
	// The second request's 477 operations queue behind the first's 3000
	// (1 s + 0.16 s); its bytes behind the first's 12 MB (1.05 s): it ends
	// with the later of the two, not after the sum.
	assert.InDelta(t, 1+125e6/(256<<10)/3000, got[1].Seconds(), 0.001)
	assert.Less(t, got[1].Seconds(), 1.3, "not the sum of the two")
}

// A gp2 of 100 GiB bursts at 3000 IOPS while its bucket holds credits and
// runs at its 300 IOPS baseline after; idle time earns them back.
func TestBurstBucket(t *testing.T) {
	spent := 1 - 2700/5.4e6 // 2700 credits: one second of burst
	d, clock := exact(t, Config{Volume: volume.GP2, VolumeGiB: 100, BurstSpent: spent})
	require.NoError(t, d.Random(3000, 4096, false)) // 1 s at the burst rate
	require.NoError(t, d.Random(300, 4096, false))  // the bucket is empty: 1 s at the baseline
	assert.InDelta(t, 1.0, clock.sleeps[0].Seconds(), 1e-6)
	assert.InDelta(t, 2.0, clock.sleeps[1].Seconds(), 1e-6)
	// Idle for 9 s: 2700 credits earned at 300 a second, one more second
	// of burst.
	clock.advance(11 * time.Second)
	require.NoError(t, d.Random(3000, 4096, false))
	assert.InDelta(t, 1.0, clock.sleeps[2].Seconds(), 1e-6)
}

// Requests the caller waits for one by one take at least the latency
// however idle the device; written-behind pages do not.
func TestLatency(t *testing.T) {
	d, clock := exact(t, Config{Volume: volume.GP3, LatencyMs: 20})
	require.NoError(t, d.Random(10, 8192, false)) // 10 waits of 20 ms
	clock.advance(time.Second)
	require.NoError(t, d.Sequential(512<<10, false)) // 4 read-ahead requests of 128 KiB, two at a time: 2 waits
	clock.advance(time.Second)
	require.NoError(t, d.Sequential(512<<10, true)) // written behind: the device time only (4 ms)
	assert.Equal(t, 200*time.Millisecond, clock.sleeps[0])
	assert.Equal(t, 40*time.Millisecond, clock.sleeps[1])
	assert.InDelta(t, float64(512<<10)/(125*volume.MiB*1e6), clock.sleeps[2].Seconds(), 1e-6)
}

// The counters are the kernel's requests (128 KiB read-ahead, written-back
// pages up to 512 KiB, one per random request) in a /proc/diskstats line
// beside the state; a process's last charges are added when it closes.
func TestDiskstats(t *testing.T) {
	dir := t.TempDir()
	d := New(Config{IOPS: 1e6, StateDir: dir, Clock: &fakeClock{now: t0}})
	require.NoError(t, d.Sequential(1<<20, false)) // 8 reads, 2048 sectors
	require.NoError(t, d.Sequential(1<<20, true))  // 2 writes, 2048 sectors
	require.NoError(t, d.Random(10, 8192, false))  // 10 reads, 160 sectors
	require.NoError(t, d.Close())
	raw, err := os.ReadFile(filepath.Join(dir, DiskstatsFile))
	require.NoError(t, err)
	f := strings.Fields(string(raw))
	require.Len(t, f, 14)
	assert.Equal(t, []string{DiskstatsName, "18", "0", "2208", "0", "2", "0", "2048"}, f[2:10])
}

// A state file of the earlier layout (8 bytes: the end of the serial
// device's last reservation) still queues a new request behind it.
func TestOldStateFile(t *testing.T) {
	dir := t.TempDir()
	old := make([]byte, 8)
	binary.LittleEndian.PutUint64(old, uint64(t0.Add(time.Second).UnixNano()))
	require.NoError(t, os.WriteFile(filepath.Join(dir, StateFile), old, 0o644))
	clock := &fakeClock{now: t0}
	d := New(Config{MBps: 1, StateDir: dir, Clock: clock, Quantum: -1})
	require.NoError(t, d.Charge(1<<20, 0))
	assert.Equal(t, []time.Duration{2 * time.Second}, clock.sleeps)
}

func TestFromEnvVolume(t *testing.T) {
	t.Setenv("OESIM_STATE", t.TempDir())
	t.Setenv(EnvVolume, "io1")
	t.Setenv(EnvIOPS, "300")
	t.Setenv(EnvLatencyMS, "0.5")
	d, err := FromEnv()
	require.NoError(t, err)
	assert.True(t, d.On())
	assert.InDelta(t, 75*volume.MiB*1e6, d.dev.bytesPerSec, 1, "io1: 256 KiB per IOPS")
	assert.Equal(t, 500*time.Microsecond, d.dev.latency)
	for _, tc := range []struct{ name, value, err string }{
		{EnvVolume, "nvme", EnvVolume},
		{EnvBurstSpent, "2", EnvBurstSpent},
		{EnvMaxIOKB, "1.5", EnvMaxIOKB},
		{EnvLatencyMS, "-1", EnvLatencyMS},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(tc.name, tc.value)
			_, err := FromEnv()
			assert.ErrorContains(t, err, tc.err)
		})
	}
	t.Setenv(EnvIOPS, "")
	_, err = FromEnv()
	assert.ErrorContains(t, err, "provisioned IOPS", "io1 without its IOPS")
}

// A request of more than a few quanta of device time is booked in slices,
// one after the other, so that other processes' requests queue between
// them (a device interleaves streams; the kernel sends no request larger
// than max_sectors_kb): 10 ms of device time in 1 ms quanta is 3 slices of
// at most 4 ms, ending where the one booking would have.
func TestLargeRequestsAreBookedInSlices(t *testing.T) {
	clock := &fakeClock{now: t0}
	d := New(Config{IOPS: 1000, Clock: clock}) // default quantum: 1 ms
	require.NoError(t, d.Charge(0, 10))
	require.Len(t, clock.sleeps, 3)
	assert.InDelta(t, (10 * time.Millisecond).Seconds(), clock.sleeps[2].Seconds(), 1e-6)
}

// The line's "ms doing I/O" is the union of the device's reservations: a
// request queued behind another adds only what it reserves beyond it, and
// idle time adds nothing (a reader divides it by the wall time between
// two readings to see how busy the device was).
func TestDiskstatsBusy(t *testing.T) {
	dir := t.TempDir()
	clock := &fakeClock{now: t0}
	d := New(Config{MBps: 10, StateDir: dir, Clock: clock, Quantum: -1})
	require.NoError(t, d.Charge(10<<20, 0)) // busy t0 .. t0+1s
	require.NoError(t, d.Charge(5<<20, 0))  // queued: busy to t0+1.5s
	clock.advance(5 * time.Second)          // idle
	require.NoError(t, d.Charge(10<<20, 0)) // busy 1 s more
	require.NoError(t, d.Close())
	raw, err := os.ReadFile(filepath.Join(dir, DiskstatsFile))
	require.NoError(t, err)
	f := strings.Fields(string(raw))
	require.Len(t, f, 14)
	assert.Equal(t, "2500", f[12])
}
