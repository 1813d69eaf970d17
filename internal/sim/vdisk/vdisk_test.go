package vdisk

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeClock stands still unless told to move; Sleep records the request.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sleeps = append(c.sleeps, d)
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func TestServiceTime(t *testing.T) {
	tests := []struct {
		name       string
		mbps, iops float64
		bytes, ios int64
		want       time.Duration
	}{
		{"off", 0, 0, 1 << 30, 1000, 0},
		{"bandwidth", 100, 0, 50 << 20, 1000, 500 * time.Millisecond},
		{"iops", 0, 4000, 1 << 30, 2000, 500 * time.Millisecond},
		{"both add up", 10, 100, 5 << 20, 50, time.Second},
		{"fraction", 0.5, 0, 1 << 20, 0, 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := New(Config{MBps: tt.mbps, IOPS: tt.iops})
			assert.Equal(t, tt.want, d.ServiceTime(tt.bytes, tt.ios))
		})
	}
}

func TestChargeQueuesBehindEarlierReservations(t *testing.T) {
	for _, shared := range []bool{false, true} {
		t.Run(fmt.Sprint("shared=", shared), func(t *testing.T) {
			clock := &fakeClock{now: t0}
			cfg := Config{MBps: 10, Clock: clock, Quantum: -1}
			if shared {
				cfg.StateDir = t.TempDir()
			}
			d := New(cfg)
			defer d.Close()

			require.NoError(t, d.Charge(10<<20, 0)) // 1 s of device time from t0
			require.NoError(t, d.Charge(5<<20, 0))  // queued: ends at t0+1.5s
			clock.advance(time.Second)              // the first one is done
			require.NoError(t, d.Charge(5<<20, 0))  // queued behind the second: ends at t0+2s
			clock.advance(5 * time.Second)          // idle: no credit is banked
			require.NoError(t, d.Charge(10<<20, 0))
			assert.Equal(t, []time.Duration{
				time.Second, 1500 * time.Millisecond, time.Second, time.Second,
			}, clock.sleeps)
		})
	}
}

// TestTwoChargersShareTheBandwidth: two processes (two handles on one
// state file) stream 8 chunks each at once; together they take the total
// bytes over the bandwidth, and each finishes after about the whole time,
// not half of it.
func TestTwoChargersShareTheBandwidth(t *testing.T) {
	clock := &fakeClock{now: t0}
	dir := t.TempDir()
	a := New(Config{MBps: 8, StateDir: dir, Clock: clock, Quantum: -1})
	b := New(Config{MBps: 8, StateDir: dir, Clock: clock, Quantum: -1})
	defer a.Close()
	defer b.Close()
	var wg sync.WaitGroup
	for _, d := range []*Disk{a, b} {
		wg.Go(func() {
			for range 8 {
				assert.NoError(t, d.Charge(1<<20, 0))
			}
		})
	}
	wg.Wait()
	// The clock stood still, so each sleep is the time from t0 to the end
	// of that reservation: 16 reservations of 1/8 s end at 1/8, 2/8 ... 2 s.
	require.Len(t, clock.sleeps, 16)
	got := map[time.Duration]bool{}
	for _, s := range clock.sleeps {
		got[s] = true
	}
	for k := 1; k <= 16; k++ {
		assert.True(t, got[time.Duration(k)*time.Second/8], "a reservation ends at %d/8 s", k)
	}
	assert.Equal(t, 2*time.Second, maxDuration(clock.sleeps), "16 MiB at 8 MiB/s take 2 s in all")
	raw, err := os.ReadFile(filepath.Join(dir, StateFile))
	require.NoError(t, err)
	assert.Equal(t, t0.Add(2*time.Second).UnixNano(), int64(binary.LittleEndian.Uint64(raw)))
}

func maxDuration(ds []time.Duration) time.Duration {
	var m time.Duration
	for _, d := range ds {
		m = max(m, d)
	}
	return m
}

