package vdisk

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/oedl/oedl/internal/sim/fault"
)

// Environment variables read by FromEnv.
const (
	EnvMBps         = "OESIM_DISK_MBPS"
	EnvIOPS         = "OESIM_DISK_IOPS"
	EnvStartupMS    = "OESIM_STARTUP_MS"
	EnvVolume       = "OESIM_DISK_VOLUME"
	EnvVolumeGiB    = "OESIM_DISK_GIB"
	EnvBurstSpent   = "OESIM_DISK_BURST_SPENT"
	EnvMaxIOKB      = "OESIM_DISK_MAX_IO_KB"
	EnvReadAheadKB  = "OESIM_DISK_READ_AHEAD_KB"
	EnvMaxSectorsKB = "OESIM_DISK_MAX_SECTORS_KB"
	EnvLatencyMS    = "OESIM_DISK_LATENCY_MS"
)

// StateFile is the name of the device's state file in the state directory.
const StateFile = "vdisk.state"

// Clock is the time source and the sleep of a Disk.
type Clock interface {
	Now() time.Time
	Sleep(d time.Duration)
}

type realClock struct{}

func (realClock) Now() time.Time        { return time.Now() }
func (realClock) Sleep(d time.Duration) { time.Sleep(d) }

// Config describes a device.
type Config struct {
	MBps float64 // bandwidth in MiB/s; 0 = unlimited (with a volume class: its own)
	IOPS float64 // operations per second; 0 = unlimited (with a volume class: provisioned, gp2's baseline)
	// Volume is a class of package volume (gp2, gp3, io1, io2, st1, sc1,
	// local-nvme, local-ssd, hdd) whose documented rules the device
	// follows; "" is the generic device MBps and IOPS describe, serving one
	// request at a time.
	Volume     string
	VolumeGiB  float64 // the volume's size (gp2's baseline, st1 and sc1 throughput)
	BurstSpent float64 // share of the burst bucket spent before the first request (0 = full)
	// MaxIOKB is what the generic device counts a merged sequential
	// request as (0 = DefaultMaxIOKB); ReadAheadKB and MaxSectorsKB are
	// the host kernel's (0 = the defaults): a read-ahead request, the
	// largest request.
	MaxIOKB, ReadAheadKB, MaxSectorsKB int
	// LatencyMs is the least time a request the caller waits for takes,
	// however idle the device (0 = none).
	LatencyMs float64
	Startup   time.Duration // fixed cost of starting a utility
	StateDir  string        // shared state directory; "" = private device
	Clock     Clock         // nil = the real clock
	// Quantum is the least device time booked at once (DefaultQuantum
	// when 0, none when negative). A booking smaller than the quantum is
	// rounded up to it and the surplus is credit that later charges of the
	// process use without booking again. It keeps a charge per record
	// cheap (a booking on the shared device costs a few microseconds of
	// system calls) at the price of at most one quantum booked too many
	// per process; no charge is ever free.
	Quantum time.Duration
}

// DefaultQuantum is the booking quantum when Config.Quantum is 0.
const DefaultQuantum = time.Millisecond

// Disk is a handle on the shared device. A nil *Disk is a device with no
// cost. Its methods are safe for concurrent use.
type Disk struct {
	cfg  Config
	dev  device
	path string

	mu     sync.Mutex
	f      *os.File // the state file, opened on first charge
	statsF *os.File // the diskstats file beside it
	tl     timeline // a private device's timeline
	// surplus is what was booked ahead and not used yet, per pipe: device
	// nanoseconds on a serial device, bytes and operations on one with
	// separate ceilings.
	surplus [2]float64
	// pending is the latency the caller owes and the kernel requests not
	// yet added to the shared counters.
	lat   time.Duration
	stats Stats
	// seq are the sequential streams' kernel requests not yet whole.
	seq [2]float64
}

// New returns a handle on the device described by c. A volume
// description its class cannot resolve is an error (FromEnv names the
// variable).
func New(c Config) *Disk {
	d, err := open(c)
	if err != nil {
		panic(err) // programming error: callers with user input use FromEnv
	}
	return d
}

