package volume

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The class rules give the figures of the EBS documentation
// (docs/estimate.md cites them): gp2 100 GiB is 300 IOPS bursting to 3000
// with 5.4 million credits, 128 MiB/s while they last and 75 MiB/s (300 ×
// 256 KiB) when they are gone; 334 GiB and larger deliver 250 MiB/s
// whatever the credits.
func TestResolveFollowsTheDocumentedRules(t *testing.T) {
	tests := []struct {
		name                                   string
		spec                                   Spec
		iops, mibs, baseIOPS, baseMiBs, bucket float64
		maxIO                                  float64
		serial                                 bool
	}{
		{"gp2 100 GiB", Spec{Class: GP2, GiB: 100}, 3000, 128, 300, 75, 5.4e6, 256, false},
		{"gp2 20 GiB: the 100 IOPS minimum", Spec{Class: GP2, GiB: 20}, 3000, 128, 100, 25, 5.4e6, 256, false},
		{"gp2 200 GiB bursts to 250 MiB/s", Spec{Class: GP2, GiB: 200}, 3000, 250, 600, 150, 5.4e6, 256, false},
		{"gp2 from its baseline IOPS", Spec{Class: GP2, IOPS: 1002}, 3000, 250, 1002, 250, 5.4e6, 256, false},
		{"gp2 1334 GiB: no bucket", Spec{Class: GP2, GiB: 1334}, 4002, 250, 4002, 250, 0, 256, false},
		{"gp2 16000 IOPS cap", Spec{Class: GP2, GiB: 8000}, 16000, 250, 16000, 250, 0, 256, false},
		{"gp3 baseline", Spec{Class: GP3}, 3000, 125, 3000, 125, 0, 256, false},
		{"gp3 provisioned", Spec{Class: GP3, IOPS: 16000, MBps: 1000 * MiB}, 16000, 1000, 16000, 1000, 0, 256, false},
		{"io1 300: 256 KiB per IOPS", Spec{Class: IO1, IOPS: 300}, 300, 75, 300, 75, 0, 256, false},
		{"io1 16000: 500 MiB/s", Spec{Class: IO1, IOPS: 16000}, 16000, 500, 16000, 500, 0, 256, false},
		{"io2 48000: 16 KiB per IOPS", Spec{Class: IO2, IOPS: 48000}, 48000, 750, 48000, 750, 0, 256, false},
		{"st1 1 TiB", Spec{Class: ST1, GiB: 1024}, 500, 250, 500, 40, 1 << 40, 1024, false},
		{"st1 16 TiB: base and burst capped at 500", Spec{Class: ST1, GiB: 16384}, 500, 500, 500, 500, 0, 1024, false},
		{"sc1 1 TiB", Spec{Class: SC1, GiB: 1024}, 250, 80, 250, 12, 1 << 40, 1024, false},
		{"local NVMe: as described", Spec{Class: LocalNVMe, IOPS: 200000, MBps: 2000 * MiB}, 200000, 2000, 200000, 2000, 0, 0, false},
		{"hdd: one request at a time", Spec{Class: HDD, IOPS: 150, MBps: 150 * MiB}, 150, 150, 150, 150, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Resolve(tt.spec)
			require.NoError(t, err)
			assert.InDelta(t, tt.iops, f.IOPS, 1, "IOPS")
			assert.InDelta(t, tt.mibs*MiB, f.MBps, 1e-6, "MB/s")
			assert.InDelta(t, tt.baseIOPS, f.BaseIOPS, 1, "baseline IOPS")
			assert.InDelta(t, tt.baseMiBs*MiB, f.BaseMBps, 1e-6, "baseline MB/s")
			assert.InDelta(t, tt.bucket, f.Bucket, 1, "bucket")
			assert.Equal(t, tt.maxIO, f.MaxIOKB, "what a merged request counts as")
			assert.Equal(t, tt.serial, f.Serial)
			assert.Equal(t, tt.bucket > 0, f.Bursts())
		})
	}
}

func TestResolveNamesWhatIsMissing(t *testing.T) {
	for _, tt := range []struct {
		spec Spec
		err  string
	}{
		{Spec{Class: GP2}, "size"},
		{Spec{Class: GP2, GiB: 100, IOPS: 3000}, "3 IOPS per GiB"},
		{Spec{Class: IO2}, "provisioned IOPS"},
		{Spec{Class: SC1}, "per TiB"},
		{Spec{Class: HDD, IOPS: 100}, "MB/s"},
		{Spec{Class: "nvme"}, `volume "nvme"`},
	} {
		_, err := Resolve(tt.spec)
		assert.ErrorContains(t, err, tt.err, "%+v", tt.spec)
	}
}

func TestCeilingsWithAndWithoutCredit(t *testing.T) {
	f, err := Resolve(Spec{Class: GP2, GiB: 100})
	require.NoError(t, err)
	iops, mbps := f.Ceilings(true)
	assert.Equal(t, []float64{3000, 128 * MiB}, []float64{iops, mbps})
	iops, mbps = f.Ceilings(false)
	assert.Equal(t, []float64{300, 75 * MiB}, []float64{iops, mbps})
}

// What a request counts as: a merging volume counts sequential requests at
// its maximum I/O size, a local device the kernel's (read-ahead for reads,
// max_sectors_kb for written-back pages), a generic one its own size.
func TestRequests(t *testing.T) {
	gp3, err := Resolve(Spec{Class: GP3})
	require.NoError(t, err)
	nvme, err := Resolve(Spec{Class: LocalNVMe, IOPS: 1e5, MBps: 1e3})
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		f    Figures
		k    Kernel
		want Requests
	}{
		{"gp3", gp3, Kernel{}, Requests{SeqReadKB: 256, SeqWriteKB: 256, RandomMaxKB: 256, ReadAheadKB: 128, MaxSectorsKB: 512}},
		{"local NVMe", nvme, Kernel{}, Requests{SeqReadKB: 128, SeqWriteKB: 512, RandomMaxKB: 512, ReadAheadKB: 128, MaxSectorsKB: 512}},
		{"read-ahead no larger than a request", nvme, Kernel{ReadAheadKB: 4096, MaxSectorsKB: 1024}, Requests{SeqReadKB: 1024, SeqWriteKB: 1024, RandomMaxKB: 1024, ReadAheadKB: 1024, MaxSectorsKB: 1024}},
		{"generic", Generic(4000, 80, true, 0), Kernel{}, Requests{SeqReadKB: 256, SeqWriteKB: 256, RandomMaxKB: 256, ReadAheadKB: 128, MaxSectorsKB: 512}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.f.Requests(tc.k))
		})
	}
}
