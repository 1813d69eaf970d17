package estimate

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/units"
)

// seed003Plan is a plan shaped like the database of seed 003: 14 GB in 873
// tables with 3140 indexes, four tables over 1 GB (the seed lists their
// records and sizes), and a long tail of small tables (the load screen
// shows hundreds of tables of about a kilobyte). The tail follows a Zipf
// law, 1/(i+20)^2.5, scaled to the remaining bytes: the largest is about
// 480 MB and about 640 tables are under 1 MB. Target areas follow the seed's new
// structure: small tables in shared areas by RPB class, the large ones in
// their own area.
func seed003Plan() *plan.Plan {
	p := &plan.Plan{Version: plan.PlanVersion, BlockSize: 8192,
		Idxbuild: plan.Idxbuild{TB: 64, TM: 32, TMB: 64, SG: 64, TF: 80, B: 512, Threadnum: 4, Mergethreads: 4, Datascanthreads: 8}}
	big := []struct {
		name    string
		records int64
		bytes   int64
		indexes int
	}{
		{"xxext_xref", 18_535_331, 3_700_000_000, 4},
		{"gltmp_det", 14_856_965, 1_300_000_000, 5},
		{"gltr_hist", 5_145_602, 1_000_000_000, 8},
		{"glec_det", 9_766_305, 1_000_000_000, 5},
	}
	var used int64
	for _, b := range big {
		p.Tables = append(p.Tables, plan.Placement{Table: "PUB." + b.name, Owner: "PUB", Name: b.name,
			Records: b.records, Bytes: b.bytes, MeanRecord: b.bytes / b.records, Indexes: b.indexes,
			DataArea: b.name, IndexArea: b.name + "_idx", Class: plan.ClassLarge})
		used += b.bytes
	}
	const tables, total, indexes = 873, 14_000_000_000, 3140
	rest := int64(total) - used
	n := tables - len(big)
	var norm float64
	for i := 1; i <= n; i++ {
		norm += 1 / math.Pow(float64(i+20), 2.5)
	}
	bigIndexes := 0
	for _, b := range big {
		bigIndexes += b.indexes
	}
	for i := 1; i <= n; i++ {
		bytes := int64(float64(rest) / math.Pow(float64(i+20), 2.5) / norm)
		mean := int64(60 + (i*37)%300)
		idx := (indexes - bigIndexes) / n
		if i <= (indexes-bigIndexes)%n {
			idx++
		}
		rpb := []int{8, 16, 32, 64, 128, 256}[(i*7)%6]
		p.Tables = append(p.Tables, plan.Placement{Table: fmt.Sprintf("PUB.t%03d_det", i), Owner: "PUB", Name: fmt.Sprintf("t%03d_det", i),
			Records: max(1, bytes/mean), Bytes: max(1000, bytes), MeanRecord: mean, Indexes: idx,
			DataArea: fmt.Sprintf("misc%d_dat", rpb), IndexArea: fmt.Sprintf("misc%d_idx", rpb), Class: plan.ClassSmall})
	}
	return p
}

func readSeedHardware(t testing.TB) Hardware {
	hw, err := ReadHardware("testdata/hardware/seed003.json")
	require.NoError(t, err)
	return hw
}

// seedStrategy is the seed's kit (its configuration screen: large table
// 2,000,000,000 bytes, 4 dump threads), with oedl's default job counts for
// its 8 cores, kept on every machine as a script does, and no per-area cap
// on loads (Type II areas).
func seedStrategy(hw Hardware, staged bool) Strategy {
	// The seed's dumps did not wait for its target (restored from an
	// empty copy before the outage, docs/decisions.md
	// "The target prepared before the window"): its figures are of
	// dumps beside it.
	return Strategy{Staged: staged, DumpJobs: 16, LoadJobs: 8, LoadsPerArea: -1, ThreadedDumpMin: 2e9, DumpThreads: 4, DumpsBesideCreate: true}
}

