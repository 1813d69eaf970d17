package estimate

import (
	"math"
	"time"
)

// sim is the discrete-event core: tasks (jobs) with a start-up delay and
// streams that share the machine (allocate). Rates stay constant between
// events, so the clock jumps from one event (a start-up ends, a stream
// ends, a task starts) to the next and rates are recomputed only then.
type sim struct {
	hw    Hardware
	now   float64 // seconds since the start
	tasks []*task // running, in start order
	seq   int
	dirty bool
}

type task struct {
	seq      int
	ref      any // the caller's handle (the *schedule.Job)
	startup  float64
	flows    []*flowState
	left     int // streams not finished
	sections bool
}

type flowState struct {
	d     flowDemand
	left  float64 // fraction of the work still to do
	rate  float64
	index int
	done  bool
}

// simEvent is a stream or a task that ended at the current time.
type simEvent struct {
	task     *task
	flow     int  // the stream that ended, -1 when none did
	taskDone bool // the whole task ended
}

func newSim(hw Hardware) *sim { return &sim{hw: hw} }

func (s *sim) idle() bool { return len(s.tasks) == 0 }

// add starts a task now.
func (s *sim) add(ref any, w jobWork) *task {
	t := &task{seq: s.seq, ref: ref, startup: w.startup, sections: w.sections}
	s.seq++
	for i, d := range w.flows {
		t.flows = append(t.flows, &flowState{d: d, left: 1, index: i})
	}
	t.left = len(t.flows)
	s.tasks = append(s.tasks, t)
	s.dirty = true
	return t
}

// step advances the clock to the next event and returns what ended then
// (possibly nothing, when only a start-up ended). Callers loop until they
// get the events they report.
func (s *sim) step() []simEvent {
	if s.dirty {
		s.reallocate()
	}
	dt := math.Inf(1)
	for _, t := range s.tasks {
		if t.startup <= 0 && t.left == 0 {
			dt = 0 // nothing left to do: it ends now
			break
		}
		if t.startup > 0 {
			dt = math.Min(dt, t.startup)
			continue
		}
		for _, f := range t.flows {
			if !f.done {
				dt = math.Min(dt, f.left/f.rate)
			}
		}
	}
	if math.IsInf(dt, 1) || dt < 0 {
		dt = 0 // a task with nothing to do ends at once
	}
	s.now += dt
	var events []simEvent
	kept := s.tasks[:0]
	for _, t := range s.tasks {
		if t.startup > 0 {
			t.startup -= dt
			if t.startup <= 1e-9 {
				t.startup = 0
				s.dirty = true
			}
		} else {
			for _, f := range t.flows {
				if f.done {
					continue
				}
				f.left -= f.rate * dt
				if f.left <= 1e-9 || math.IsInf(f.rate, 1) {
					f.done, f.left = true, 0
					t.left--
					s.dirty = true
					events = append(events, simEvent{task: t, flow: f.index, taskDone: t.left == 0})
				}
			}
		}
		if t.startup == 0 && t.left == 0 {
			if len(t.flows) == 0 {
				events = append(events, simEvent{task: t, flow: -1, taskDone: true})
			}
			s.dirty = true
			continue
		}
		kept = append(kept, t)
	}
	for i := len(kept); i < len(s.tasks); i++ {
		s.tasks[i] = nil
	}
	s.tasks = kept
	return events
}

func (s *sim) reallocate() {
	s.dirty = false
	var live []*flowState
	var demands []*flowDemand
	for _, t := range s.tasks {
		if t.startup > 0 {
			continue
		}
		for _, f := range t.flows {
			if !f.done {
				live = append(live, f)
				demands = append(demands, &f.d)
			}
		}
	}
	for i, r := range allocate(demands, s.hw) {
		live[i].rate = r
	}
}

// seconds converts simulated seconds to a Duration, rounded to the
// millisecond so that reports and goldens do not carry float noise.
func seconds(s float64) time.Duration {
	return time.Duration(math.Round(s*1e3)) * time.Millisecond
}

// aloneDuration is how long a job takes with the machine to itself.
func aloneDuration(w jobWork, hw Hardware) time.Duration {
	s := newSim(hw)
	s.add(nil, w)
	for !s.idle() {
		s.step()
	}
	return seconds(s.now)
}
