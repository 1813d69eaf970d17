package vdisk

import (
	"encoding/binary"
	"math"
	"time"
)

// timeline is the device's shared state: when its pipes are next free,
// what is left in its burst bucket, and the kernel's request counters. It
// lives in the state file (little-endian, 8 bytes a field, in this order)
// so that every oesim process books the same device.
//
//   - A serial device (the generic one, a spinning disk) has one pipe,
//     busy for bytes/MBps + ops/IOPS per request: end[0].
//   - A device with separate ceilings has a bytes pipe (end[0]) and an
//     operations pipe (end[1]); a request holds each for its own share and
//     is done when both are.
//   - The burst bucket drains on the pipe it belongs to (operations for
//     gp2's I/O credits, bytes for st1 and sc1's throughput credits) by
//     what it serves beyond the baseline, and fills at the baseline while
//     the pipe is idle; creditAt is when credit was last brought up to date.
type timeline struct {
	end      [2]int64 // Unix nanoseconds
	credit   float64
	creditAt int64
	stats    Stats
	fresh    bool // never booked: the bucket starts as configured
}

// timelineSize is the state file's length; an older 8-byte file (the end
// of the serial pipe alone) is read as a fresh timeline with that end, and
// an older 64-byte one (no busy time) as one whose device was never busy.
const timelineSize = 9 * 8

func (t *timeline) encode() []byte {
	b := make([]byte, timelineSize)
	binary.LittleEndian.PutUint64(b[0:], uint64(t.end[0]))
	binary.LittleEndian.PutUint64(b[8:], uint64(t.end[1]))
	binary.LittleEndian.PutUint64(b[16:], math.Float64bits(t.credit))
	binary.LittleEndian.PutUint64(b[24:], uint64(t.creditAt))
	binary.LittleEndian.PutUint64(b[32:], t.stats.Reads)
	binary.LittleEndian.PutUint64(b[40:], t.stats.SectorsRead)
	binary.LittleEndian.PutUint64(b[48:], t.stats.Writes)
	binary.LittleEndian.PutUint64(b[56:], t.stats.SectorsWritten)
	binary.LittleEndian.PutUint64(b[64:], t.stats.BusyNanos)
	return b
}

func decodeTimeline(b []byte) timeline {
	var t timeline
	switch {
	case len(b) >= 8*8:
		t.end[0] = int64(binary.LittleEndian.Uint64(b[0:]))
		t.end[1] = int64(binary.LittleEndian.Uint64(b[8:]))
		t.credit = math.Float64frombits(binary.LittleEndian.Uint64(b[16:]))
		t.creditAt = int64(binary.LittleEndian.Uint64(b[24:]))
		t.stats = Stats{binary.LittleEndian.Uint64(b[32:]), binary.LittleEndian.Uint64(b[40:]),
			binary.LittleEndian.Uint64(b[48:]), binary.LittleEndian.Uint64(b[56:]), 0}
		if len(b) >= timelineSize {
			t.stats.BusyNanos = binary.LittleEndian.Uint64(b[64:])
		}
		if math.IsNaN(t.credit) || t.credit < 0 {
			t.credit = 0
		}
	case len(b) >= 8:
		t.end[0] = int64(binary.LittleEndian.Uint64(b[0:]))
		t.end[1] = t.end[0]
		t.fresh = true
	default:
		t.fresh = true
	}
	return t
}

// bookNanos reserves a serial device for nanos of service starting no
// earlier than now and returns when the reservation ends.
func (t *timeline) bookNanos(now time.Time, nanos float64) time.Time {
	t.fresh = false
	t.end[0] = max(now.UnixNano(), t.end[0]) + int64(math.Ceil(nanos))
	return time.Unix(0, t.end[0])
}

// book reserves a device with separate ceilings for bytes and ops starting
// no earlier than now and returns when the reservation ends.
func (t *timeline) book(d *device, now time.Time, bytes, ops float64) time.Time {
	n := now.UnixNano()
	if t.fresh {
		t.credit, t.creditAt, t.fresh = d.startCredit, n, false
	}
	// Which pipe carries the bucket, and is there credit when this
	// request starts on it?
	bp := 1
	amount := ops
	if d.bucketBytes {
		bp, amount = 0, bytes
	}
	start := max(n, t.end[bp])
	if d.bucket > 0 {
		_, baseOps := d.rates(false)
		base := baseOps
		if d.bucketBytes {
			base, _ = d.rates(false)
		}
		t.credit = math.Min(d.bucket, t.credit+base*float64(max(0, start-t.creditAt))/1e9)
	}
	credit := t.credit > 0
	bytesRate, opsRate := d.rates(credit)
	ends := [2]int64{t.end[0], t.end[1]}
	for p, need := range [2]float64{bytes, ops} {
		rate := [2]float64{bytesRate, opsRate}[p]
		if need <= 0 || rate <= 0 {
			continue
		}
		s := max(n, t.end[p])
		var dur float64
		if p == bp && d.bucket > 0 {
			dur = t.drain(d, amount)
		} else {
			dur = need / rate
		}
		ends[p] = s + int64(math.Ceil(dur*1e9))
	}
	t.end = ends
	if d.bucket > 0 {
		t.creditAt = max(t.end[bp], start)
	}
	return time.Unix(0, max(t.end[0], t.end[1]))
}

// drain serves amount on the bucket's pipe: at the burst rate while credit
// lasts (it drains by what the burst serves beyond the baseline), then at
// the baseline; it returns the seconds it takes.
func (t *timeline) drain(d *device, amount float64) float64 {
	burstBytes, burstOps := d.rates(true)
	baseBytes, baseOps := d.rates(false)
	burst, base := burstOps, baseOps
	if d.bucketBytes {
		burst, base = burstBytes, baseBytes
	}
	if t.credit <= 0 || burst <= base {
		return amount / base
	}
	atBurst := t.credit * burst / (burst - base) // what the credit carries at the burst rate
	if amount <= atBurst {
		t.credit -= amount * (burst - base) / burst
		return amount / burst
	}
	t.credit = 0
	return atBurst/burst + (amount-atBurst)/base
}
