package estimate

import (
	"testing"

	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/schedule"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// vargrowPlan is one table of 1,000 records of 1,000 bytes (RPB 8: 125
// blocks by RPB, 124 by bytes; 16 clusters of 8 = 128 blocks, 1 MiB) with
// 2 indexes of 80 KiB (the index summary's: 11 blocks, 2 clusters, one
// per index at least: 128 KiB), in Data and Index areas of 8 blocks a
// cluster with the given extents.
func vargrowPlan(data, index []plan.Extent, indexBytes int64) *plan.Plan {
	return &plan.Plan{BlockSize: 8192,
		Areas: []plan.Area{
			{Name: "Data", Kind: plan.AreaData, RPB: 8, BPC: 8, Extents: data},
			{Name: "Index", Kind: plan.AreaIndex, BPC: 8, Extents: index},
		},
		Tables: []plan.Placement{{Table: "PUB.t", Records: 1000, Bytes: 1_000_000, MeanRecord: 1000,
			Indexes: 2, IndexBytes: indexBytes, RPB: 8, BPC: 8, DataArea: "Data", IndexArea: "Index"}},
	}
}

// TestVariableGrowthIsFormatted: a load into a variable data area writes
// the clusters it adds once more, and idxbuild into a variable index area
// the index's, at the calibrated extent-format rate; fixed extents that
// hold the data cost nothing more (prostrct create formatted them), and
// fixed extents that hold part of it leave the rest to grow. Before, the
// estimate priced a load and a rebuild the same into either.
func TestVariableGrowthIsFormatted(t *testing.T) {
	variable := []plan.Extent{{Path: "."}}
	fixed := func(kb int64) []plan.Extent { return []plan.Extent{{Path: ".", Fixed: true, SizeKB: kb}, {Path: "."}} }
	const mib = 1 << 20
	tests := []struct {
		name          string
		data, index   []plan.Extent
		indexBytes    int64
		perByte       float64 // ExtentWritePerByte
		wantLoad      float64 // bytes the load formats
		wantIdxbuild  float64 // bytes idxbuild formats
		wantLoadIndex float64 // bytes a load that builds the indexes formats for them
		inRates       bool    // Model.GrowthInRates: a version 3 calibration
	}{
		{"fixed extents that hold it all", fixed(2048), fixed(1024), 80 << 10, 1, 0, 0, 0, false},
		{"variable extents: every cluster added", variable, variable, 80 << 10, 1, mib, 128 << 10, 128 << 10, false},
		{"the calibrated rate", variable, variable, 80 << 10, 0.5, mib / 2, 64 << 10, 64 << 10, false},
		{"a fixed extent holding half: the other half grows", fixed(512), fixed(1024), 80 << 10, 1, mib / 2, 0, 0, false},
		{"fixed extents only: nothing to grow", []plan.Extent{{Path: ".", Fixed: true, SizeKB: 512}}, variable, 80 << 10, 1, 0, 128 << 10, 128 << 10, false},
		// No index summary: 2,000 keys of the model's 24 bytes, 48,000
		// bytes in 6 blocks, still a cluster per index.
		{"no index summary: the model's key bytes", variable, variable, 0, 1, mib, 128 << 10, 128 << 10, false},
		{"a version 3 calibration's rates hold the growth", variable, variable, 80 << 10, 1, 0, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := DefaultModel()
			m.Hardware = Hardware{Cores: 2, DiskMBps: 100}
			m.ExtentWritePerByte = tt.perByte
			m.GrowthInRates = tt.inRates
			p := vargrowPlan(tt.data, tt.index, tt.indexBytes)
			// The same plan with nothing to grow: what the load and the
			// rebuild cost without formatting.
			base := vargrowPlan(fixed(2048), fixed(1024), tt.indexBytes)
			load := schedule.Job{Kind: schedule.KindLoad, Table: "PUB.t", Records: 1000, Bytes: 1_000_000}
			idx := schedule.Job{Kind: schedule.KindIdxbuild}
			bytes := func(p *plan.Plan, j schedule.Job, buildIndexes bool) float64 {
				in := Input{Plan: p, Hardware: m.Hardware, Model: m, Strategy: Strategy{BuildIndexes: buildIndexes}}
				w := m.work(&j, in.context())
				require.NotEmpty(t, w.flows)
				return w.flows[0].bytes
			}
			assert.InDelta(t, tt.wantLoad, bytes(p, load, false)-bytes(base, load, false), 1e-6, "load")
			assert.InDelta(t, tt.wantIdxbuild, bytes(p, idx, false)-bytes(base, idx, false), 1e-6, "idxbuild")
			assert.InDelta(t, tt.wantLoad+tt.wantLoadIndex, bytes(p, load, true)-bytes(base, load, true), 1e-6, "load building the indexes")
		})
	}
}

