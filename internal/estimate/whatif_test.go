package estimate

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/plan"
)

func TestGridExpandsEveryCombination(t *testing.T) {
	base := Hardware{Cores: 2, DiskMBps: 100, DiskIOPS: 1000, MemoryBytes: 1 << 30}
	g := Grid{Cores: []int{4, 8}, DiskIOPS: []float64{4000, 16000}, LoadJobs: []int{2, 4}}
	pts := g.Points(base)
	require.Len(t, pts, g.Size())
	assert.Equal(t, 8, g.Size())
	assert.Equal(t, Point{Hardware{Cores: 4, DiskMBps: 100, DiskIOPS: 4000, MemoryBytes: 1 << 30}, Jobs{LoadJobs: 2}}, pts[0])
	assert.Equal(t, Point{Hardware{Cores: 8, DiskMBps: 100, DiskIOPS: 16000, MemoryBytes: 1 << 30}, Jobs{LoadJobs: 4}}, pts[7])
	assert.Equal(t, []Point{{Hardware: base}}, Grid{}.Points(base))
}

func runStrategy(h Hardware, j Jobs) Strategy {
	return RunStrategy(h, nil, nil, j.DumpJobs, j.LoadJobs, j.LoadsPerArea, 0, 0)
}

func TestWhatIfFasterDiskNeverSlower(t *testing.T) {
	in := Input{Plan: testPlan(400e6, 100e6, 20e6, 5e6), Hardware: Hardware{Cores: 4, DiskMBps: 100, DiskLatencyMs: 1}}
	rows, err := WhatIf(context.Background(), in, Grid{DiskMBps: []float64{50, 100, 400}}, runStrategy)
	require.NoError(t, err)
	require.Len(t, rows, 3)
	assert.Greater(t, rows[0].Window, rows[1].Window)
	assert.GreaterOrEqual(t, rows[1].Window, rows[2].Window)
}

// Job counts are what-if axes too: on a plan of many small tables, whose
// span is start-ups waiting for load slots, more load jobs shorten it, and
// the table says which counts each row used.
func TestWhatIfLoadJobs(t *testing.T) {
	tiny := make([]int64, 300)
	for i := range tiny {
		tiny[i] = 10e3
	}
	p := testPlan(tiny...)
	for i := range p.Tables {
		p.Tables[i].DataArea = "shared" // one area: loads per area binds too
	}
	in := Input{Plan: p, Hardware: Hardware{Cores: 4, DiskMBps: 200, DiskIOPS: 8000}}
	// Each table loaded alone: batches would take most start-ups out of
	// the load slots (TestWhatIfBatchesTakeTheStartUps).
	alone := func(h Hardware, j Jobs) Strategy {
		s := runStrategy(h, j)
		s.BatchLoads = false
		return s
	}
	rows, err := WhatIf(context.Background(), in, Grid{LoadJobs: []int{1, 4}, LoadsPerArea: []int{1, -1}}, alone)
	require.NoError(t, err)
	require.Len(t, rows, 4)
	// {1 job, 1/area}, {1, any}, {4, 1/area}, {4, any}
	assert.Equal(t, 1, rows[0].Strategy.LoadJobs)
	assert.Equal(t, -1, rows[3].Strategy.LoadsPerArea, "negative: no cap")
	assert.Greater(t, rows[0].Window, rows[3].Window, "4 load jobs with no area cap beat 1")
	assert.InDelta(t, float64(rows[0].Window), float64(rows[2].Window), float64(rows[0].Window)*0.05,
		"4 load jobs change nothing while the area allows one load")
	var b strings.Builder
	require.NoError(t, WriteWhatIf(&b, rows))
	assert.Contains(t, b.String(), "load jobs")
	assert.Contains(t, b.String(), "any")
}

// The same plan of tiny tables in one area, with one load per area: loaded
// in batches (the default) it is several times shorter than each table
// alone, whose start-ups queue one after another.
func TestWhatIfBatchesTakeTheStartUps(t *testing.T) {
	tiny := make([]int64, 300)
	for i := range tiny {
		tiny[i] = 10e3
	}
	p := testPlan(tiny...)
	for i := range p.Tables {
		p.Tables[i].DataArea = "shared"
	}
	hw := Hardware{Cores: 4, DiskMBps: 200, DiskIOPS: 8000}
	window := func(batch bool) Seconds {
		s := runStrategy(hw, Jobs{LoadsPerArea: 1})
		s.BatchLoads = batch
		est, err := Run(context.Background(), Input{Plan: p, Hardware: hw, Strategy: s})
		require.NoError(t, err)
		return est.Window
	}
	assert.True(t, DefaultStrategy(hw).BatchLoads, "the default")
	assert.Less(t, 2*window(true), window(false))
}