func open(c Config) (*Disk, error) {
	if c.Clock == nil {
		c.Clock = realClock{}
	}
	switch {
	case c.Quantum == 0:
		c.Quantum = DefaultQuantum
	case c.Quantum < 0:
		c.Quantum = 0
	}
	dev, err := newDevice(c)
	if err != nil {
		return nil, err
	}
	d := &Disk{cfg: c, dev: dev}
	if c.StateDir != "" {
		d.path = filepath.Join(c.StateDir, StateFile)
		if dev.on() {
			ensureDiskstats(c.StateDir)
		}
	}
	d.tl.fresh = true
	return d, nil
}

// FromEnv builds the device from the OESIM_DISK_* variables and
// OESIM_STARTUP_MS (all optional, 0 or unset = no cost), shared through the
// oesim state directory. A malformed value is an error naming the variable.
func FromEnv() (*Disk, error) {
	var c Config
	var err error
	floats := []struct {
		name string
		v    *float64
	}{{EnvMBps, &c.MBps}, {EnvIOPS, &c.IOPS}, {EnvVolumeGiB, &c.VolumeGiB}, {EnvBurstSpent, &c.BurstSpent}, {EnvLatencyMS, &c.LatencyMs}}
	for _, f := range floats {
		if *f.v, err = envRate(f.name); err != nil {
			return nil, err
		}
	}
	if c.BurstSpent > 1 {
		return nil, fmt.Errorf("%s=%g: want a share from 0 (a full bucket) to 1 (empty)", EnvBurstSpent, c.BurstSpent)
	}
	ints := []struct {
		name string
		v    *int
	}{{EnvMaxIOKB, &c.MaxIOKB}, {EnvReadAheadKB, &c.ReadAheadKB}, {EnvMaxSectorsKB, &c.MaxSectorsKB}}
	for _, f := range ints {
		v, err := envRate(f.name)
		if err != nil {
			return nil, err
		}
		if v != math.Trunc(v) || v > 1<<20 {
			return nil, fmt.Errorf("%s=%q: want a whole number of KiB, at most 1 GiB", f.name, os.Getenv(f.name))
		}
		*f.v = int(v)
	}
	ms, err := envRate(EnvStartupMS)
	if err != nil {
		return nil, err
	}
	c.Startup = time.Duration(ms * float64(time.Millisecond))
	c.Volume = os.Getenv(EnvVolume)
	c.StateDir = fault.StateDir()
	d, err := open(c)
	if err != nil {
		return nil, fmt.Errorf("%s=%q: %v", EnvVolume, c.Volume, err)
	}
	return d, nil
}

func envRate(name string) (float64, error) {
	s := os.Getenv(name)
	if s == "" {
		return 0, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("%s=%q: want a number, 0 or more", name, s)
	}
	return v, nil
}

// MBps is the bandwidth in MiB/s as configured (0 = unlimited, or the
// volume class's).
func (d *Disk) MBps() float64 {
	if d == nil {
		return 0
	}
	return d.cfg.MBps
}

// IOPS is the operation rate as configured (0 = unlimited, or the class's).
func (d *Disk) IOPS() float64 {
	if d == nil {
		return 0
	}
	return d.cfg.IOPS
}

// StartupCost is the fixed delay of starting a utility.
func (d *Disk) StartupCost() time.Duration {
	if d == nil {
		return 0
	}
	return d.cfg.Startup
}

// On reports whether I/O costs anything.
func (d *Disk) On() bool { return d != nil && d.dev.on() }

// ServiceTime is the device time a request of bytes and ios operations
// needs on a serial device (the generic one).
func (d *Disk) ServiceTime(bytes, ios int64) time.Duration {
	if !d.On() {
		return 0
	}
	return time.Duration(d.dev.serviceNanos(float64(bytes), float64(ios)))
}

// Startup waits the utility start-up cost (OESIM_STARTUP_MS), as a real
// utility spends connecting to a database before it does any work.
func (d *Disk) Startup() {
	if d != nil && d.cfg.Startup > 0 {
		d.cfg.Clock.Sleep(d.cfg.Startup)
	}
}

// Sequential performs the simulated I/O of bytes read (or written) in
// sequence: merged by the kernel and the device into large requests; a
// reader waits for its read-ahead, a writer's pages are written behind.
func (d *Disk) Sequential(bytes int64, write bool) error {
	if !d.On() || bytes <= 0 {
		return nil
	}
	return d.charge(d.dev.sequential(bytes, write))
}

