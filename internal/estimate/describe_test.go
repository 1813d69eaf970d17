package estimate

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestHardwareWithoutAnIOPSCeiling: a calibration that measured the
// disk's throughput and latency but no request ceiling (disk_iops 0, no
// ceiling in the simulation) is not "0 IOPS", which read as a disk that
// does nothing in the estimate a manager was shown (nu-trial10).
func TestHardwareWithoutAnIOPSCeiling(t *testing.T) {
	h := Hardware{Cores: 2, DiskMBps: 1500, DiskLatencyMs: 0}
	assert.Equal(t, "2 cores, disk 1.4 GiB/s, no IOPS ceiling", h.String())
	h.DiskIOPS = 4000
	assert.Equal(t, "2 cores, disk 1.4 GiB/s / 4000 IOPS", h.String())

	// The what-if table's IOPS column too.
	row := WhatIfRow{Hardware: Hardware{Cores: 2, DiskMBps: 1500}}
	row.Disk = row.Hardware.Figures()
	assert.Equal(t, "no ceiling", row.whatIfCells().IOPS)
}
