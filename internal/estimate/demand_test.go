package estimate

import (
	"testing"
	"time"

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
	tests := []struct {
		name        string
		tableSec    float64
		job         schedule.Job
		wantStartup float64
		wantSchema  float64
		wantAlone   time.Duration
	}{
		{"no table cost (older calibrations, the priors)", 0,
			schedule.Job{Kind: schedule.KindLoadBatch, Members: members(25)}, 0.05, 0, 60 * time.Millisecond},
		{"one table: the same start-up, a part of it under the lock", 0.004,
			schedule.Job{Kind: schedule.KindLoad}, 0.046, 0.004, 60 * time.Millisecond},
		{"a batch pays the lock once per member", 0.004,
			schedule.Job{Kind: schedule.KindLoadBatch, Members: members(25)}, 0.046, 0.1, 156 * time.Millisecond},
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
