// Package volume is the documented behaviour of the kinds of block device a
// migration runs on: what each class delivers (IOPS and throughput
// ceilings, with and without burst credits) and what it counts as one
// operation. oedl's estimate and oesim's virtual disk both take the rules
// from here, so the simulator's disk and the model of it are one reading of
// the documentation (docs/estimate.md, "Disk physics", cites it):
//
//   - Amazon EBS: gp2 (3 IOPS per GiB from 100 to 16,000; below 3,000 a
//     bucket of 5.4 million I/O credits earned at the baseline bursts to
//     3,000; 128 MiB/s up to 170 GiB, 250 MiB/s above, 250 between 170 and
//     334 GiB only while credits last, and baseline × 256 KiB with the
//     bucket empty), gp3 (3,000 IOPS and 125 MiB/s unless provisioned
//     higher), io1 and io2 (the provisioned IOPS; 256 KiB per IOPS up to
//     500 MiB/s below 32,000 IOPS, 16 KiB per IOPS up to 1,000 MiB/s above),
//     st1 and sc1 (MiB/s per TiB of volume, a baseline and a burst on a
//     bucket of throughput credits holding one TiB per TiB). SSD classes
//     merge physically sequential requests into operations of up to 256
//     KiB and split larger ones; HDD classes count 1 MiB.
//   - Local devices (NVMe, SSD, a spinning disk): no class figures: the
//     description gives them; the device counts the requests the kernel
//     sends it, and a spinning disk serves one at a time.
package volume

import (
	"errors"
	"fmt"
	"math"
)

// Classes.
const (
	GP2       = "gp2"
	GP3       = "gp3"
	IO1       = "io1"
	IO2       = "io2"
	ST1       = "st1"
	SC1       = "sc1"
	LocalNVMe = "local-nvme"
	LocalSSD  = "local-ssd"
	HDD       = "hdd"
)

// Classes lists them, for messages and flag help.
var Classes = []string{GP2, GP3, IO1, IO2, ST1, SC1, LocalNVMe, LocalSSD, HDD}

// MiB is one MiB/s in MB/s: the EBS documentation gives MiB/s, the callers
// work in MB/s (10^6 bytes).
const MiB = 1.048576

// Kernel block-layer defaults: read-ahead is 128 KiB (VM_READAHEAD_PAGES,
// /sys/block/<dev>/queue/read_ahead_kb) and the largest request the block
// layer builds is max_sectors_kb, 512 KiB on the kernels of the seed's time
// (BLK_DEF_MAX_SECTORS, 1024 sectors). A generic device (no class) counts
// a merged sequential request as DefaultMaxIOKB, the EBS SSD rule.
const (
	DefaultReadAheadKB  = 128
	DefaultMaxSectorsKB = 512
	DefaultMaxIOKB      = 256
)

// Spec is a volume as a user describes it: its class, its size and the
// figures the class takes from the user (provisioned IOPS and throughput,
// a local device's datasheet). MBps is in MB/s; 0 = the class's.
type Spec struct {
	Class string
	GiB   float64
	IOPS  float64
	MBps  float64
}

// Figures are what a volume delivers.
type Figures struct {
	// Serial: one request at a time, each costing bytes/MBps + 1/IOPS (a
	// spinning disk); otherwise IOPS and MB/s are separate ceilings.
	Serial bool
	// IOPS and MBps while the burst bucket holds credits (the only figures
	// when the class does not burst); BaseIOPS and BaseMBps once it is
	// empty. MB/s are 10^6 bytes a second.
	IOPS, MBps         float64
	BaseIOPS, BaseMBps float64
	// Bucket is the burst bucket: I/O credits (operations, gp2) or bytes
	// (throughput credits, st1 and sc1); 0 = the class does not burst.
	Bucket      float64
	BucketBytes bool
	// MaxIOKB is what the volume counts a merged sequential request as,
	// and the largest request it counts as one operation; 0 = the volume
	// does not merge (a local device counts the kernel's requests).
	MaxIOKB float64
}

// Generic is a device known by its figures alone (oesim's generic virtual
// disk, a disk described without a class): serial or with separate
// ceilings, counting a merged sequential request as maxIOKB (0: the
// default).
func Generic(iops, mbps float64, serial bool, maxIOKB float64) Figures {
	if maxIOKB <= 0 {
		maxIOKB = DefaultMaxIOKB
	}
	return Figures{Serial: serial, IOPS: iops, MBps: mbps, BaseIOPS: iops, BaseMBps: mbps, MaxIOKB: maxIOKB}
}

// Kernel is the host's block-layer settings, in KiB (0: the defaults).
type Kernel struct {
	ReadAheadKB, MaxSectorsKB float64
}

// Requests is what one request counts as on the device.
type Requests struct {
	SeqReadKB, SeqWriteKB float64 // a sequential read, a sequential write, as the device counts it
	RandomMaxKB           float64 // the largest request counted as one operation
	ReadAheadKB           float64 // one read-ahead request of the kernel
	MaxSectorsKB          float64 // the kernel's largest request
}

