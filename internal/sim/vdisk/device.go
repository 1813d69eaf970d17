package vdisk

import (
	"math"
	"time"

	"github.com/oedl/oedl/internal/volume"
)

// device is the disk's physics: ceilings, burst bucket, request sizes.
type device struct {
	serial             bool
	bytesPerSec        float64 // burst (or only) throughput; 0 = free
	opsPerSec          float64 // burst (or only) IOPS; 0 = free
	baseBytes, baseOps float64 // once the bucket is empty
	bucket             float64 // burst bucket: operations, or bytes when bucketBytes; 0 = none
	bucketBytes        bool
	startCredit        float64
	seqReadKB          float64 // what a sequential read counts as on the device
	seqWriteKB         float64
	randomMaxKB        float64 // the largest request counted as one operation
	readAheadKB        float64 // the kernel's read-ahead request
	maxSectorsKB       float64 // the kernel's largest request
	latency            time.Duration
}

// newDevice resolves the configuration: a volume class by its documented
// rules (package volume), else the generic device OESIM_DISK_MBPS and
// OESIM_DISK_IOPS describe, serving one request at a time; and what one
// request counts as, by the emulated host kernel's settings.
func newDevice(c Config) (device, error) {
	f := volume.Generic(c.IOPS, c.MBps*volume.MiB, true, float64(c.MaxIOKB))
	if c.Volume != "" {
		var err error
		if f, err = volume.Resolve(volume.Spec{Class: c.Volume, GiB: c.VolumeGiB, IOPS: c.IOPS, MBps: c.MBps * volume.MiB}); err != nil {
			return device{}, err
		}
	}
	r := f.Requests(volume.Kernel{ReadAheadKB: float64(c.ReadAheadKB), MaxSectorsKB: float64(c.MaxSectorsKB)})
	return device{serial: f.Serial,
		bytesPerSec: f.MBps * 1e6, opsPerSec: f.IOPS, baseBytes: f.BaseMBps * 1e6, baseOps: f.BaseIOPS,
		bucket: f.Bucket, bucketBytes: f.BucketBytes, startCredit: f.Bucket * (1 - c.BurstSpent),
		seqReadKB: r.SeqReadKB, seqWriteKB: r.SeqWriteKB, randomMaxKB: r.RandomMaxKB,
		readAheadKB: r.ReadAheadKB, maxSectorsKB: r.MaxSectorsKB,
		latency: time.Duration(c.LatencyMs * float64(time.Millisecond))}, nil
}

// on reports whether I/O costs anything.
func (d *device) on() bool { return d.bytesPerSec > 0 || d.opsPerSec > 0 }

// request is one charge as the device and the kernel see it.
type request struct {
	bytes, ops float64 // what the device counts
	waits      float64 // requests the caller waits for, one after the other (latency)
	stats      Stats   // the kernel's requests, as /proc/diskstats counts them
	// seqReads and seqWrites are kernel requests of a sequential stream,
	// in fractions: the kernel merges a stream's consecutive calls into
	// its requests, so the process adds them up across calls.
	seqReads, seqWrites float64
}

// sequential is bytes read or written in sequence: the device counts them
// merged into requests of its size; the kernel sends read-ahead requests
// for reads (the reader waits for them two at a time) and up to
// max_sectors_kb for written-back pages (nobody waits for those).
func (d *device) sequential(bytes int64, write bool) request {
	b := float64(bytes)
	r := request{bytes: b}
	sectors := uint64(bytes+511) / 512
	if write {
		r.ops = b / (d.seqWriteKB * 1024)
		r.seqWrites = b / (d.maxSectorsKB * 1024)
		r.stats = Stats{SectorsWritten: sectors}
	} else {
		r.ops = b / (d.seqReadKB * 1024)
		r.waits = b / (d.readAheadKB * 1024) / 2
		r.seqReads = b / (d.readAheadKB * 1024)
		r.stats = Stats{SectorsRead: sectors}
	}
	return r
}

// random is n requests of size bytes each at scattered places: each one
// operation (several when larger than the device counts as one), each
// waited for.
func (d *device) random(n, size int64, write bool) request {
	per := math.Max(1, math.Ceil(float64(size)/(d.randomMaxKB*1024)))
	kernel := uint64(n) * ceilDiv(size, int64(d.maxSectorsKB*1024))
	r := request{bytes: float64(n * size), ops: float64(n) * per, waits: float64(n)}
	sectors := uint64(n) * uint64((size+511)/512)
	if write {
		r.stats = Stats{Writes: kernel, SectorsWritten: sectors}
	} else {
		r.stats = Stats{Reads: kernel, SectorsRead: sectors}
	}
	return r
}

func ceilDiv(a, b int64) uint64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	return uint64((a + b - 1) / b)
}

// rates are the ceilings with burst credits or without.
func (d *device) rates(credit bool) (bytesPerSec, opsPerSec float64) {
	if credit || d.bucket == 0 {
		return d.bytesPerSec, d.opsPerSec
	}
	return d.baseBytes, d.baseOps
}

// serviceNanos is a request's device time on a serial device, in
// fractional nanoseconds (many tiny charges add up instead of each
// rounding to nothing).
func (d *device) serviceNanos(bytes, ops float64) float64 {
	var s float64
	if d.bytesPerSec > 0 {
		s += bytes / d.bytesPerSec
	}
	if d.opsPerSec > 0 {
		s += ops / d.opsPerSec
	}
	return s * float64(time.Second)
}
