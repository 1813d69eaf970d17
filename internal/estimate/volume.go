package estimate

import (
	"fmt"

	"github.com/oedl/oedl/internal/volume"
)

// Volume classes (Hardware.Volume): what kind of device the disk is. Each
// class has documented rules for what counts as one operation, which
// ceilings apply and whether it bursts (package volume; docs/estimate.md,
// "Disk physics", with the sources).
const (
	VolumeGP2       = volume.GP2       // EBS General Purpose SSD: 3 IOPS per GiB, bursts to 3000 on I/O credits
	VolumeGP3       = volume.GP3       // EBS General Purpose SSD: 3000 IOPS / 125 MiB/s unless provisioned higher
	VolumeIO1       = volume.IO1       // EBS Provisioned IOPS SSD
	VolumeIO2       = volume.IO2       // EBS Provisioned IOPS SSD (the io1 rules; not Block Express)
	VolumeST1       = volume.ST1       // EBS Throughput Optimized HDD: MiB/s per TiB, bursts on throughput credits
	VolumeSC1       = volume.SC1       // EBS Cold HDD: likewise, lower
	VolumeLocalNVMe = volume.LocalNVMe // instance-store or on-premises NVMe: give disk_iops and disk_mbps
	VolumeLocalSSD  = volume.LocalSSD  // SATA/SAS SSD: give disk_iops and disk_mbps
	VolumeHDD       = volume.HDD       // spinning disk: one request at a time; give disk_iops (random) and disk_mbps
)

// Volumes lists the classes, for messages and flag help.
var Volumes = volume.Classes

// defaultRandomKB is the size of a random request when neither the model
// nor the plan says: one 8 KiB database block.
const defaultRandomKB = 8

// mib is one MiB/s in MB/s.
const mib = volume.MiB

// disk is the hardware's disk as the simulation uses it: its ceilings,
// its burst bucket, and what one request counts as.
type disk struct {
	volume string
	serial bool // one request at a time: a request costs bytes/MBps + 1/IOPS (else independent ceilings)

	iops, mbps         float64 // ceilings while the burst bucket holds credits (the only ones without a bucket); 0 = none
	baseIOPS, baseMBps float64 // ceilings once the bucket is empty
	// bucket is the burst bucket: I/O credits (gp2: operations) or bytes
	// (st1, sc1: throughput credits); 0 = the class does not burst.
	bucket      float64
	bucketBytes bool
	startCredit float64 // credits at the start of the run

	// seqReadKB, seqWriteKB are what one sequential request counts as on
	// the device after the kernel and the volume merged it; randomMaxKB
	// is the largest request counted as one operation (a larger random
	// request counts several).
	seqReadKB, seqWriteKB, randomMaxKB float64
	// readAheadKB is the size of one read-ahead request: a sequential
	// reader waits for them two at a time (the synchronous and the
	// asynchronous part of the window, mm/readahead.c).
	readAheadKB float64
	latencyMs   float64
	queueMs     float64 // Hardware.DiskQueueMs
}

// bursts reports whether the disk has a bucket that can run dry.
func (d *disk) bursts() bool { return d.bucket > 0 }

// resolveDisk applies the volume class's rules to the hardware
// description (a generic device when it names none), and the kernel's to
// what one request counts as (package volume).
func resolveDisk(h Hardware) (disk, error) {
	f := volume.Generic(h.DiskIOPS, h.DiskMBps, h.DiskModel != DiskCeilings, float64(h.MaxIOKB))
	if h.Volume != "" {
		var err error
		if f, err = volume.Resolve(volume.Spec{Class: h.Volume, GiB: h.VolumeGiB, IOPS: h.DiskIOPS, MBps: h.DiskMBps}); err != nil {
			return disk{}, fmt.Errorf("%w (in the hardware: volume_gib is the size, disk_iops the IOPS, disk_mbps the MB/s)", err)
		}
	}
	r := f.Requests(volume.Kernel{ReadAheadKB: float64(h.ReadAheadKB), MaxSectorsKB: float64(h.MaxSectorsKB)})
	return disk{volume: h.Volume, serial: f.Serial, latencyMs: h.DiskLatencyMs, queueMs: h.DiskQueueMs,
		iops: f.IOPS, mbps: f.MBps, baseIOPS: f.BaseIOPS, baseMBps: f.BaseMBps,
		bucket: f.Bucket, bucketBytes: f.BucketBytes, startCredit: f.Bucket * (1 - h.BurstSpent),
		seqReadKB: r.SeqReadKB, seqWriteKB: r.SeqWriteKB, randomMaxKB: r.RandomMaxKB, readAheadKB: r.ReadAheadKB}, nil
}

// ceilings are the disk's IOPS and MB/s with credits or without.
func (d *disk) ceilings(credit bool) (iops, mbps float64) {
	if credit || !d.bursts() {
		return d.iops, d.mbps
	}
	return d.baseIOPS, d.baseMBps
}

// describe is a one-line description of the disk for reports, its rates
// in MiB/s as oedl shows every rate.
func (d *disk) describe() string {
	var s string
	switch {
	case d.volume == "" && d.iops <= 0:
		// A calibration measures a throughput and a latency, no request
		// ceiling: none in the simulation either, not "0 IOPS".
		s = fmt.Sprintf("disk %s, no IOPS ceiling", rate(d.mbps))
	case d.volume == "":
		s = fmt.Sprintf("disk %s / %.0f IOPS", rate(d.mbps), d.iops)
	case d.bursts() && d.bucketBytes:
		s = fmt.Sprintf("%s %s (burst %s) / %.0f IOPS", d.volume, rate(d.baseMBps), rate(d.mbps), d.iops)
	case d.bursts():
		s = fmt.Sprintf("%s %s / %.0f IOPS (burst %.0f)", d.volume, rate(d.mbps), d.baseIOPS, d.iops)
	default:
		s = fmt.Sprintf("%s %s / %.0f IOPS", d.volume, rate(d.mbps), d.iops)
	}
	if d.latencyMs > 0 {
		s += fmt.Sprintf(" / %.2g ms", d.latencyMs)
	}
	return s
}