// TestSeed003Fit is a model-fit assertion: with the seed's hardware profile
// and the default model, the simulated dump, load and index rebuild of a
// plan shaped like the seed's database come within 15% of the times the
// seed measured on 8 cores / 4000 IOPS (dump 3m06s, load 4m40s, idxbuild
// 4m02s; staged 7m46s). It asserts simulated time, not wall-clock time.
func TestSeed003Fit(t *testing.T) {
	hw := readSeedHardware(t)
	p := seed003Plan()
	staged, err := Run(context.Background(), Input{Plan: p, Hardware: hw, Strategy: seedStrategy(hw, true)})
	require.NoError(t, err)
	over, err := Run(context.Background(), Input{Plan: p, Hardware: hw, Strategy: seedStrategy(hw, false)})
	require.NoError(t, err)

	dump, load := phase(t, staged, "dump").Duration.D(), phase(t, staged, "load").Duration.D()
	idx := phase(t, staged, "idxbuild").Duration.D()
	overDL := max(phase(t, over, "dump").End, phase(t, over, "load").End) - phase(t, over, "dump").Start
	stagedDL := max(phase(t, staged, "dump").End, phase(t, staged, "load").End) - phase(t, staged, "dump").Start
	t.Logf("dump %s load %s idxbuild %s staged D+L %s overlapped D+L %s (ε %.2f) window %s",
		dump, load, idx, stagedDL.D(), overDL.D(), over.Overlap.Efficiency, over.Window.D())
	within := func(name string, got, want time.Duration) {
		assert.InEpsilon(t, want.Seconds(), got.Seconds(), 0.15, "%s: simulated %s, seed %s", name, got, want)
	}
	within("dump", dump, 186*time.Second)
	within("load", load, 280*time.Second)
	within("idxbuild", idx, 242*time.Second)
	within("staged dump+load", stagedDL.D(), 466*time.Second)
	// Overlapped, the model is a third slow (about 6m55s for the seed's
	// 5m11s): both phases are bound by the volume's IOPS at 4000, so running
	// them at once gains little on one shared volume; the seed's gain
	// suggests its source was on a volume of its own (docs/estimate.md).
	assert.Less(t, overDL, stagedDL, "overlapping saves time")
	assert.InEpsilon(t, 311, overDL.D().Seconds(), 0.35, "overlapped dump+load")
}

// seedVolumes are the disks TestSeed003Predictions puts under the seed's
// box: the IOPS of the seed's table (its 100-IOPS volume as the smallest
// gp2 a 14 GB migration fits on, 300 IOPS) and the volume classes that give
// them. A gp2's IOPS come from its size and it bursts to 3000 below 1000
// GiB; an io1 delivers what is provisioned, no more; a gp3 at 16000 IOPS can
// be given 1000 MiB/s.
var seedVolumes = []struct {
	name string
	set  func(*Hardware)
}{
	{"gp2 100 GiB (300 IOPS, burst 3000)", func(h *Hardware) { h.Volume, h.VolumeGiB = VolumeGP2, 100 }},
	{"gp2 100 GiB, bucket empty", func(h *Hardware) { h.Volume, h.VolumeGiB, h.BurstSpent = VolumeGP2, 100, 1 }},
	{"io1 300 IOPS", func(h *Hardware) { h.Volume, h.DiskIOPS = VolumeIO1, 300 }},
	{"gp2 334 GiB (1000 IOPS, burst 3000)", func(h *Hardware) { h.Volume, h.VolumeGiB = VolumeGP2, 334 }},
	{"io1 1000 IOPS", func(h *Hardware) { h.Volume, h.DiskIOPS = VolumeIO1, 1000 }},
	{"gp2 1334 GiB (4000 IOPS): the fit", func(h *Hardware) { h.Volume, h.VolumeGiB = VolumeGP2, 1334 }},
	{"gp2 5334 GiB (16000 IOPS)", func(h *Hardware) { h.Volume, h.VolumeGiB = VolumeGP2, 5334 }},
	{"io1 16000 IOPS", func(h *Hardware) { h.Volume, h.DiskIOPS = VolumeIO1, 16000 }},
	{"gp3 16000 IOPS, 1000 MiB/s", func(h *Hardware) { h.Volume, h.DiskIOPS, h.DiskMBps = VolumeGP3, 16000, 1000*mib }},
}

