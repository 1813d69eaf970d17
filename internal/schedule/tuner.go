package schedule

import "time"

// Tuner re-sizes slot classes while the graph runs (oedl run --tune, with
// internal/tune behind it). The dispatcher asks it at every decision; a
// lowered limit never stops a running job, it only holds new starts until
// the class is below it.
type Tuner interface {
	// Limits returns the limits from now on of the classes it tunes (a
	// class it leaves out keeps Options.Slots'). state is the queue per
	// class now, computed only when called (it walks the ready jobs).
	Limits(now time.Time, state func() []SlotState) map[Slot]int
}

// SlotState is one slot class in the queue.
type SlotState struct {
	Slot     Slot
	Limit    int // the limit in force
	Running  int // jobs holding a slot of the class
	Waiting  int // ready jobs of the class not started (the class is full, or an exclusive job holds them)
	Finished int // jobs of the class ended so far in this dispatch
}

// tune asks the tuner for the limits, when there is one, and says
// whether one rose (more jobs may start).
func (d *dispatcher) tune() bool {
	if d.o.Tuner == nil {
		return false
	}
	before := map[Slot]int{}
	for s := range d.o.Slots {
		before[s] = d.slots(s)
	}
	d.limits = d.o.Tuner.Limits(d.ex.Now(), d.slotStates)
	for s, n := range before {
		if d.slots(s) > n {
			return true
		}
	}
	return false
}

// slotStates describes the classes Options.Slots names.
func (d *dispatcher) slotStates() []SlotState {
	live := d.waitingLive()
	out := make([]SlotState, 0, len(d.o.Slots))
	for s := range d.o.Slots {
		out = append(out, SlotState{Slot: s, Limit: d.slots(s), Running: d.bySlot[s],
			Waiting: d.ready.count(s, live), Finished: d.ended[s]})
	}
	return out
}