func TestSmallChargesBookAQuantumAhead(t *testing.T) {
	clock := &fakeClock{now: t0}
	d := New(Config{IOPS: 1000, Quantum: 5 * time.Millisecond, Clock: clock}) // 1 ms per operation
	for range 12 {
		require.NoError(t, d.Charge(0, 1))
	}
	// Charges 1, 6 and 11 book 5 ms each, queued one behind the other; the
	// others use the credit. 12 ms charged, 15 ms booked: never free, at
	// most one quantum too many.
	assert.Equal(t, []time.Duration{5 * time.Millisecond, 10 * time.Millisecond, 15 * time.Millisecond}, clock.sleeps)

	// A second private device (its own time line): a big charge uses the
	// credit and books only the rest.
	big := New(Config{IOPS: 1000, Quantum: 5 * time.Millisecond, Clock: clock})
	require.NoError(t, big.Charge(0, 1))  // books 5 ms, 4 ms of credit
	require.NoError(t, big.Charge(0, 10)) // needs 10 ms: 4 from the credit, books 6
	assert.Equal(t, []time.Duration{5 * time.Millisecond, 11 * time.Millisecond}, clock.sleeps[3:])

	// A charge worth less than a nanosecond is not free either.
	tiny := New(Config{MBps: 2048, Clock: clock}) // 1 byte: 0.47 ns
	require.NoError(t, tiny.Charge(1, 0))
	assert.Equal(t, DefaultQuantum, clock.sleeps[5])

	exact := New(Config{IOPS: 1000, Quantum: -1, Clock: clock})
	require.NoError(t, exact.Charge(0, 1))
	assert.Equal(t, time.Millisecond, clock.sleeps[6], "a negative quantum books exactly what is charged")
}

func TestOffIsFreeAndTouchesNothing(t *testing.T) {
	clock := &fakeClock{now: t0}
	dir := t.TempDir()
	d := New(Config{StateDir: dir, Clock: clock})
	require.NoError(t, d.Charge(1<<30, 1<<20))
	d.Startup()
	assert.Empty(t, clock.sleeps)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "no state file when the device is off")

	var w bytes.Buffer
	assert.Same(t, &w, d.Writer(&w, 4096), "no wrapper when off")

	var none *Disk
	require.NoError(t, none.Charge(1, 1))
	none.Startup()
	assert.Zero(t, none.MBps())
	assert.Zero(t, none.IOPS())
	assert.False(t, none.On())
	assert.NoError(t, none.Close())
}

func TestStartup(t *testing.T) {
	clock := &fakeClock{now: t0}
	d := New(Config{Startup: 150 * time.Millisecond, Clock: clock})
	d.Startup()
	assert.Equal(t, []time.Duration{150 * time.Millisecond}, clock.sleeps)
	assert.False(t, d.On(), "a start-up cost alone does not meter I/O")
}

func TestWriterAndReaderCharge(t *testing.T) {
	clock := &fakeClock{now: t0}
	d := New(Config{IOPS: 100, Clock: clock, Quantum: -1})
	var sink bytes.Buffer
	w := d.Writer(&sink, 4096)
	_, err := w.Write(make([]byte, 10000)) // 3 operations
	require.NoError(t, err)
	r := d.Reader(strings.NewReader(strings.Repeat("x", 4096)), 4096)
	_, err = io.ReadFull(r, make([]byte, 4096)) // one read of 4096 bytes: 1 operation
	require.NoError(t, err)
	_, err = r.Read(make([]byte, 10)) // EOF moves nothing and costs nothing
	require.ErrorIs(t, err, io.EOF)
	assert.Equal(t, []time.Duration{30 * time.Millisecond, 40 * time.Millisecond}, clock.sleeps)
	assert.Equal(t, 10000, sink.Len())
}