// TestSeed003Predictions records what the fitted profile predicts for the
// seed's box on other disks and cores (the seed withheld those rows except
// the 2- and 4-core ones at 4000 IOPS; the table is in docs/estimate.md)
// and checks the shape: on one class of volume more IOPS never slows the
// run; the dump, disk-bound at 4000 IOPS, is faster at 16000; a volume that
// bursts runs a migration of this size at its burst, not its baseline; and
// at 4000 IOPS cores barely matter (the seed: dump 3m08s / 3m08s / 3m06s
// on 2 / 4 / 8 cores).
func TestSeed003Predictions(t *testing.T) {
	if testing.Short() {
		t.Skip("54 estimates of an 873-table plan")
	}
	base := readSeedHardware(t)
	p := seed003Plan()
	type row struct{ dump, load, overlapped, idxbuild, window time.Duration }
	rows := map[string]map[int]row{}
	for _, v := range seedVolumes {
		rows[v.name] = map[int]row{}
		for _, cores := range []int{2, 4, 8} {
			hw := base
			hw.Volume, hw.VolumeGiB, hw.DiskIOPS, hw.DiskMBps = "", 0, 0, 0
			v.set(&hw)
			hw.Cores = cores
			require.NoError(t, hw.Validate(), v.name)
			st, err := Run(context.Background(), Input{Plan: p, Hardware: hw, Strategy: seedStrategy(hw, true)})
			require.NoError(t, err)
			ov, err := Run(context.Background(), Input{Plan: p, Hardware: hw, Strategy: seedStrategy(hw, false)})
			require.NoError(t, err)
			r := row{phase(t, st, "dump").Duration.D(), phase(t, st, "load").Duration.D(), ov.dumpLoadSpan().D(),
				phase(t, st, "idxbuild").Duration.D(), ov.Window.D()}
			rows[v.name][cores] = r
			t.Logf("| %s | %d | %s | %s | %s | %s | %s |", v.name, cores, units.FormatDuration(r.dump), units.FormatDuration(r.load),
				units.FormatDuration(r.overlapped), units.FormatDuration(r.idxbuild), units.FormatDuration(r.window))
		}
	}
	fit := rows["gp2 1334 GiB (4000 IOPS): the fit"]
	// The seed's 2-core row at 4000 IOPS: the model makes the dump of
	// xxext_xref with 2 threads (one per core) hold a 2.3 GB bracket, waited
	// for request by request; the seed measured 3m08s.
	assert.InEpsilon(t, 188, fit[2].dump.Seconds(), 0.35, "seed: 2 cores dump 3m08s")
	assert.InEpsilon(t, 286, fit[2].load.Seconds(), 0.15, "seed: 2 cores load 4m46s")
	for _, cores := range []int{2, 4, 8} {
		for _, chain := range [][]string{
			{"gp2 5334 GiB (16000 IOPS)", "gp2 1334 GiB (4000 IOPS): the fit", "gp2 334 GiB (1000 IOPS, burst 3000)", "gp2 100 GiB (300 IOPS, burst 3000)", "gp2 100 GiB, bucket empty"},
			{"io1 16000 IOPS", "io1 1000 IOPS", "io1 300 IOPS"},
		} {
			for i := 1; i < len(chain); i++ {
				assert.LessOrEqual(t, rows[chain[i-1]][cores].window, rows[chain[i]][cores].window, "%d cores: %s against %s", cores, chain[i-1], chain[i])
			}
		}
		assert.Less(t, rows["gp2 100 GiB (300 IOPS, burst 3000)"][cores].window*2, rows["io1 300 IOPS"][cores].window,
			"%d cores: the gp2 runs on its burst credits", cores)
	}
	assert.Less(t, rows["gp2 5334 GiB (16000 IOPS)"][8].dump.Seconds(), 0.9*fit[8].dump.Seconds(), "a disk-bound dump is faster on a faster disk")
}