// Requests is what the kernel's and the volume's merging make of a
// request: a volume that merges physically sequential requests up to its
// maximum I/O size counts sequential traffic in requests of that size,
// whatever the kernel sent (EBS); a local device counts what the kernel
// sent, read-ahead requests for reads and max_sectors_kb for written-back
// pages.
func (f Figures) Requests(k Kernel) Requests {
	ra, ms := k.ReadAheadKB, k.MaxSectorsKB
	if ra <= 0 {
		ra = DefaultReadAheadKB
	}
	if ms <= 0 {
		ms = DefaultMaxSectorsKB
	}
	r := Requests{ReadAheadKB: math.Min(ra, ms), MaxSectorsKB: ms}
	if f.MaxIOKB > 0 {
		r.SeqReadKB, r.SeqWriteKB, r.RandomMaxKB = f.MaxIOKB, f.MaxIOKB, f.MaxIOKB
	} else {
		r.SeqReadKB, r.SeqWriteKB, r.RandomMaxKB = r.ReadAheadKB, ms, ms
	}
	return r
}

// Bursts reports whether the volume has a bucket that can run dry.
func (f Figures) Bursts() bool { return f.Bucket > 0 }

// Ceilings are the IOPS and MB/s with credits or without.
func (f Figures) Ceilings(credit bool) (iops, mbps float64) {
	if credit || !f.Bursts() {
		return f.IOPS, f.MBps
	}
	return f.BaseIOPS, f.BaseMBps
}

// Resolve applies the class's rules to the description. An explicit MBps
// overrides the class's throughput (a provisioned gp3, a measured figure).
func Resolve(s Spec) (Figures, error) {
	var f Figures
	var err error
	switch s.Class {
	case GP2:
		f, err = gp2(s)
	case GP3:
		f = Figures{IOPS: 3000, MBps: 125 * MiB, MaxIOKB: 256}
		if s.IOPS > 0 {
			f.IOPS = s.IOPS
		}
	case IO1, IO2:
		if s.IOPS <= 0 {
			return f, fmt.Errorf("volume %s: give the provisioned IOPS", s.Class)
		}
		f = Figures{IOPS: s.IOPS, MaxIOKB: 256}
		if s.IOPS <= 32000 {
			f.MBps = math.Min(500, s.IOPS/4) * MiB
		} else {
			f.MBps = math.Min(1000, s.IOPS/64) * MiB
		}
	case ST1, SC1:
		f, err = throughputHDD(s)
	case LocalNVMe, LocalSSD, HDD:
		if s.IOPS <= 0 || s.MBps <= 0 {
			return f, fmt.Errorf("volume %s: give its IOPS and MB/s (the device's datasheet or a fio run); a local device has no documented class figures", s.Class)
		}
		f = Figures{IOPS: s.IOPS, MBps: s.MBps, Serial: s.Class == HDD}
	default:
		return f, fmt.Errorf("volume %q: want one of %v", s.Class, Classes)
	}
	if err != nil {
		return f, err
	}
	if f.BaseIOPS == 0 {
		f.BaseIOPS = f.IOPS
	}
	if f.BaseMBps == 0 {
		f.BaseMBps = f.MBps
	}
	if s.MBps > 0 {
		f.MBps, f.BaseMBps = s.MBps, s.MBps
	}
	return f, nil
}

func gp2(s Spec) (Figures, error) {
	size := s.GiB
	if size <= 0 && s.IOPS > 0 {
		size = s.IOPS / 3
	}
	if size <= 0 {
		return Figures{}, errors.New("volume gp2: give its size (or its baseline IOPS: 3 per GiB)")
	}
	base := math.Min(16000, math.Max(100, 3*size))
	if s.GiB > 0 && s.IOPS > 0 && math.Abs(s.IOPS-base) > 1 {
		return Figures{}, fmt.Errorf("volume gp2: %g IOPS is not the baseline of %g GiB (%g: 3 IOPS per GiB, 100 to 16000); give one of them", s.IOPS, size, base)
	}
	top := 250.0
	if size <= 170 {
		top = 128
	}
	f := Figures{IOPS: base, BaseIOPS: base, BaseMBps: math.Min(top, base/4) * MiB, MaxIOKB: 256}
	f.MBps = f.BaseMBps
	if base < 3000 {
		f.IOPS, f.MBps, f.Bucket = 3000, top*MiB, 5.4e6
	}
	return f, nil
}

func throughputHDD(s Spec) (Figures, error) {
	if s.GiB <= 0 {
		return Figures{}, fmt.Errorf("volume %s: give its size (throughput is per TiB of volume)", s.Class)
	}
	tib := s.GiB / 1024
	base, burst, baseCap, burstCap, iops := 40.0, 250.0, 500.0, 500.0, 500.0
	if s.Class == SC1 {
		base, burst, baseCap, burstCap, iops = 12, 80, 192, 250, 250
	}
	f := Figures{IOPS: iops, MaxIOKB: 1024}
	if s.IOPS > 0 {
		f.IOPS = s.IOPS
	}
	f.BaseMBps = math.Min(baseCap, base*tib) * MiB
	f.MBps = math.Min(burstCap, burst*tib) * MiB
	if f.MBps > f.BaseMBps {
		f.Bucket, f.BucketBytes = tib*(1<<40), true
	} else {
		f.MBps = f.BaseMBps
	}
	return f, nil
}
