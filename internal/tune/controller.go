// Package tune re-sizes the dump and load slot limits while a run goes
// (issue 12): the estimate's model sizes them before the run, but it does
// not know the machine's other load, the disk's true ceiling or how long a
// utility's start-up really is. The Controller is fed an Observation at
// each interval and answers with the limits; it is pure (no clock, no
// files), so its rules are table-tested, and the run feeds it what
// /proc/stat and a diskstats file say (Sampler).
//
// The rules, per slot class:
//
//   - raise while no resource binds and jobs wait for a slot: the work is
//     then bound by start-up latency and queueing, not by the machine,
//     and one more slot is one more start-up overlapped;
//   - hold while a resource binds (CPU or disk busy at Bind or more);
//   - lower back when a raise, once a resource binds, did not raise that
//     resource's throughput by Gain: the extra slots only contend. The
//     lowered limit becomes the class's ceiling for the run, so the
//     controller does not climb into the same wall again (no flapping).
//
// Damping: a class changes at most once per Settle intervals, a raise
// needs Patience intervals in a row of waiting jobs and no resource busy
// at Free or more (Free < Bind: between the two it holds), and a raise is
// judged over the Settle intervals after it against the Settle before.
package tune

import (
	"fmt"
	"slices"
)

// Rules are the controller's thresholds.
type Rules struct {
	Bind     float64 // a resource this busy (0..1) binds
	Free     float64 // below this busy every resource is free to take more
	Gain     float64 // a raise must raise the bound resource's throughput by this share
	Patience int     // intervals in a row of waiting jobs before a raise
	Settle   int     // intervals after a change before the next, and to judge it
}

// DefaultRules are the run's.
var DefaultRules = Rules{Bind: 0.9, Free: 0.75, Gain: 0.05, Patience: 2, Settle: 3}

// Class is one slot class's state in an interval.
type Class struct {
	Name     string
	Running  int // jobs holding a slot at the end of the interval
	Waiting  int // ready jobs held back only by the class's limit
	Finished int // jobs of the class that ended in the interval
}

// Observation is what one interval measured.
type Observation struct {
	Seconds float64 // the interval's length
	// CPUBusy is the share of the cores the run's processes kept busy
	// (0..1; negative: unknown, and then it never binds); MachineBusy the
	// share all processes did, for the record.
	CPUBusy     float64
	MachineBusy float64
	// DiskBusy is the share of the interval the device was busy (0..1;
	// negative: unknown, and then it never binds), DiskBytes what it moved.
	DiskBusy  float64
	DiskBytes float64
	Classes   []Class
}

// Change is one limit the controller moved, with why and the figures.
type Change struct {
	Class    string
	From, To int
	Reason   string // ReasonWaiting, ReasonContention
	Obs      Observation
	Rate     float64 // the throughput the decision compared: now
	Before   float64 // and before the raise (ReasonContention)
}

// Reasons of a change.
const (
	ReasonWaiting    = "waiting" // jobs waited for a slot and no resource was busy
	ReasonContention = "contention"
)

func (c Change) String() string {
	if c.Reason == ReasonContention {
		return fmt.Sprintf("%s slots %d -> %d: contention, the raise from %d took the bound resource's throughput from %.3g to %.3g/s (CPU %s, disk %s)",
			c.Class, c.From, c.To, c.From, c.Before, c.Rate, busy(c.Obs.CPUBusy), busy(c.Obs.DiskBusy))
	}
	return fmt.Sprintf("%s slots %d -> %d: jobs waited for a slot with no resource bound (CPU %s, the machine's %s, disk %s)",
		c.Class, c.From, c.To, busy(c.Obs.CPUBusy), busy(c.Obs.MachineBusy), busy(c.Obs.DiskBusy))
}

func busy(v float64) string {
	if v < 0 {
		return "unknown"
	}
	return fmt.Sprintf("%.0f%%", 100*v)
}

// Controller holds the limits of the slot classes.
type Controller struct {
	rules   Rules
	classes map[string]*classState
	history []Observation // the last 2*Settle intervals, newest last
}

type classState struct {
	limit, max int
	ceiling    int // the limit contention set (max until then)
	waited     int // intervals in a row with jobs waiting and resources free
	since      int // intervals since the last change
	trial      *trial
}