// Random performs n requests of size bytes each at scattered places: one
// operation each (more when larger than the device counts as one), each
// waited for.
func (d *Disk) Random(n, size int64, write bool) error {
	if !d.On() || n <= 0 {
		return nil
	}
	return d.charge(d.dev.random(n, size, write))
}

// Charge performs the simulated I/O of bytes and ios operations as the
// device counts them (no latency, no kernel counters): it reserves the
// device after every reservation made before it, by any process, and
// sleeps until the reservation ends. Time left over from the last
// booking's rounding to the quantum is used first. It is free and touches
// no file when the device is off.
func (d *Disk) Charge(bytes, ios int64) error {
	if !d.On() || (bytes <= 0 && ios <= 0) {
		return nil
	}
	return d.charge(request{bytes: float64(bytes), ops: float64(ios)})
}

// sliceQuanta is the most device time one booking holds, in quanta: a
// larger request is booked in slices one after the other, so that the
// requests of other processes queue between them, as a device interleaves
// the requests of several streams (the kernel never sends one larger than
// max_sectors_kb). Without slicing, one process formatting an extent would
// hold the device for seconds while every other one waits.
const sliceQuanta = 4

// charge books the request, in slices of at most sliceQuanta quanta of
// device time.
func (d *Disk) charge(r request) error {
	q := float64(d.cfg.Quantum)
	need := d.dev.serviceNanos(r.bytes, r.ops)
	if !d.dev.serial {
		need = 0
		if d.dev.bytesPerSec > 0 {
			need = r.bytes / d.dev.bytesPerSec * 1e9
		}
		if d.dev.opsPerSec > 0 {
			need = max(need, r.ops/d.dev.opsPerSec*1e9)
		}
	}
	n := 1
	if q > 0 && need > sliceQuanta*q {
		n = int(math.Ceil(need / (sliceQuanta * q)))
	}
	if n == 1 {
		return d.chargeSlice(r)
	}
	part := request{bytes: r.bytes / float64(n), ops: r.ops / float64(n), waits: r.waits / float64(n),
		seqReads: r.seqReads / float64(n), seqWrites: r.seqWrites / float64(n)}
	for i := range n {
		p := part
		if i == 0 {
			p.stats = r.stats
		}
		if err := d.chargeSlice(p); err != nil {
			return err
		}
	}
	return nil
}

// chargeSlice books what the request needs beyond the surplus of earlier
// bookings (at least a quantum of it), and sleeps until the booking ends
// or, for the requests the caller waits for one by one, at least their
// latency.
func (d *Disk) chargeSlice(r request) error {
	d.mu.Lock()
	d.lat += time.Duration(r.waits * float64(d.dev.latency))
	d.stats.add(r.stats)
	d.seq[0] += r.seqReads
	d.seq[1] += r.seqWrites
	whole := [2]float64{math.Floor(d.seq[0]), math.Floor(d.seq[1])}
	d.stats.Reads += uint64(whole[0])
	d.stats.Writes += uint64(whole[1])
	d.seq[0] -= whole[0]
	d.seq[1] -= whole[1]
	book, ok := d.fromSurplus(r)
	if ok {
		var wait time.Duration
		if d.lat >= d.cfg.Quantum {
			wait, d.lat = d.lat, 0
		}
		d.mu.Unlock()
		if wait > 0 {
			d.cfg.Clock.Sleep(wait)
		}
		return nil
	}
	lat, stats := d.lat, d.stats
	d.lat, d.stats = 0, Stats{}
	d.mu.Unlock()

	wait, err := d.reserve(book, stats)
	if err != nil {
		// Nothing was booked: the surplus is no credit, and the next
		// charge must try (and fail) to book as well.
		d.mu.Lock()
		d.surplus = [2]float64{}
		d.mu.Unlock()
		return err
	}
	if wait = max(wait, lat); wait > 0 {
		d.cfg.Clock.Sleep(wait)
	}
	return nil
}

