package schedule

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/plan"
)

// smallAndBig is 20 tables of a MiB (a dump of one is mostly its
// start-up) and one of a GiB (mostly its bytes).
func smallAndBig() *plan.Plan {
	p := manySmall(20)
	p.Tables = append(p.Tables, plan.Placement{Table: "PUB.big", Bytes: 1 << 30, Records: 1 << 20, DataArea: "big_dat"})
	return p
}

// A target created in the window on the source's device: prostrct create
// formatted its extents beside the dumps, ended after them, and the loads
// then waited for procopy, the .df and the broker on an idle disk. With
// DumpsAfterCreate a dump whose bytes cost more than its start-up waits
// for create-target; a smaller one waits on its start-up, not on the
// disk, and runs beside the formatting, as do the source's side jobs.
func TestDumpsAfterCreate(t *testing.T) {
	sideKinds := []Kind{KindAnalyzeSource, KindDumpDF, KindDumpSeq, KindDumpSecurity}
	tests := []struct {
		name     string
		opts     BuildOptions
		ready    string // what a dump waits for besides the target
		bigWaits bool   // the big table's dump waits for create-target
	}{
		{"beside the creation (another device)", BuildOptions{ServeSource: true, ServeTarget: true}, ServeID(DBSource), false},
		{"one device, served source", BuildOptions{ServeSource: true, ServeTarget: true, DumpsAfterCreate: true}, ServeID(DBSource), true},
		{"one device, single-user source", BuildOptions{DumpsAfterCreate: true}, string(KindPreflight), true},
		{"several machines: formatted on the target's own disk",
			BuildOptions{ServeSource: true, ServeTarget: true, DumpsAfterCreate: true, Hosts: threeHosts(nil)}, "", false},
	}
	// The formatting outlasts the source's serve, as it does.
	formatting := func(j *Job) time.Duration {
		if j.Kind == KindCreateTarget {
			return 5 * time.Second
		}
		return DefaultCost(j)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Cost = formatting
			b, err := Build(smallAndBig(), tt.opts)
			require.NoError(t, err)
			for _, j := range b.Jobs() {
				if j.Kind != KindDump {
					continue
				}
				waits := j.Table == "PUB.big" && tt.bigWaits
				assert.Equal(t, waits, slices.Contains(j.Deps, string(KindCreateTarget)), j.ID)
				if tt.ready != "" {
					assert.Contains(t, j.Deps, tt.ready, j.ID)
				}
			}
			for _, k := range sideKinds {
				assert.NotContains(t, b.Job(string(k)).Deps, string(KindCreateTarget), "%s waits for the source only", k)
			}
			if tt.opts.Hosts != nil {
				return
			}
			res, err := Dispatch(context.Background(), b.Graph, &clockExec{}, Options{Slots: map[Slot]int{SlotDump: 4, SlotLoad: 4}})
			require.NoError(t, err)
			require.NoError(t, res.Err())
			sp := spans(res)
			created := sp[string(KindCreateTarget)].End
			assert.True(t, sp[DumpID("PUB.t000")].Start.Before(created), "a small table dumps beside the formatting")
			assert.Equal(t, tt.bigWaits, !sp[DumpID("PUB.big")].Start.Before(created), "the big dump at %v, the target created at %v",
				sp[DumpID("PUB.big")].Start, created)
		})
	}
}