// trial is a raise being judged: the throughputs before it.
type trial struct {
	from int
	disk float64 // disk bytes/s before the raise
	jobs float64 // the class's jobs/s before the raise
}

// New starts a controller at the limits start, each bounded by max (a
// class missing from max cannot rise above its start).
func New(r Rules, start, max map[string]int) *Controller {
	c := &Controller{rules: r, classes: map[string]*classState{}}
	for name, n := range start {
		m := max[name]
		n = bound(n, 1, m)
		c.classes[name] = &classState{limit: n, max: m, ceiling: m, since: r.Settle}
	}
	return c
}

func bound(n, lo, hi int) int {
	if hi < lo {
		hi = lo
	}
	return min(max(n, lo), hi)
}

// Limit is class's limit now (0 for a class the controller does not hold).
func (c *Controller) Limit(class string) int {
	if s := c.classes[class]; s != nil {
		return max(s.limit, 1)
	}
	return 0
}

// Observe takes one interval's figures and returns the limits it changed.
func (c *Controller) Observe(o Observation) []Change {
	c.history = append(c.history, o)
	if n := 2 * c.rules.Settle; len(c.history) > n {
		c.history = c.history[len(c.history)-n:]
	}
	var out []Change
	names := make([]string, 0, len(o.Classes))
	byName := map[string]Class{}
	for _, cl := range o.Classes {
		names = append(names, cl.Name)
		byName[cl.Name] = cl
	}
	slices.Sort(names)
	for _, name := range names {
		s := c.classes[name]
		if s == nil {
			continue
		}
		s.since++
		if ch, ok := c.step(s, byName[name], o); ok {
			s.since = 0
			out = append(out, ch)
		}
	}
	return out
}

func (c *Controller) step(s *classState, cl Class, o Observation) (Change, bool) {
	r := c.rules
	bound := o.CPUBusy >= r.Bind || o.DiskBusy >= r.Bind
	free := o.CPUBusy < r.Free && o.DiskBusy < r.Free
	if cl.Waiting > 0 && cl.Running >= s.limit && free {
		s.waited++
	} else {
		s.waited = 0
	}
	if s.since < r.Settle {
		return Change{}, false
	}
	if t := s.trial; t != nil {
		s.trial = nil
		now, before := c.rate(cl.Name, t, o)
		if bound && now < before*(1+r.Gain) {
			ch := Change{Class: cl.Name, From: s.limit, To: t.from, Reason: ReasonContention, Obs: o, Rate: now, Before: before}
			s.limit, s.ceiling = t.from, t.from
			return ch, true
		}
	}
	if bound || s.waited < r.Patience || s.limit >= s.ceiling {
		return Change{}, false
	}
	// Up by half (at least one): from a badly low start the limit reaches
	// a dozen in a few steps, and near the top each step stays small.
	to := min(s.limit+max(1, s.limit/2), s.ceiling)
	disk, jobs := c.recent(cl.Name)
	s.trial = &trial{from: s.limit, disk: disk, jobs: jobs}
	ch := Change{Class: cl.Name, From: s.limit, To: to, Reason: ReasonWaiting, Obs: o}
	s.limit, s.waited = to, 0
	return ch, true
}

// rate is the bound resource's throughput since the raise and before it:
// the disk's bytes/s when the disk binds, else the class's jobs/s (CPU
// busy cannot show a gain once it is near 100 %; the work done can).
func (c *Controller) rate(class string, t *trial, o Observation) (now, before float64) {
	disk, jobs := c.recent(class)
	if o.DiskBusy >= c.rules.Bind {
		return disk, t.disk
	}
	return jobs, t.jobs
}

// recent is the disk's bytes/s and the class's jobs/s over the last
// Settle intervals.
func (c *Controller) recent(class string) (disk, jobs float64) {
	h := c.history[max(0, len(c.history)-c.rules.Settle):]
	var secs, bytes, done float64
	for _, o := range h {
		secs += o.Seconds
		bytes += o.DiskBytes
		for _, cl := range o.Classes {
			if cl.Name == class {
				done += float64(cl.Finished)
			}
		}
	}
	if secs <= 0 {
		return 0, 0
	}
	return bytes / secs, done / secs
}
