package estimate

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The disk adds the kernel to the class (package volume tests the class
// figures): a volume that merges counts sequential requests at its maximum
// I/O size, a local device counts the kernel's requests, a generic one its
// max_io_kb.
func TestResolveDiskCountsRequestsAsTheDeviceDoes(t *testing.T) {
	tests := []struct {
		name                string
		hw                  Hardware
		seqRead, seqWrite   float64
		serial, bursts      bool
		startCredit, bucket float64
	}{
		{"gp2 merges to 256 KiB", Hardware{Volume: VolumeGP2, VolumeGiB: 100}, 256, 256, false, true, 5.4e6, 5.4e6},
		{"half the bucket spent", Hardware{Volume: VolumeGP2, VolumeGiB: 100, BurstSpent: 0.5}, 256, 256, false, true, 2.7e6, 5.4e6},
		{"st1 merges to 1 MiB", Hardware{Volume: VolumeST1, VolumeGiB: 1024}, 1024, 1024, false, true, 1 << 40, 1 << 40},
		{"local NVMe: read-ahead and max_sectors_kb", Hardware{Volume: VolumeLocalNVMe, DiskIOPS: 2e5, DiskMBps: 2000}, 128, 512, false, false, 0, 0},
		{"local NVMe tuned", Hardware{Volume: VolumeLocalNVMe, DiskIOPS: 2e5, DiskMBps: 2000, ReadAheadKB: 1024, MaxSectorsKB: 256}, 256, 256, false, false, 0, 0},
		{"hdd: one request at a time", Hardware{Volume: VolumeHDD, DiskIOPS: 150, DiskMBps: 150}, 128, 512, true, false, 0, 0},
		{"generic: max_io_kb", Hardware{DiskIOPS: 4000, DiskMBps: 80, MaxIOKB: 128}, 128, 128, true, false, 0, 0},
		{"generic ceilings", Hardware{DiskIOPS: 4000, DiskMBps: 80, DiskModel: DiskCeilings}, 256, 256, false, false, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.hw.Cores = 1
			require.NoError(t, tt.hw.Validate())
			d := tt.hw.disk()
			assert.Equal(t, tt.seqRead, d.seqReadKB, "a sequential read counts as")
			assert.Equal(t, tt.seqWrite, d.seqWriteKB, "a sequential write counts as")
			assert.Equal(t, tt.serial, d.serial)
			assert.Equal(t, tt.bursts, d.bursts())
			assert.InDelta(t, tt.startCredit, d.startCredit, 1)
			assert.InDelta(t, tt.bucket, d.bucket, 1)
		})
	}
}

// What a request counts as (the EBS examples): 8 sequential 32 KiB
// operations are one 256 KiB operation on an SSD volume, 8 random ones are
// 8; a 1024 KiB random request is 4; a stream waits for every random
// request and for its sequential reads in read-ahead windows, two at a time.
func TestRequestsByAccessPattern(t *testing.T) {
	gp3 := Hardware{Cores: 1, Volume: VolumeGP3}.disk()
	const kib = 1024
	tests := []struct {
		name       string
		s          ioShape
		ops, waits float64
	}{
		{"8 sequential 32 KiB reads", ioShape{read: 8 * 32 * kib}, 1, 1},
		{"8 random 32 KiB reads", ioShape{read: 8 * 32 * kib, readRandom: 1, randomKB: 32}, 8, 8},
		{"a random 1 MiB read counts 4", ioShape{read: 1024 * kib, readRandom: 1, randomKB: 1024}, 4, 1},
		{"sequential writes are written behind", ioShape{write: 1024 * kib}, 4, 0},
		{"random writes are waited for", ioShape{write: 80 * kib, writeRandom: 1, randomKB: 8}, 10, 10},
		{"a mix", ioShape{read: 512 * kib, readRandom: 0.5, randomKB: 8}, 32 + 1, 32 + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ops, waits := gp3.requests(tt.s)
			assert.InDelta(t, tt.ops, ops, 1e-9, "ops")
			assert.InDelta(t, tt.waits, waits, 1e-9, "waits")
		})
	}
	// A local device counts what the kernel sent: 128 KiB read-ahead
	// requests for reads, max_sectors_kb for written-back pages.
	nvme := Hardware{Cores: 1, Volume: VolumeLocalNVMe, DiskIOPS: 1e5, DiskMBps: 1e3, MaxSectorsKB: 1024}.disk()
	ops, _ := nvme.requests(ioShape{read: 1024 * kib, write: 1024 * kib})
	assert.InDelta(t, 8+1, ops, 1e-9)
}

// A gp2 volume bursts at 3000 IOPS until its bucket is empty, then runs at
// its baseline: 100 GiB (300 IOPS) with 5.4 M credits drains at 2700 a
// second, 2000 s of burst (the documented burst duration), then the rest
// at 300.
func TestSimDrainsTheBurstBucket(t *testing.T) {
	hw := Hardware{Cores: 1, Volume: VolumeGP2, VolumeGiB: 100}
	ops := 3000.0*2000 + 300*1000 // 2000 s at burst, then 1000 s at baseline
	got := runSim(hw, jobWork{flows: []flowDemand{{ops: ops, par: 1, qd: 1}}})
	assert.Equal(t, []time.Duration{3000 * time.Second}, got)
	// Half spent at the start: 1000 s of burst.
	hw.BurstSpent = 0.5
	got = runSim(hw, jobWork{flows: []flowDemand{{ops: 3000 * 1000, par: 1, qd: 1}}})
	assert.Equal(t, []time.Duration{1000 * time.Second}, got)
	// Idle time earns credits back at the baseline: a start-up of 1000 s
	// before the same work refills 300 000 of them.
	got = runSim(hw, jobWork{startup: 1000, flows: []flowDemand{{ops: 3000*1000 + 3000*300000/2700, par: 1, qd: 1}}})
	assert.Equal(t, []time.Duration{2111111 * time.Millisecond}, got)
}
