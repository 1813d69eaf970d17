package vdisk

import (
	"fmt"
	"os"
	"path/filepath"
)

// DiskstatsFile is where the device's counters are, in the state
// directory, in the form of a /proc/diskstats line (the kernel's
// Documentation/admin-guide/iostats.rst) for the device DiskstatsName:
// what a tool reading a real device's counters reads, so that oedl
// calibrate measures oesim's requests as it measures a real disk's.
const (
	DiskstatsFile = "diskstats"
	DiskstatsName = "vdisk"
)

// Stats are the kernel-level counters of the device: requests completed
// (after the kernel merged them: sequential reads in read-ahead requests,
// written-back pages in requests of up to max_sectors_kb) and 512-byte
// sectors moved, and the time the device was busy (the kernel's io_ticks,
// "ms doing I/O": wall time with a request in flight), which is how a
// tool tells a saturated device from an idle one (oedl run --tune).
type Stats struct {
	Reads, SectorsRead, Writes, SectorsWritten uint64
	BusyNanos                                  uint64
}

func (s *Stats) add(o Stats) {
	s.Reads += o.Reads
	s.SectorsRead += o.SectorsRead
	s.Writes += o.Writes
	s.SectorsWritten += o.SectorsWritten
	s.BusyNanos += o.BusyNanos
}

// diskstatsLine is the counters as /proc/diskstats has them: major, minor,
// name, then reads completed, merged, sectors read, ms reading, writes
// completed, merged, sectors written, ms writing, in progress, ms doing
// I/O, weighted ms (of the times only ms doing I/O is kept, merges are
// not: 0). The numbers are
// padded to a fixed width so that each update is one write of the same
// length over the last: a reader never sees half a line.
func diskstatsLine(s Stats) []byte {
	return fmt.Appendf(nil, "%4d %7d %s %20d 0 %20d 0 %20d 0 %20d 0 0 %20d 0\n", 253, 0, DiskstatsName, s.Reads, s.SectorsRead, s.Writes, s.SectorsWritten, s.BusyNanos/1e6)
}

// writeDiskstats writes the counters over the file's line (opened on first
// use and kept).
func (d *Disk) writeDiskstats(s Stats) error {
	if d.statsF == nil {
		f, err := os.OpenFile(filepath.Join(filepath.Dir(d.path), DiskstatsFile), os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			return err
		}
		d.statsF = f
	}
	_, err := d.statsF.WriteAt(diskstatsLine(s), 0)
	return err
}

// ensureDiskstats creates the counters file, at zero, when it is not there
// yet: a reader may look before the first request. A failure is left to
// the first booking, which reports it.
func ensureDiskstats(dir string) {
	path := filepath.Join(dir, DiskstatsFile)
	if _, err := os.Stat(path); err == nil {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return
	}
	_, _ = f.Write(diskstatsLine(Stats{}))
	_ = f.Close()
}
