// Package diskstats reads a block device's request counters in the form
// of /proc/diskstats (the kernel's Documentation/admin-guide/iostats.rst):
// one line per device, major and minor numbers, the name, then requests
// completed, merged, 512-byte sectors and milliseconds for reads, then
// the same for writes, and more fields that newer kernels add (only the
// first eleven are read). oedl calibrate takes the difference of two
// readings around a utility call: the requests and bytes the device saw
// for it, which is what the estimate's traffic model is fitted to.
package diskstats

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Device is one line: the device and its counters.
type Device struct {
	Major, Minor uint32
	Name         string
	Counts
	// BusyMs is the time the device had a request in flight ("ms doing
	// I/O", io_ticks, the tenth counter; 0 on a line without it): over
	// the wall time between two readings, how busy the device was.
	BusyMs uint64
}

// Counts are the counters of requests completed (after merging) and
// 512-byte sectors moved.
type Counts struct {
	Reads, SectorsRead, Writes, SectorsWritten uint64
}

// Sub is the difference c − before; a counter that went down (the device
// was reset, or its counters wrapped) gives 0 for that field.
func (c Counts) Sub(before Counts) Counts {
	d := func(a, b uint64) uint64 {
		if a < b {
			return 0
		}
		return a - b
	}
	return Counts{d(c.Reads, before.Reads), d(c.SectorsRead, before.SectorsRead), d(c.Writes, before.Writes), d(c.SectorsWritten, before.SectorsWritten)}
}

// Parse reads every device line; name is used in errors.
func Parse(r io.Reader, name string) ([]Device, error) {
	var out []Device
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) < 11 {
			return nil, fmt.Errorf("%s:%d: %d fields, want at least 11 (major minor name and 8 counters)", name, line, len(f))
		}
		var d Device
		nums := make([]uint64, 0, 10)
		for i, s := range append(f[:2:2], f[3:11]...) {
			v, err := strconv.ParseUint(s, 10, 64)
			if err != nil || (i < 2 && v > 1<<32-1) {
				return nil, fmt.Errorf("%s:%d: %q is not a counter", name, line, s)
			}
			nums = append(nums, v)
		}
		d.Major, d.Minor, d.Name = uint32(nums[0]), uint32(nums[1]), f[2]
		// reads completed, merged, sectors, ms; writes completed, merged, sectors, ms
		d.Counts = Counts{Reads: nums[2], SectorsRead: nums[4], Writes: nums[6], SectorsWritten: nums[8]}
		if len(f) > 12 {
			v, err := strconv.ParseUint(f[12], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %q is not a counter", name, line, f[12])
			}
			d.BusyMs = v
		}
		out = append(out, d)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// Source is where the counters of one device are read from.
type Source struct {
	Path   string // a file in /proc/diskstats form
	Device string // the device's name in it
}

// Read returns the device's counters now.
func (s Source) Read() (Counts, error) {
	d, err := s.Line()
	return d.Counts, err
}

// Line returns the device's line now.
func (s Source) Line() (Device, error) {
	f, err := os.Open(s.Path)
	if err != nil {
		return Device{}, err
	}
	defer f.Close()
	devs, err := Parse(f, s.Path)
	if err != nil {
		return Device{}, err
	}
	for _, d := range devs {
		if d.Name == s.Device {
			return d, nil
		}
	}
	return Device{}, fmt.Errorf("%s: no device %q", s.Path, s.Device)
}

// DeviceOf names the device of /proc/diskstats-form file path whose major
// and minor numbers are those of the filesystem holding dir: the device a
// work directory is on.
func DeviceOf(path, dir string) (string, error) {
	major, minor, err := devOf(dir)
	if err != nil {
		return "", err
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	devs, err := Parse(f, path)
	if err != nil {
		return "", err
	}
	for _, d := range devs {
		if d.Major == major && d.Minor == minor {
			return d.Name, nil
		}
	}
	return "", fmt.Errorf("%s: no device %d:%d (the one %s is on)", path, major, minor, dir)
}
