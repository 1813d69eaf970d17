package estimate

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/schedule"
)

// diskOnlyModel makes every job cost nothing but its table bytes read once
// from the disk: the windows of small plans can be worked out by hand.
func diskOnlyModel() *Model {
	m := DefaultModel()
	m.Dump = PhaseCost{ReadPerByte: 1}
	m.Load = PhaseCost{ReadPerByte: 1}
	m.Idxbuild = IdxbuildCost{}
	m.Tabanalys = PhaseCost{}
	for k := range m.FixedSec {
		m.FixedSec[k] = 0
	}
	m.DFPerTableSec = 0
	m.BracketSkew = 0
	return m
}

func testPlan(sizes ...int64) *plan.Plan {
	p := &plan.Plan{Version: plan.PlanVersion}
	for i, s := range sizes {
		name := fmt.Sprintf("PUB.t%d", i)
		p.Tables = append(p.Tables, plan.Placement{Table: name, Owner: "PUB", Name: fmt.Sprintf("t%d", i),
			Records: s / 100, Bytes: s, Indexes: 2, DataArea: fmt.Sprintf("a%d", i)})
	}
	return p
}

func TestRunHandComputed(t *testing.T) {
	hw := Hardware{Cores: 4, DiskMBps: 100}
	tests := []struct {
		name   string
		sizes  []int64
		strat  Strategy
		window time.Duration
		dump   time.Duration // dump phase length
	}{
		{
			// Everything is disk-bound on one disk: 2×(100+300) MB at 100 MB/s,
			// whether the loads wait or not.
			name: "staged", sizes: []int64{100e6, 300e6},
			strat:  Strategy{Staged: true, DumpJobs: 2, LoadJobs: 2},
			window: 8 * time.Second, dump: 4 * time.Second,
		},
		{
			name: "overlapped on a saturated disk gains nothing", sizes: []int64{100e6, 300e6},
			strat:  Strategy{DumpJobs: 2, LoadJobs: 2},
			window: 8 * time.Second, dump: 5 * time.Second, // t1 dump shares with t0 load from 2 s to 4 s
		},
		{
			// One dump slot: t1 (larger, longest path) first: 3 s, then t0 1 s
			// while t1 loads, both sharing the disk.
			name: "one dump slot", sizes: []int64{100e6, 300e6},
			strat:  Strategy{DumpJobs: 1, LoadJobs: 1},
			window: 8 * time.Second, dump: 5 * time.Second,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			est, err := Run(context.Background(), Input{Plan: testPlan(tt.sizes...), Hardware: hw, Model: diskOnlyModel(), Strategy: tt.strat})
			require.NoError(t, err)
			assert.Equal(t, tt.window, est.Window.D())
			assert.Equal(t, tt.dump, phase(t, est, "dump").Duration.D())
		})
	}
}

// A table's LOBs are in its binary dump (PROUTIL DUMP writes them into the
// .bd): its dump writes them and its load reads them, as it does its
// records. Priced as its records alone, a table of 100 MB of records and
// 200 MB of LOBs took a third of its time.
func TestLOBsAreDumpedAndLoaded(t *testing.T) {
	hw := Hardware{Cores: 4, DiskMBps: 100}
	for _, tt := range []struct {
		name   string
		lobs   int64
		window time.Duration
	}{
		{"records only", 0, 2 * time.Second},
		{"records and LOBs", 200e6, 6 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := testPlan(100e6)
			p.Tables[0].LOBBytes = tt.lobs
			est, err := Run(context.Background(), Input{Plan: p, Hardware: hw, Model: diskOnlyModel(), Strategy: Strategy{Staged: true, DumpJobs: 1, LoadJobs: 1}})
			require.NoError(t, err)
			assert.Equal(t, tt.window, est.Window.D())
		})
	}
}

func TestOverlapHelpsWhenStreamsAreLatencyBound(t *testing.T) {
	// Each stream can do 1000/2 = 500 IOPS; the device does 1000. Dumps
	// alone use half the device, so loads running beside them are free.
	hw := Hardware{Cores: 8, DiskIOPS: 1000, DiskLatencyMs: 2}
	m := diskOnlyModel()
	for _, p := range []*PhaseCost{&m.Dump, &m.Load} {
		p.ReadRandom, p.RandomIOKB = 1, 1000/1024.0 // 1 random read per 1000 bytes
	}
	p := testPlan(1e6, 1e6, 1e6, 1e6)
	staged, err := Run(context.Background(), Input{Plan: p, Hardware: hw, Model: m, Strategy: Strategy{Staged: true, DumpJobs: 1, LoadJobs: 1}})
	require.NoError(t, err)
	over, err := Run(context.Background(), Input{Plan: p, Hardware: hw, Model: m, Strategy: Strategy{DumpJobs: 1, LoadJobs: 1}})
	require.NoError(t, err)
	// Staged: 4 dumps of 1000 requests at 500 IOPS, then 4 loads: 16 s.
	assert.Equal(t, 16*time.Second, staged.Window.D())
	// Overlapped: the first load starts after the first dump, then each
	// pair runs side by side: 2 s + 4 × 2 s = 10 s.
	assert.Equal(t, 10*time.Second, over.Window.D())
	assert.InDelta(t, 0.75, over.Overlap.Efficiency, 1e-9)
}