// fromSurplus takes the request out of what was booked ahead; when it
// does not fit, it returns what to book (at least a quantum on each pipe
// that falls short) and keeps the rest as the new surplus.
func (d *Disk) fromSurplus(r request) (book [2]float64, ok bool) {
	q := float64(d.cfg.Quantum)
	if d.dev.serial {
		need := d.dev.serviceNanos(r.bytes, r.ops)
		if need <= d.surplus[0] {
			d.surplus[0] -= need
			return book, true
		}
		need -= d.surplus[0]
		book[0] = math.Ceil(max(need, q))
		d.surplus[0] = book[0] - need
		return book, false
	}
	need := [2]float64{r.bytes, r.ops}
	if need[0] <= d.surplus[0] && need[1] <= d.surplus[1] {
		d.surplus[0] -= need[0]
		d.surplus[1] -= need[1]
		return book, true
	}
	rate := [2]float64{d.dev.bytesPerSec, d.dev.opsPerSec}
	for p := range 2 {
		if need[p] <= d.surplus[p] || rate[p] <= 0 {
			d.surplus[p] = max(0, d.surplus[p]-need[p])
			continue
		}
		short := need[p] - d.surplus[p]
		book[p] = max(short, q/1e9*rate[p])
		d.surplus[p] = book[p] - short
	}
	return book, false
}

// reserve books the device (book: nanoseconds of a serial device, or
// bytes and operations) and adds the kernel counters, and returns how long
// the caller must wait for its reservation to end.
func (d *Disk) reserve(book [2]float64, stats Stats) (time.Duration, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	apply := func(t *timeline) time.Duration {
		now := d.cfg.Clock.Now()
		// The device is busy from now or from when it frees up, whichever
		// is later, to the new end: the union of its reservations.
		busyFrom := max(now.UnixNano(), t.end[0], t.end[1])
		var end time.Time
		if d.dev.serial {
			end = t.bookNanos(now, book[0])
		} else {
			end = t.book(&d.dev, now, book[0], book[1])
		}
		stats.BusyNanos = uint64(max(0, end.UnixNano()-busyFrom))
		t.stats.add(stats)
		return end.Sub(now)
	}
	if d.path == "" {
		return apply(&d.tl), nil
	}
	return d.withState(func(t *timeline) time.Duration { return apply(t) })
}

// withState runs fn on the shared timeline under the state file's lock
// and writes it back, with the counters in /proc/diskstats form beside it.
func (d *Disk) withState(fn func(*timeline) time.Duration) (time.Duration, error) {
	if d.f == nil {
		if err := os.MkdirAll(filepath.Dir(d.path), 0o755); err != nil {
			return 0, fmt.Errorf("virtual disk: %w", err)
		}
		f, err := os.OpenFile(d.path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return 0, fmt.Errorf("virtual disk: %w", err)
		}
		d.f = f
	}
	fd := int(d.f.Fd())
	if err := flock(fd, syscall.LOCK_EX); err != nil {
		return 0, fmt.Errorf("virtual disk: lock %s: %w", d.path, err)
	}
	defer func() { _ = flock(fd, syscall.LOCK_UN) }() // closing the fd would release it as well
	buf := make([]byte, timelineSize)
	n, err := d.f.ReadAt(buf, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, fmt.Errorf("virtual disk: read %s: %w", d.path, err)
	}
	t := decodeTimeline(buf[:n])
	wait := fn(&t)
	if _, err := d.f.WriteAt(t.encode(), 0); err != nil {
		return 0, fmt.Errorf("virtual disk: write %s: %w", d.path, err)
	}
	if err := d.writeDiskstats(t.stats); err != nil {
		return 0, fmt.Errorf("virtual disk: %w", err)
	}
	return wait, nil
}

func flock(fd, how int) error {
	for {
		err := syscall.Flock(fd, how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// Close adds the kernel counters not yet added to the shared ones and
// releases the state file.
func (d *Disk) Close() error {
	if d == nil {
		return nil
	}
	d.mu.Lock()
	stats := d.stats
	// A stream's last request, even when not whole.
	stats.Reads += uint64(math.Ceil(d.seq[0] - 1e-9))
	stats.Writes += uint64(math.Ceil(d.seq[1] - 1e-9))
	d.stats, d.seq = Stats{}, [2]float64{}
	d.mu.Unlock()
	var err error
	if stats != (Stats{}) && d.path != "" {
		_, err = d.withState(func(t *timeline) time.Duration { t.stats.add(stats); return 0 })
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.f == nil {
		return err
	}
	err = errors.Join(err, d.f.Close())
	if d.statsF != nil {
		err = errors.Join(err, d.statsF.Close())
	}
	d.f, d.statsF = nil, nil
	return err
}
