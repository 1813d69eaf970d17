package schedule

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scriptTuner sets the dump limit from how many dumps ended, and keeps
// every state it was shown.
type scriptTuner struct {
	limit  func(finished int) int
	states []SlotState
}

func (s *scriptTuner) Limits(_ time.Time, state func() []SlotState) map[Slot]int {
	st := state()
	s.states = append(s.states, st...)
	return map[Slot]int{SlotDump: s.limit(st[0].Finished)}
}

// The dispatcher reads the tuner's limits at each decision: raised, more
// jobs start at once; lowered, the running jobs go on and new starts wait
// until the class is below the new limit. The queue it shows the tuner
// adds up: every job is waiting, running or finished.
func TestDispatchTunedLimits(t *testing.T) {
	for _, tc := range []struct {
		name                string
		limit               func(int) int
		wantMax, wantAfter4 int // the most dumps at once, and at a start once 4 ended
	}{
		{"fixed", func(int) int { return 2 }, 2, 2},
		{"raised after two ended", func(f int) int { return map[bool]int{true: 2, false: 4}[f < 2] }, 4, 4},
		{"raised then lowered to one", func(f int) int {
			switch {
			case f < 2:
				return 2
			case f < 4:
				return 4
			}
			return 1
		}, 4, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var jobs []*Job
			for i := range 12 {
				j := job(string(rune('a'+i)), time.Second+time.Duration(i)*time.Millisecond)
				j.Slot = SlotDump
				jobs = append(jobs, j)
			}
			g, err := NewGraph(jobs)
			require.NoError(t, err)
			tuner := &scriptTuner{limit: tc.limit}
			res, err := Dispatch(context.Background(), g, &clockExec{}, Options{Slots: map[Slot]int{SlotDump: 2}, Tuner: tuner})
			require.NoError(t, err)
			require.NoError(t, res.Err())
			assert.Equal(t, tc.wantMax, maxConcurrent(res, func(*Job) bool { return true }))
			// A job started once 4 had ended ran with at most the limit
			// then in force, counting itself and the ones still running.
			fourth := res.Spans[3].End
			for _, s := range res.Spans {
				if s.Start.After(fourth) {
					n := 0
					for _, o := range res.Spans {
						if !o.Start.After(s.Start) && o.End.After(s.Start) {
							n++
						}
					}
					assert.LessOrEqual(t, n, tc.wantAfter4, "%s started with %d running", s.Job.ID, n-1)
				}
			}
			for _, st := range tuner.states {
				assert.Equal(t, 12, st.Waiting+st.Running+st.Finished, "%+v", st)
				assert.LessOrEqual(t, st.Running, max(st.Limit, 4))
			}
		})
	}
}
