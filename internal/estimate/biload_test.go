package estimate

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/oedl/oedl/internal/openedge"
)

// A load into a target served tuned (a BI writer, page writers) waits for
// none of the BI blocks and checkpoint flushes the calibrated load (served
// bare) waited for: they come out of its measured traffic as the model
// counted them there (requests of a database block), whatever their size
// in oesim. Taken out as the requests oesim makes (a flush is one request
// of every modified block), most of each flush stayed in as waited 8 KiB
// writes.
func TestTunedLoadWaitsForNoneOfTheCalibratedWrites(t *testing.T) {
	tuned := openedge.LoadLogging{BlockBytes: 8192, BIW: true, APW: true, BIBlockBytes: 16 << 10, BIClusterBytes: 16 << 20, Buffers: 8192}
	tests := []struct {
		name            string
		records, bytes  float64
		calibratedShare float64 // of the calibrated load's waited writes its measured traffic holds as random
	}{
		{"seed003's tr_hist: 12.9 MB in 34,174 records, every waited write measured", 34174, 12.9e6, 1},
		{"a measured traffic with half of them random (the fit over the sample's tables)", 34174, 12.9e6, 0.5},
		{"a 500 KB table, one checkpoint", 2000, 0.5e6, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cc := newCostContext(Hardware{Cores: 2, Volume: VolumeIO1, DiskIOPS: 1000})
			cc.loadLog = tuned
			base := openedge.LoadLogWrites(cc.calibratedLog, tt.records, tt.bytes)
			waited := waitedBytes(base, cc.calibratedLog)
			written := base.Sequential + waited
			measured := ioShape{read: tt.bytes, write: written, writeRandom: tt.calibratedShare * waited / written, randomKB: 8}
			var f flowDemand
			f.add(measured, &cc.disk)
			cc.addLoadLogging(&f, tt.records, tt.bytes, measured)

			// What the tuned load does: the same reads, everything written
			// behind but the commit's BI block.
			run := openedge.LoadLogWrites(tuned, tt.records, tt.bytes)
			var want flowDemand
			want.add(ioShape{read: tt.bytes}, &cc.disk)
			want.add(ioShape{write: run.Sequential + waitedBytes(run, tuned)}, &cc.disk)
			// The commit's BI block is waited for, counted in blocks of
			// the measured size.
			commit := waitedBytes(run, tuned) / (8 << 10)
			assert.InDelta(t, want.bytes, f.bytes, 1, "the same bytes")
			assert.LessOrEqual(t, f.waits, want.waits+commit+1e-9, "no waited write of the calibrated load is left")
			assert.LessOrEqual(t, f.ops, want.ops+commit+1e-9)
		})
	}
}
