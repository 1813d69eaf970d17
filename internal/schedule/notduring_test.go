package schedule

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNotDuring: a dump added while the graph runs (again, after its load
// failed) never runs beside the source's shutdown, whichever of not
// started, running or done the shutdown is when the dump is added: the
// flake of TestEveryFaultThenResume/whole/dump:corrupt/once was a dump
// again that ran into the shutdown, found the broker gone and stopped the
// run.
func TestNotDuring(t *testing.T) {
	tests := []struct {
		name string
		gate time.Duration // what the shutdown waits for
		want string        // which comes first
	}{
		{"shutdown not started: it waits for the dump", 2 * time.Second, "dump"},
		{"shutdown running: the dump waits for it", 500 * time.Millisecond, "shutdown"},
		{"shutdown done: the dump runs at once", 0, "shutdown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			load := job("load", time.Second)
			load.Kind = KindLoad
			gate := job("gate", tt.gate)
			shut := job("shutdown:source", time.Second, "gate")
			if tt.gate == 0 {
				shut.Cost = 100 * time.Millisecond
			}
			shut.Kind, shut.DB = KindShutdown, DBSource
			g, err := NewGraph([]*Job{load, gate, shut})
			require.NoError(t, err)
			ex := &clockExec{fail: map[string]bool{"load": true}, add: func(j *Job) []*Job {
				if j.ID != "load" {
					return nil
				}
				return []*Job{{ID: "dump@r1", Kind: KindDump, Cost: 2 * time.Second, DB: DBSource, NotDuring: []string{"shutdown:source"}}}
			}}
			res, err := Dispatch(context.Background(), g, ex, Options{})
			require.NoError(t, err)
			sp := spans(res)
			d, s := sp["dump@r1"], sp["shutdown:source"]
			require.False(t, d.Start.IsZero(), "the dump ran")
			assert.False(t, d.Start.Before(s.End) && s.Start.Before(d.End), "the dump [%v, %v] beside the shutdown [%v, %v]", d.Start, d.End, s.Start, s.End)
			if tt.want == "dump" {
				assert.False(t, s.Start.Before(d.End), "the shutdown waits for the dump")
			} else {
				assert.False(t, d.Start.Before(s.End), "the dump waits for the shutdown")
			}
		})
	}
}