func TestCompareNamesTheFastestAndWhy(t *testing.T) {
	// Streams are latency-bound on a device with room to spare: overlapping
	// dumps and loads is the clear win over staging them.
	hw := Hardware{Cores: 8, DiskIOPS: 20000, DiskLatencyMs: 2}
	base := Strategy{Staged: true, DumpJobs: 2, LoadJobs: 2}
	c, err := Compare(context.Background(), Input{Plan: testPlan(200e6, 200e6, 200e6, 200e6), Hardware: hw}, Strategies(base))
	require.NoError(t, err)
	require.Len(t, c.Candidates, 9)
	for i := 1; i < len(c.Candidates); i++ {
		assert.LessOrEqual(t, c.Candidates[i-1].Window, c.Candidates[i].Window, "fastest first")
	}
	assert.NotEqual(t, "as planned", c.Candidates[0].Strategy.Name)
	assert.Contains(t, c.Why, "saves")
	assert.Contains(t, c.Why, "over as planned")
}

// The estimate weighs how the loads write (biload.go): on a disk of few
// IOPS, a crash-safe load waits for every BI block unless the target is
// served tuned (a BIW), and -i writes a fifth of the notes, buffered.
func TestEstimateWeighsLoadWrites(t *testing.T) {
	hw := Hardware{Cores: 2, DiskMBps: 30, DiskIOPS: 2000}
	p := testPlan(50e6, 50e6, 50e6, 50e6)
	p.BI = plan.BI{BlockSizeKB: 16, ClusterSizeKB: 16384}
	p.Startup = []plan.Param{{Name: "-B", Value: "8192"}}
	p.Processes = []plan.Param{{Name: "proapw", Value: "2"}, {Name: "probiw", Value: "1"}}
	load := func(s Strategy) time.Duration {
		est, err := Run(context.Background(), Input{Plan: p, Hardware: hw, Strategy: s})
		require.NoError(t, err)
		return est.phase("load").Duration.D()
	}
	served := Strategy{DumpJobs: 2, LoadJobs: 2}
	tuned, bare, noInt := load(served), load(Strategy{DumpJobs: 2, LoadJobs: 2, UntunedTarget: true}), load(Strategy{DumpJobs: 2, LoadJobs: 2, NoIntegrity: true})
	assert.Less(t, tuned, bare, "a BIW and page writers, 16K BI blocks and 16M clusters")
	assert.Less(t, noInt, tuned, "-i: a fifth of the notes, nothing synced")

	// -i winning a comparison says what it gives up.
	base := Candidate{Strategy: Strategy{Name: "as planned"}, Window: 100 * sec, DumpLoad: 80 * sec, Idxbuild: 20 * sec}
	best := Candidate{Strategy: Strategy{Name: "loads without crash protection (-i)", NoIntegrity: true}, Window: 50 * sec, DumpLoad: 30 * sec, Idxbuild: 20 * sec}
	assert.Contains(t, why(best, base, hw), "gives up crash protection")
}

// A gain under closeCall of the window is reported as within the
// estimate's accuracy, not as a verdict.
func TestWhyCallsCloseCallsClose(t *testing.T) {
	base := Candidate{Strategy: Strategy{Name: "as planned"}, Window: 100 * sec, DumpLoad: 80 * sec, Idxbuild: 20 * sec}
	for _, tc := range []struct {
		best  Candidate
		close bool
	}{
		{Candidate{Strategy: Strategy{Name: "build indexes on load"}, Window: 95 * sec, DumpLoad: 90 * sec, Idxbuild: 5 * sec}, true},
		{Candidate{Strategy: Strategy{Name: "8 dump / 4 load jobs"}, Window: 80 * sec, DumpLoad: 60 * sec, Idxbuild: 20 * sec}, false},
	} {
		got := why(tc.best, base, Hardware{Cores: 2})
		assert.Contains(t, got, tc.best.Strategy.Name+" saves")
		assert.Equal(t, tc.close, strings.Contains(got, "rehearse both"), got)
	}
}

// The volume is a what-if axis: a gp2's IOPS set its size (and burst), a
// class switched to takes the base disk's figures where it needs them, and
// the table shows a bursting ceiling as baseline↑burst.
func TestWhatIfVolumes(t *testing.T) {
	base := Hardware{Cores: 4, Volume: VolumeGP2, VolumeGiB: 1334}
	pts := Grid{DiskIOPS: []float64{300, 16000}}.Points(base)
	require.Len(t, pts, 2)
	for i, want := range []float64{3000, 16000} {
		require.NoError(t, pts[i].Hardware.Validate())
		iops, _, _, _ := pts[i].Hardware.Ceilings()
		assert.Equal(t, want, iops)
	}
	io1 := Grid{Volumes: []string{VolumeIO1}}.Points(base)[0].Hardware
	require.NoError(t, io1.Validate())
	assert.InDelta(t, 4002, io1.DiskIOPS, 1, "io1 provisioned as the gp2 delivered")

	in := Input{Plan: testPlan(400e6, 100e6, 20e6, 5e6), Hardware: base}
	rows, err := WhatIf(context.Background(), in, Grid{Volumes: []string{VolumeGP2, VolumeIO1}, DiskIOPS: []float64{300}}, runStrategy)
	require.NoError(t, err)
	require.Len(t, rows, 2)
	assert.Less(t, rows[0].Window, rows[1].Window, "the gp2 bursts, the io1 does not")
	var b strings.Builder
	require.NoError(t, WriteWhatIf(&b, rows))
	assert.Contains(t, b.String(), "300↑3000")
	assert.Contains(t, b.String(), "io1")
}
