package estimate

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDumpStartupCPUIsTheSources: the fitted start-up CPU of a dump stays
// within 10 % of the source's, what a run's dumps of the served source
// pay, whatever the served scratch's calls cost on top (its control file
// is the target's schema, four times the source's on seed003, and its
// CPU varied 15.5-17.7 ms a call between two calibrations where the
// source's gave 9.5 and 9.6). Samples: calibrate's sample shape (one
// 10 MB table, one 4 MB, 29 tiny ones), CPU with a known truth and
// noise; the scratch's calls dearer by a drawn amount per calibration.
func TestDumpStartupCPUIsTheSources(t *testing.T) {
	const truth = 0.0095 // s a call
	for _, extra := range []float64{0.006, 0.008, 0.012, 0.02} {
		t.Run(fmt.Sprintf("scratch dearer by %.0f ms a call", extra*1e3), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(extra*1e6)))
			var served, source []sample
			for i := range 31 {
				rec, byt := 3.0+float64(i), 1000.0+100*float64(i)
				switch i {
				case 0:
					rec, byt = 51717, 11e6
				case 1:
					rec, byt = 41454, 3.9e6
				}
				cpu := rec*0.5e-6 + byt/1e6*0.003
				noise := func() float64 { return 0.0012 * rng.NormFloat64() }
				wall := 0.17 + byt/30e6
				served = append(served, sample{Job: "dump", Records: rec, Bytes: byt, Wall: wall, CPU: truth + extra + cpu + noise()})
				source = append(source, sample{Job: "dump (source)", Records: rec, Bytes: byt, Wall: wall * 1.01, CPU: truth + cpu + noise()})
			}
			var p PhaseCost
			_, err := fitPhase(&p, asRunDumps(served, source))
			require.NoError(t, err)
			assert.InDelta(t, truth, p.StartupCPUSec, 0.1*truth)
		})
	}
}

// TestAsRunDumpsKeepsTheSlowerWall: the run dumps a served database with
// the source's layout: the slower wall time of the two, with its traffic.
func TestAsRunDumpsKeepsTheSlowerWall(t *testing.T) {
	served := []sample{{Wall: 1, CPU: 0.02}, {Wall: 0.5, CPU: 0.02}}
	source := []sample{{Wall: 0.8, CPU: 0.01}, {Wall: 0.6, CPU: 0.01}}
	got := asRunDumps(served, source)
	assert.Equal(t, []float64{1, 0.6}, []float64{got[0].Wall, got[1].Wall})
	assert.Equal(t, []float64{0.01, 0.01}, []float64{got[0].CPU, got[1].CPU})
	assert.Equal(t, 0.02, served[0].CPU, "the served samples are kept as measured")
}

// TestLoadTableSecFromStartupBoundTables: a table's cost in a batch load,
// fitted from the tables whose single load was mostly its start-up, stays
// within 0.5 ms of the truth when the sample's large tables' data time
// differs by a few percent between their single load and the batch (as
// any two timings of a second's work do): over all the tables, that
// difference divided over the batch gave 0.4 to 3 ms a table in four
// calibrations of seed003 40MB, and 1.5 s of its 21 s estimate.
func TestLoadTableSecFromStartupBoundTables(t *testing.T) {
	const startup, perTable = 0.167, 0.002
	for _, drift := range []float64{-0.06, -0.03, 0.03, 0.06} {
		t.Run(fmt.Sprintf("large tables' data %+.0f%% in the batch", drift*100), func(t *testing.T) {
			m := DefaultModel()
			m.Hardware = Hardware{Cores: 2, DiskMBps: 31.457, DiskIOPS: 2000}
			m.Load = PhaseCost{StartupSec: startup, StartupCPUSec: 0.013}
			var tables []*sampleTable
			var loads []sample
			inBatch := map[string]float64{} // a table's data time in the batch call
			for i := range 30 {
				data := 0.002 + 0.0001*float64(i)
				if i < 2 { // the second-largest sample table and the next
					data = []float64{0.9, 0.12}[i]
				}
				name := fmt.Sprintf("PUB.t%d", i)
				tables = append(tables, &sampleTable{name: name, file: name + ".bd", records: 10, bytes: 1000})
				loads = append(loads, sample{Job: "load " + name, Wall: startup + data})
				inBatch[name] = data
				if data > 0.05 {
					inBatch[name] = data * (1 + drift)
				}
			}
			bound := startupBoundTables(tables, loads)
			// The batch of those tables, as calibrate times it.
			n := float64(len(bound))
			batch := sample{Wall: startup + (n-1)*(perTable+memberWaitSec(m.Hardware))}
			for _, tb := range bound {
				batch.Wall += inBatch[tb.name]
			}
			fitLoadTableSec(m, batch, loadsOf(bound, loads))
			assert.InDelta(t, perTable, m.LoadTableSec, 0.0005)
			assert.Len(t, bound, 28, "the two whose data took longer than their start-up are left out")
		})
	}
}
