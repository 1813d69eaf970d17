package schedule

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A target created in the window on the source's device: prostrct create
// formatted its extents beside the dumps, ended after them, and the loads
// then waited for procopy, the .df and the broker on an idle disk. With
// DumpsAfterCreate the table dumps wait for create-target; the source's
// side jobs (its tabanalys above all, which reads the most) still start as
// soon as the source is served, beside the formatting.
func TestDumpsAfterCreate(t *testing.T) {
	sideKinds := []Kind{KindAnalyzeSource, KindDumpDF, KindDumpSeq, KindDumpSecurity}
	tests := []struct {
		name      string
		opts      BuildOptions
		waitsFor  []string // a table dump's deps
		dumpFirst bool     // a dump may start before create-target ends
	}{
		{"beside the creation (another device)", BuildOptions{ServeSource: true, ServeTarget: true},
			[]string{ServeID(DBSource)}, true},
		{"after the creation (one device)", BuildOptions{ServeSource: true, ServeTarget: true, DumpsAfterCreate: true},
			[]string{ServeID(DBSource), string(KindCreateTarget)}, false},
		{"single-user source, one device", BuildOptions{DumpsAfterCreate: true},
			[]string{string(KindPreflight), string(KindCreateTarget)}, false},
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
			b, err := Build(manySmall(20), tt.opts)
			require.NoError(t, err)
			for _, j := range b.Jobs() {
				if j.Kind == KindDump {
					assert.ElementsMatch(t, tt.waitsFor, j.Deps, j.ID)
				}
			}
			for _, k := range sideKinds {
				assert.NotContains(t, b.Job(string(k)).Deps, string(KindCreateTarget), "%s waits for the source only", k)
			}
			res, err := Dispatch(context.Background(), b.Graph, &clockExec{}, Options{Slots: map[Slot]int{SlotDump: 4, SlotLoad: 4}})
			require.NoError(t, err)
			require.NoError(t, res.Err())
			sp := spans(res)
			created := sp[string(KindCreateTarget)].End
			first := created
			for _, s := range res.Spans {
				if s.Job.Kind == KindDump && s.Start.Before(first) {
					first = s.Start
				}
			}
			assert.Equal(t, tt.dumpFirst, first.Before(created), "first dump at %v, target created at %v", first, created)
		})
	}
}

// Several machines: the target is formatted on its own machine's disk,
// where it takes nothing from the dumps: they never wait for it.
func TestDumpsAfterCreateNotAcrossHosts(t *testing.T) {
	b, err := Build(manySmall(20), BuildOptions{ServeSource: true, ServeTarget: true, DumpsAfterCreate: true, Hosts: threeHosts(nil)})
	require.NoError(t, err)
	for _, j := range b.Jobs() {
		if j.Kind == KindDump {
			assert.NotContains(t, j.Deps, string(KindCreateTarget), j.ID)
		}
	}
}
