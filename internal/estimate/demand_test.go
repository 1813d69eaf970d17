package estimate

import (
	"testing"
	"time"

	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/schedule"
	"github.com/stretchr/testify/assert"
)

// TestLoadTableCost: a load's start-up includes the deactivation of its
// table's indexes (LoadTableSec), which a batch pays once per member, under
// the schema lock; a table loaded alone costs what it did without it.
func TestLoadTableCost(t *testing.T) {
	m := DefaultModel()
	m.Hardware = Hardware{Cores: 2, DiskMBps: 100}
	m.Load = PhaseCost{StartupSec: 0.06, StartupCPUSec: 0.01}
	members := func(n int) []schedule.Member { return make([]schedule.Member, n) }
	// A batch's 24 tables after its first each read their .bd's first
	// block and force their last BI block out: 24 x 16 KiB at 100 MB/s,
	// 4 ms (addMemberWaits).
	tests := []struct {
		name        string
		tableSec    float64
		job         schedule.Job
		wantStartup float64
		wantSchema  float64
		wantAlone   time.Duration
	}{
		{"no table cost (older calibrations, the priors)", 0,
			schedule.Job{Kind: schedule.KindLoadBatch, Members: members(25)}, 0.05, 0, 64 * time.Millisecond},
		{"one table: the same start-up, a part of it under the lock", 0.004,
			schedule.Job{Kind: schedule.KindLoad}, 0.046, 0.004, 60 * time.Millisecond},
		{"a batch pays the lock once per member", 0.004,
			schedule.Job{Kind: schedule.KindLoadBatch, Members: members(25)}, 0.046, 0.1, 160 * time.Millisecond},
		{"a later .bd section finds the indexes inactive", 0.004,
			schedule.Job{Kind: schedule.KindLoad, Section: 2}, 0.046, 0, 56 * time.Millisecond},
		{"the lock is never more than the start-up's wait", 1,
			schedule.Job{Kind: schedule.KindLoad}, 0, 0.05, 60 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m.LoadTableSec = tt.tableSec
			w := m.work(&tt.job, newCostContext(m.Hardware))
			assert.InDelta(t, tt.wantStartup, w.startup, 1e-12)
			assert.InDelta(t, tt.wantSchema, w.flows[0].schema, 1e-12)
			assert.Equal(t, tt.wantAlone, aloneDuration(w, m.Hardware))
		})
	}
}

// TestRunCPUPerJob: oedl's own CPU for each job it journals is on the
// job's stream, once per member of a batch; a job with no stream (a fixed
// wait) has none to put it on.
func TestRunCPUPerJob(t *testing.T) {
	m := DefaultModel()
	m.Hardware = Hardware{Cores: 2, DiskMBps: 100}
	m.Dump = PhaseCost{StartupSec: 0.06, StartupCPUSec: 0.01}
	m.Load = m.Dump
	tests := []struct {
		name    string
		perJob  float64
		job     schedule.Job
		wantCPU float64
	}{
		{"none in the priors", 0, schedule.Job{Kind: schedule.KindDump}, 0.01},
		{"a dump", 0.003, schedule.Job{Kind: schedule.KindDump}, 0.013},
		{"a load", 0.003, schedule.Job{Kind: schedule.KindLoad}, 0.013},
		{"a batch: each member is journalled", 0.003, schedule.Job{Kind: schedule.KindLoadBatch, Members: make([]schedule.Member, 10)}, 0.04},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m.RunCPUPerJobSec = tt.perJob
			w := m.work(&tt.job, newCostContext(m.Hardware))
			assert.InDelta(t, tt.wantCPU, w.flows[0].cpu, 1e-12)
		})
	}
	m.RunCPUPerJobSec = 0.003
	assert.Empty(t, m.work(&schedule.Job{Kind: schedule.KindServe}, newCostContext(m.Hardware)).flows)
}

// TestPreflightCalls: the preflight is priced as what it runs before the
// run's first event: the model's own figure (calibrate sets it to oedl's
// 0.1 s and the source's three checks, one utility call each: four
// until i12-prep, whose one session reads the transaction id and the
// .df). What the
// target needs runs beside them: a target oedl prepare made is proven
// (internal/run/prepared_beside.go), where it once added its holder and
// tabanalys; a target to create has its .st validated (prostrct create
// -validate, internal/run/validate.go), where it once added one start-up.
func TestPreflightCalls(t *testing.T) {
	m := DefaultModel()
	m.Hardware = Hardware{Cores: 2, DiskMBps: 100}
	m.Load = PhaseCost{StartupSec: 0.15, StartupCPUSec: 0.01}
	m.FixedSec[string(schedule.KindPreflight)] = 0.1 + preflightSourceCalls*m.Load.StartupSec
	for _, prepared := range []bool{false, true} {
		in := Input{Plan: testPlan(1 << 20), Hardware: m.Hardware, Model: m,
			Strategy: Strategy{DumpJobs: 4, LoadJobs: 2, Prepared: prepared}}
		w := m.work(&schedule.Job{Kind: schedule.KindPreflight}, in.context())
		assert.InDelta(t, 0.55, w.startup, 1e-12, "the source's checks alone, prepared %v", prepared)
	}
}

// The target's broker, tuned for loading, starts the plan's helpers after
// proserve, all together (internal/run/helpers.go): one start-up more than
// a bare proserve, not one per helper and not none. The source's broker
// and an untuned target's start none.
func TestServeTargetHelpers(t *testing.T) {
	m := DefaultModel()
	m.Hardware = Hardware{Cores: 2, DiskMBps: 100}
	m.Load = PhaseCost{StartupSec: 0.15, StartupCPUSec: 0.01}
	m.FixedSec[string(schedule.KindServe)] = 0.3
	helpers := []plan.Param{{Name: "proapw", Value: "2"}, {Name: "probiw", Value: "1"}}
	for _, tt := range []struct {
		name      string
		db        string
		processes []plan.Param
		untuned   bool
		want      float64
	}{
		{"the target with two page writers and the BI writer", schedule.DBTarget, helpers, false, 0.3 + 0.14},
		{"the target untuned", schedule.DBTarget, helpers, true, 0.3},
		{"the target with no helper in the plan", schedule.DBTarget, nil, false, 0.3},
		{"the source", schedule.DBSource, helpers, false, 0.3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := testPlan(1 << 20)
			p.Processes = tt.processes
			in := Input{Plan: p, Hardware: m.Hardware, Model: m,
				Strategy: Strategy{DumpJobs: 4, LoadJobs: 4, UntunedTarget: tt.untuned}}
			w := m.work(&schedule.Job{Kind: schedule.KindServe, DB: tt.db}, in.context())
			assert.InDelta(t, tt.want, w.startup, 1e-12)
		})
	}
}