// TestLoadGrowthByJob: a batch formats what each of its tables adds; a
// .bd section its share of its table's.
func TestLoadGrowthByJob(t *testing.T) {
	p := vargrowPlan([]plan.Extent{{Path: "."}}, []plan.Extent{{Path: "."}}, 80<<10)
	// PUB.l: 10 records in one cluster, and 1 MiB of LOBs in a LOB area
	// of 64-block clusters: 130 blocks, 3 clusters (1.5 MiB).
	p.Areas = append(p.Areas, plan.Area{Name: "LOB", Kind: plan.AreaLOB, BPC: 64, Extents: []plan.Extent{{Path: "."}}})
	p.Tables = append(p.Tables, plan.Placement{Table: "PUB.u", Records: 10, Bytes: 1000, RPB: 8, BPC: 8, DataArea: "Data", IndexArea: "Index"},
		plan.Placement{Table: "PUB.empty", RPB: 8, BPC: 8, DataArea: "Data", IndexArea: "Index"},
		plan.Placement{Table: "PUB.l", Records: 10, Bytes: 1000, LOBBytes: 1 << 20, RPB: 8, BPC: 8, DataArea: "Data", IndexArea: "Index", LOBArea: "LOB"})
	in := Input{Plan: p, Hardware: Hardware{Cores: 2, DiskMBps: 100}}
	cc := in.context()
	tests := []struct {
		name string
		job  schedule.Job
		want float64
	}{
		{"a table", schedule.Job{Kind: schedule.KindLoad, Table: "PUB.t", Bytes: 1_000_000}, 1 << 20},
		{"a .bd section of a quarter", schedule.Job{Kind: schedule.KindLoad, Table: "PUB.t", Section: 2, Bytes: 250_000}, 1 << 18},
		{"a small table: one cluster", schedule.Job{Kind: schedule.KindLoad, Table: "pub.u", Bytes: 1000}, 64 << 10},
		{"an empty table adds nothing", schedule.Job{Kind: schedule.KindLoad, Table: "PUB.empty"}, 0},
		{"a table's LOBs grow its LOB area", schedule.Job{Kind: schedule.KindLoad, Table: "PUB.l", Bytes: 1000 + 1<<20}, 64<<10 + 3*64<<13},
		{"a .bd section of a table with LOBs: its share of both", schedule.Job{Kind: schedule.KindLoad, Table: "PUB.l", Section: 2, Bytes: (1000 + 1<<20) / 2}, float64(64<<10+3*64<<13) * float64((1000+1<<20)/2) / float64(1000+1<<20)},
		{"a batch: each member", schedule.Job{Kind: schedule.KindLoadBatch, Members: []schedule.Member{{Table: "PUB.t"}, {Table: "PUB.u"}, {Table: "PUB.empty"}}}, 1<<20 + 64<<10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.InDelta(t, tt.want, cc.loadGrowth(&tt.job).data, 1e-6)
		})
	}
}
