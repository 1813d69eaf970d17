package vdisk

import (
	"encoding/binary"
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
	EnvMBps      = "OESIM_DISK_MBPS"
	EnvIOPS      = "OESIM_DISK_IOPS"
	EnvStartupMS = "OESIM_STARTUP_MS"
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
	MBps     float64       // bandwidth in MiB/s; 0 = unlimited
	IOPS     float64       // operations per second; 0 = unlimited
	Startup  time.Duration // fixed cost of starting a utility
	StateDir string        // shared state directory; "" = private device
	Clock    Clock         // nil = the real clock
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
	path string

	mu     sync.Mutex
	f      *os.File  // the state file, opened on first charge
	local  time.Time // end of the last reservation of a private device
	credit float64   // nanoseconds of device time booked ahead and not used yet (< quantum)
}

// New returns a handle on the device described by c.
func New(c Config) *Disk {
	if c.Clock == nil {
		c.Clock = realClock{}
	}
	switch {
	case c.Quantum == 0:
		c.Quantum = DefaultQuantum
	case c.Quantum < 0:
		c.Quantum = 0
	}
	d := &Disk{cfg: c}
	if c.StateDir != "" {
		d.path = filepath.Join(c.StateDir, StateFile)
	}
	return d
}

// FromEnv builds the device from OESIM_DISK_MBPS, OESIM_DISK_IOPS and
// OESIM_STARTUP_MS (all optional, 0 or unset = no cost), shared through the
// oesim state directory. A malformed value is an error naming the variable.
func FromEnv() (*Disk, error) {
	var c Config
	var err error
	if c.MBps, err = envRate(EnvMBps); err != nil {
		return nil, err
	}
	if c.IOPS, err = envRate(EnvIOPS); err != nil {
		return nil, err
	}
	ms, err := envRate(EnvStartupMS)
	if err != nil {
		return nil, err
	}
	c.Startup = time.Duration(ms * float64(time.Millisecond))
	c.StateDir = fault.StateDir()
	return New(c), nil
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

// MBps is the bandwidth in MiB/s (0 = unlimited), for oedl estimate to
// describe the same disk.
func (d *Disk) MBps() float64 {
	if d == nil {
		return 0
	}
	return d.cfg.MBps
}

// IOPS is the operation rate (0 = unlimited).
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
func (d *Disk) On() bool { return d != nil && (d.cfg.MBps > 0 || d.cfg.IOPS > 0) }

// ServiceTime is the device time a request of bytes and ios operations
// needs.
func (d *Disk) ServiceTime(bytes, ios int64) time.Duration {
	return time.Duration(d.serviceNanos(bytes, ios))
}

// serviceNanos is the service time in fractional nanoseconds, so that
// many tiny charges add up instead of each rounding to nothing.
func (d *Disk) serviceNanos(bytes, ios int64) float64 {
	if !d.On() {
		return 0
	}
	var s float64
	if d.cfg.MBps > 0 {
		s += float64(bytes) / (d.cfg.MBps * (1 << 20))
	}
	if d.cfg.IOPS > 0 {
		s += float64(ios) / d.cfg.IOPS
	}
	return s * float64(time.Second)
}

// Startup waits the utility start-up cost (OESIM_STARTUP_MS), as a real
// utility spends connecting to a database before it does any work.
func (d *Disk) Startup() {
	if d != nil && d.cfg.Startup > 0 {
		d.cfg.Clock.Sleep(d.cfg.Startup)
	}
}

// Charge performs the simulated I/O of bytes and ios operations: it
// reserves the device for their service time after every reservation made
// before it, by any process, and sleeps until the reservation ends. Time
// left over from the last booking's rounding to the quantum is used first.
// It is free and touches no file when the device is off.
func (d *Disk) Charge(bytes, ios int64) error {
	if !d.On() || (bytes <= 0 && ios <= 0) {
		return nil
	}
	d.mu.Lock()
	need := d.serviceNanos(bytes, ios)
	if need <= d.credit {
		d.credit -= need
		d.mu.Unlock()
		return nil
	}
	need -= d.credit
	booked := time.Duration(math.Ceil(max(need, float64(d.cfg.Quantum))))
	d.credit = float64(booked) - need
	d.mu.Unlock()

	wait, err := d.reserve(booked)
	if err != nil {
		// Nothing was booked: the surplus is no credit, and the next
		// charge must try (and fail) to book as well.
		d.mu.Lock()
		d.credit = 0
		d.mu.Unlock()
		return err
	}
	if wait > 0 {
		d.cfg.Clock.Sleep(wait)
	}
	return nil
}

// reserve books service time on the device and returns how long the caller
// must wait for its reservation to end.
func (d *Disk) reserve(service time.Duration) (time.Duration, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.path == "" {
		now := d.cfg.Clock.Now()
		end := later(now, d.local).Add(service)
		d.local = end
		return end.Sub(now), nil
	}
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
	var buf [8]byte
	var last time.Time
	switch n, err := d.f.ReadAt(buf[:], 0); {
	case n == 8:
		last = time.Unix(0, int64(binary.LittleEndian.Uint64(buf[:])))
	case err != nil && !errors.Is(err, io.EOF):
		return 0, fmt.Errorf("virtual disk: read %s: %w", d.path, err)
	}
	now := d.cfg.Clock.Now()
	end := later(now, last).Add(service)
	binary.LittleEndian.PutUint64(buf[:], uint64(end.UnixNano()))
	if _, err := d.f.WriteAt(buf[:], 0); err != nil {
		return 0, fmt.Errorf("virtual disk: write %s: %w", d.path, err)
	}
	return end.Sub(now), nil
}

func flock(fd, how int) error {
	for {
		err := syscall.Flock(fd, how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// Close releases the state file.
func (d *Disk) Close() error {
	if d == nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.f == nil {
		return nil
	}
	err := d.f.Close()
	d.f = nil
	return err
}