func TestThreadedDumpAddsSectionLoads(t *testing.T) {
	hw := Hardware{Cores: 4, DiskMBps: 100}
	p := testPlan(400e6, 10e6)
	est, err := Run(context.Background(), Input{Plan: p, Hardware: hw, Model: diskOnlyModel(),
		Strategy: Strategy{DumpJobs: 2, LoadJobs: 4, ThreadedDumpMin: 100e6, DumpThreads: 4}})
	require.NoError(t, err)
	var big TableTime
	for _, tt := range est.Tables {
		if tt.Table == "PUB.t0" {
			big = tt
		}
	}
	assert.Equal(t, 4, big.Sections, "one load per .bd section")
	assert.Equal(t, 4, big.Threads)
	// Disk-bound throughout: 2 × 410 MB at 100 MB/s.
	assert.Equal(t, 8200*time.Millisecond, est.Window.D())
	var loads int
	for _, sp := range est.Result().Spans {
		if sp.Job.Kind == schedule.KindLoad && sp.Job.Table == "PUB.t0" {
			loads++
			assert.Contains(t, []int{1, 2, 3, 4}, sp.Job.Section)
		}
	}
	assert.Equal(t, 4, loads)
}

func TestCriticalPathEndsTheWindow(t *testing.T) {
	est, err := Run(context.Background(), Input{Plan: testPlan(300e6, 10e6, 10e6), Hardware: Hardware{Cores: 4, DiskMBps: 100},
		Model: DefaultModel(), Strategy: DefaultStrategy(Hardware{Cores: 4})})
	require.NoError(t, err)
	path := est.CriticalPath
	require.NotEmpty(t, path)
	assert.Equal(t, "preflight", path[0].Job)
	assert.Equal(t, est.Window, path[len(path)-1].End)
	assert.Contains(t, jobIDs(path), "dump:PUB.t0", "the big table is on the path")
	for i := 1; i < len(path); i++ {
		assert.GreaterOrEqual(t, path[i].Start, path[i-1].Start, "path in time order")
	}
}

func TestMonteCarloIsReproducible(t *testing.T) {
	in := Input{Plan: testPlan(300e6, 50e6, 10e6, 10e6), Hardware: Hardware{Cores: 4, DiskMBps: 200, DiskIOPS: 3000, DiskLatencyMs: 1},
		Strategy: DefaultStrategy(Hardware{Cores: 4}), Samples: 40, Seed: 7}
	a, err := Run(context.Background(), in)
	require.NoError(t, err)
	b, err := Run(context.Background(), in)
	require.NoError(t, err)
	assert.Equal(t, a.Range, b.Range)
	assert.Less(t, a.Range.P50, a.Range.P90)
	assert.Equal(t, a.Window, a.Range.P50, "the range is centred on the window")
	in.Seed = 8
	c, err := Run(context.Background(), in)
	require.NoError(t, err)
	assert.NotEqual(t, a.Range.P90, c.Range.P90, "another seed, other draws")
}

func TestInputErrors(t *testing.T) {
	_, err := Run(context.Background(), Input{Plan: &plan.Plan{}, Hardware: Hardware{Cores: 1, DiskMBps: 1}})
	assert.ErrorContains(t, err, "no tables")
	_, err = Run(context.Background(), Input{Plan: testPlan(1), Hardware: Hardware{}})
	assert.ErrorContains(t, err, "cores")
}

func phase(t *testing.T, e *Estimate, name string) Phase {
	t.Helper()
	for _, p := range e.Phases {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no phase %s in %+v", name, e.Phases)
	return Phase{}
}

func jobIDs(path []PathStep) []string {
	var ids []string
	for _, s := range path {
		ids = append(ids, s.Job)
	}
	return ids
}

// The bottleneck names the queue when the span is start-ups waiting for
// slots (many tiny tables, few load jobs), and nothing when one big table
// holds the span.
func TestQueueBound(t *testing.T) {
	hw := Hardware{Cores: 2, DiskMBps: 200, DiskIOPS: 4000}
	tiny := make([]int64, 400)
	for i := range tiny {
		tiny[i] = 10e3
	}
	for _, tc := range []struct {
		name  string
		sizes []int64
		strat Strategy
		want  string // "" = no bottleneck
	}{
		{"400 tiny tables, 1 load at a time", tiny, Strategy{DumpJobs: 8, LoadJobs: 1}, "for a load slot"},
		{"400 tiny tables, 1 dump at a time", tiny, Strategy{DumpJobs: 1, LoadJobs: 8}, "for a dump slot"},
		{"one big table", []int64{2e9, 1e6, 1e6}, Strategy{DumpJobs: 4, LoadJobs: 2}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := Input{Plan: testPlan(tc.sizes...), Hardware: hw, Strategy: tc.strat}
			est, err := Run(context.Background(), in)
			require.NoError(t, err)
			require.NoError(t, Advise(context.Background(), in, est))
			if tc.want == "" {
				assert.Empty(t, est.Bottleneck)
				return
			}
			assert.Contains(t, est.Bottleneck, tc.want)
			assert.Contains(t, est.String(), "Bottleneck: ")
		})
	}
}