func TestFromEnv(t *testing.T) {
	t.Setenv("OESIM_STATE", "/tmp/oesim-state")
	t.Setenv(EnvMBps, "150.5")
	t.Setenv(EnvIOPS, "4000")
	t.Setenv(EnvStartupMS, "25")
	d, err := FromEnv()
	require.NoError(t, err)
	assert.Equal(t, 150.5, d.MBps())
	assert.Equal(t, 4000.0, d.IOPS())
	assert.Equal(t, 25*time.Millisecond, d.StartupCost())
	assert.Equal(t, "/tmp/oesim-state/"+StateFile, d.path)

	for _, bad := range []string{"fast", "-1", "NaN", "Inf"} {
		t.Setenv(EnvIOPS, bad)
		_, err := FromEnv()
		assert.ErrorContains(t, err, EnvIOPS+`="`+bad+`"`)
	}
}

// TestMain lets the test binary play an oesim process that charges the
// shared device and reports its reservation.
func TestMain(m *testing.M) {
	if os.Getenv("VDISK_HELPER") == "charge" {
		d, err := FromEnv()
		if err == nil {
			n, _ := strconv.ParseInt(os.Getenv("VDISK_BYTES"), 10, 64)
			err = d.Charge(n, 0)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Print(time.Now().UnixNano())
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestProcessesQueueOnOneDevice is the real thing with small numbers: a
// first process books 200 ms of the device, a second one asks for one byte
// after it and must not finish before the first one's reservation ends.
// Only the order is checked, never a duration.
func TestProcessesQueueOnOneDevice(t *testing.T) {
	state := t.TempDir()
	run := func(bytes int64) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "VDISK_HELPER=charge", "OESIM_STATE="+state, EnvMBps+"=1",
			"VDISK_BYTES="+strconv.FormatInt(bytes, 10))
		return cmd
	}
	first := run(200 << 10) // 200 KiB at 1 MiB/s
	var out1 bytes.Buffer
	first.Stdout = &out1
	require.NoError(t, first.Start())
	stateFile := filepath.Join(state, StateFile)
	var booked int64
	require.Eventually(t, func() bool {
		raw, err := os.ReadFile(stateFile)
		if err != nil || len(raw) < 8 {
			return false
		}
		booked = int64(binary.LittleEndian.Uint64(raw))
		return true
	}, 10*time.Second, time.Millisecond, "the first process books the device")

	out2, err := run(1).Output()
	require.NoError(t, err)
	require.NoError(t, first.Wait())
	done2, err := strconv.ParseInt(string(out2), 10, 64)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, done2, booked, "the second process waited for the first one's slot")
	done1, err := strconv.ParseInt(out1.String(), 10, 64)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, done1, booked)
}

// nopClock is the real clock without the sleep, for benchmarks.
type nopClock struct{}

func (nopClock) Now() time.Time      { return time.Now() }
func (nopClock) Sleep(time.Duration) {}

// BenchmarkCharge measures what a Charge of 8 KiB costs the caller apart
// from the simulated I/O itself (the sleep is skipped): off, paid from the
// credit of a 1 ms booking (at 1000 MiB/s, one booking per 128 charges),
// and booking every call on a private and on the shared device (flock +
// pread + pwrite).
func BenchmarkCharge(b *testing.B) {
	for _, bc := range []struct {
		name string
		cfg  Config
	}{
		{"off", Config{}},
		{"credit", Config{MBps: 1000, StateDir: b.TempDir(), Clock: nopClock{}}},
		{"book-private", Config{MBps: 1000, Quantum: -1, Clock: nopClock{}}},
		{"book-shared", Config{MBps: 1000, Quantum: -1, StateDir: b.TempDir(), Clock: nopClock{}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			d := New(bc.cfg)
			defer d.Close()
			for b.Loop() {
				if err := d.Charge(8192, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestChargeErrorIsNotCredit: a booking that fails (the state file cannot
// be used) is not device time the process holds, so the charges after it
// fail too instead of drawing on a credit that was never booked.
func TestChargeErrorIsNotCredit(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, StateFile), 0o755)) // cannot be opened for writing
	d := New(Config{MBps: 1, StateDir: dir, Clock: &fakeClock{now: t0}})
	for i := range 3 { // 1 µs each: the first would book a quantum of 1 ms
		assert.ErrorContains(t, d.Charge(1, 0), filepath.Join(dir, StateFile), "charge %d", i)
	}
}
