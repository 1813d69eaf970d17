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
	cores int
	disk  disk
	// credit is what is left in the disk's burst bucket; the ceilings are
	// the burst ones while it is above creditFloor.
	credit float64
	now    float64 // seconds since the start
	tasks  []*task // running, in start order
	seq    int
	dirty  bool
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

func newSim(hw Hardware) *sim {
	s := &sim{cores: max(1, hw.Cores), disk: hw.disk()}
	s.credit = s.disk.startCredit
	return s
}

// bursting reports whether the bucket still holds credits.
func (s *sim) bursting() bool { return s.disk.bursts() && s.credit > s.disk.bucket*1e-9 }

// bucketUse is what the running streams take from the bucket's resource
// per second (operations for I/O credits, bytes for throughput credits)
// and what the volume earns back per second (its baseline).
func (s *sim) bucketUse() (use, earn float64) {
	for _, t := range s.tasks {
		if t.startup > 0 {
			continue
		}
		for _, f := range t.flows {
			if f.done {
				continue
			}
			if s.disk.bucketBytes {
				use += f.rate * f.d.bytes
			} else {
				use += f.rate * f.d.ops
			}
		}
	}
	if s.disk.bucketBytes {
		return use, s.disk.baseMBps * 1e6
	}
	return use, s.disk.baseIOPS
}

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
func (s *sim) step() []simEvent { return s.advance(s.next()) }

// next is the time to this machine's next event (a stream or a start-up
// ending, the burst bucket running dry): +Inf when nothing runs.
func (s *sim) next() float64 {
	if s.dirty {
		s.reallocate()
	}
	if len(s.tasks) == 0 {
		return math.Inf(1)
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
	if s.disk.bursts() {
		// The bucket drains at what the streams take beyond the baseline
		// and fills at what they leave of it: when it runs dry the
		// ceilings drop to the baseline, an event of its own.
		use, earn := s.bucketUse()
		if s.bursting() && use > earn {
			dt = math.Min(dt, s.credit/(use-earn))
		}
	}
	return dt
}

// advance moves this machine's clock by dt (at most next()) and returns
// what ended then.
func (s *sim) advance(dt float64) []simEvent {
	if s.dirty {
		s.reallocate()
	}
	if s.disk.bursts() {
		use, earn := s.bucketUse()
		burst := s.bursting()
		s.credit = math.Min(s.disk.bucket, math.Max(0, s.credit+(earn-use)*dt))
		if s.bursting() != burst {
			s.dirty = true
		}
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
	for i, r := range allocate(demands, s.cores, &s.disk, s.bursting()) {
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
