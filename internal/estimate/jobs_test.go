package estimate

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/oedl/oedl/internal/plan"
)

// cpuOnlyModel makes every dump and load cost startup seconds of waiting
// and cpuPerMB core seconds per MB, and touch no disk: the slot counts
// DefaultJobs picks can be worked out by hand.
func cpuOnlyModel(startup, cpuPerMB float64) *Model {
	m := DefaultModel()
	c := PhaseCost{StartupSec: startup, CPUPerMB: cpuPerMB}
	m.Dump, m.Load = c, c
	return m
}

func TestDefaultJobs(t *testing.T) {
	mb := func(n int, size int64) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = size
		}
		return out
	}
	for _, tc := range []struct {
		name       string
		m          *Model
		hw         Hardware
		sizes      []int64
		dump, load int
	}{
		{
			// 1 s of start-up per 1 core second, 2 cores: serial 2N s
			// against a floor of N/2 s, so 4 slots; dumps have 4 by the
			// core rule already, loads get 4 for 2.
			name: "start-up as long as the work", m: cpuOnlyModel(1, 1), hw: Hardware{Cores: 2, DiskMBps: 100},
			sizes: mb(10, 1e6), dump: 4, load: 4,
		},
		{
			// 1 s of start-up per half a core second: serial 1.5N against
			// N/4, 6 slots.
			name: "start-up twice the work", m: cpuOnlyModel(1, 0.5), hw: Hardware{Cores: 2, DiskMBps: 100},
			sizes: mb(10, 1e6), dump: 6, load: 6,
		},
		{
			name: "no start-up: the cores bind, the core rule stands", m: cpuOnlyModel(0, 1), hw: Hardware{Cores: 2, DiskMBps: 100},
			sizes: mb(10, 1e6), dump: 4, load: 2,
		},
		{
			name: "start-ups dominate: capped", m: cpuOnlyModel(1, 0.001), hw: Hardware{Cores: 2, DiskMBps: 100},
			sizes: mb(10, 1e6), dump: MaxDefaultJobs, load: MaxDefaultJobs,
		},
		{
			// 1 s of start-up per 1/8 core second, 2 cores: serial 9N/8
			// against a floor of N/16, 18 slots: more than the 16 a
			// broker's default users allowed before it was sized from them.
			name: "start-ups eight times the work: past the broker's default", m: cpuOnlyModel(1, 0.125), hw: Hardware{Cores: 2, DiskMBps: 100},
			sizes: mb(10, 1e6), dump: 18, load: 18,
		},
		{
			// The priors on 900 tiny tables (issue 12's erp shape): half a
			// second of start-up against microseconds of work.
			name: "priors, many tiny tables", m: DefaultModel(), hw: Hardware{Cores: 2, DiskMBps: 30, DiskIOPS: 2000},
			sizes: mb(900, 2e3), dump: MaxDefaultJobs, load: MaxDefaultJobs,
		},
		{
			// The priors on a few 2 GB tables on a 30 MB/s disk: the disk
			// binds, more slots would only queue on it.
			name: "priors, few large tables on a slow disk", m: DefaultModel(), hw: Hardware{Cores: 2, DiskMBps: 30, DiskIOPS: 2000},
			sizes: mb(4, 2e9), dump: 4, load: 2,
		},
		{
			name: "empty plan: the core rule", m: DefaultModel(), hw: Hardware{Cores: 8, DiskMBps: 100},
			sizes: nil, dump: 16, load: 8,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dump, load := DefaultJobs(tc.m, tc.hw, testPlan(tc.sizes...))
			assert.Equal(t, fmt.Sprint(tc.dump, "/", tc.load), fmt.Sprint(dump, "/", load))
		})
	}
}

// The estimate takes the run's defaults: RunStrategy with a model and a
// plan sizes the job counts as DefaultJobs does, and flags still win.
func TestRunStrategySizesJobsFromThePlan(t *testing.T) {
	m, hw, p := cpuOnlyModel(1, 0.5), Hardware{Cores: 2, DiskMBps: 100}, testPlan(1e6, 1e6, 1e6)
	s := RunStrategy(hw, m, p, 0, 0, 0, 0, 0)
	assert.Equal(t, []int{6, 6}, []int{s.DumpJobs, s.LoadJobs})
	s = RunStrategy(hw, m, p, 3, 5, 0, 0, 0)
	assert.Equal(t, []int{3, 5}, []int{s.DumpJobs, s.LoadJobs})
}

// The loads of many small tables in one area go through a few batched
// calls, and each table's index deactivation holds the target's schema
// lock, one load at a time: the lock's seconds are a floor no slot count
// beats, so the loads get the few slots that overlap the batches'
// start-ups with it, not one per table's start-up.
func TestDefaultJobsLoadsBoundByTheSchemaLock(t *testing.T) {
	m := cpuOnlyModel(1, 0.001)
	m.LoadTableSec = 0.5
	p := testPlan()
	for i := range 64 {
		p.Tables = append(p.Tables, plan.Placement{Table: fmt.Sprintf("PUB.t%d", i), Owner: "PUB", Name: fmt.Sprintf("t%d", i),
			Records: 20, Bytes: 2e3, Indexes: 2, DataArea: "Small"})
	}
	dump, load := DefaultJobs(m, Hardware{Cores: 2, DiskMBps: 100}, p)
	// Two batches of 32: 2 × 0.5 s of start-up beside 64 × 0.5 s under
	// the lock: ceil(33/32) = 2, the core rule's least. The dumps, a
	// start-up each, still get the most slots.
	assert.Equal(t, "32/2", fmt.Sprint(dump, "/", load))
}
