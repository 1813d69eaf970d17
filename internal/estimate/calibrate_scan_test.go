package estimate

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/diskstats"
	"github.com/oedl/oedl/internal/schedule"
)

// Tabanalys reads blocks (a Type I area whole, a Type II area's table
// clusters), not table bytes: calibrate's two calls, of the source and
// of the scratch database it loaded, read the source's table bytes in as
// many blocks as the source holds them and the scratch's packed. The
// target is loaded as the scratch was: tabanalys is priced on the
// scratch's traffic, the source's times the factor between them (the
// slope over both was the source's: the target's tabanalys forecast 2.6
// times what it took on sports, docs/benchmarks/eta.md).
func TestTabanalysPricedOnALoadedDatabase(t *testing.T) {
	tests := []struct {
		name           string
		source, loaded float64 // device bytes read per table byte
	}{
		{"sports on oesim: a sparse source", 4.79, 1.30},
		{"erp on oesim: nearly packed", 1.30, 1.25},
		{"a source as packed as its copy", 1.1, 1.1},
	}
	call := func(bytes, perByte float64) sample {
		return sample{Bytes: bytes, IO: &diskstats.Counts{Reads: uint64(bytes * perByte / (128 * 1024)),
			SectorsRead: uint64(math.Round(bytes * perByte / 512))}}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := DefaultModel()
			c := &calibrator{}
			set := c.fitMeasuredTraffic(m, nil, nil, [3]sample{}, []sample{call(422e6, tt.source), call(80e6, tt.loaded)})
			require.True(t, set["tabanalys"])
			assert.InDelta(t, tt.loaded, m.Tabanalys.ReadPerByte, 0.001, "the target's: a loaded database's")
			assert.InDelta(t, tt.source/tt.loaded, m.SourceScanFactor, 0.001)
			cc := newCostContext(m.Hardware)
			read := func(k schedule.Kind) float64 {
				return m.work(&schedule.Job{Kind: k, Records: 1e6, Bytes: 100e6}, cc).flows[0].bytes
			}
			assert.InDelta(t, tt.source/tt.loaded, read(schedule.KindAnalyzeSource)/read(schedule.KindAnalyzeTarget), 0.001,
				"the source's tabanalys reads the source's blocks")
		})
	}
}
