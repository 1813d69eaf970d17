package run

import (
	"runtime"
	"time"

	"github.com/oedl/oedl/internal/diskstats"
	"github.com/oedl/oedl/internal/estimate"
	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/schedule"
	"github.com/oedl/oedl/internal/tune"
)

// Live tuning (--tune, docs/decisions.md "Concurrency re-tuned while the
// run goes"): DumpJobs and LoadJobs are where the limits start, and
// tune.Controller moves them from what the machine and the queue show at
// each interval. The graph and the brokers are sized for the most the
// tuner may reach, so that a raise needs no restart: a served source and
// target (schedule.Served) and a broker -n with room for them.

// tuneEvery is the tuner's interval: long enough for a few start-ups to
// end in it (the throughput it judges a raise by), short enough that a
// badly low start is corrected within the first tens of seconds.
const tuneEvery = time.Second

// tuneMax is the most jobs of a class the tuner may run: the estimate's
// bound on its sizing (estimate.MaxDefaultJobs: a start-up waits on
// latency, not on a core, and 32 was measured faster than 16 on 2 cores),
// never below the start. A first version stopped at 8 per core: started at
// 2, it climbed to 16 and stayed under what the estimate sizes.
func tuneMax(start int) int { return max(start, estimate.MaxDefaultJobs) }

// dumpMax and loadMax are the most dumps and loads the run may have at
// once: the tuner's ceiling, or the fixed counts.
func (c *Config) dumpMax() int {
	if c.Tune {
		return tuneMax(c.DumpJobs)
	}
	return c.DumpJobs
}

func (c *Config) loadMax() int {
	if c.Tune {
		return tuneMax(c.LoadJobs)
	}
	return c.LoadJobs
}

// liveTuner feeds tune.Controller from the machine's counters and the
// queue, for schedule.Dispatch.
type liveTuner struct {
	ctl     *tune.Controller
	sampler tune.Sampler
	last    tune.Reading
	ended   map[schedule.Slot]int // jobs ended per class at the last reading
	limits  map[schedule.Slot]int
	emit    func(event.Event)
}

// newTuner starts the limits at the run's slots, bounded by its maxima.
func (c *Config) newTuner(emit func(event.Event)) *liveTuner {
	start := c.hostLayout().Slots(c.DumpJobs, c.LoadJobs)
	top := c.hostLayout().Slots(c.dumpMax(), c.loadMax())
	s, m := map[string]int{}, map[string]int{}
	for k, v := range start {
		s[string(k)], m[string(k)] = v, top[k]
	}
	sampler := tune.Sampler{Own: runCPU, Cores: runtime.NumCPU(), Stat: "/proc/stat", Disk: c.Diskstats}
	return &liveTuner{ctl: tune.New(tune.DefaultRules, s, m), sampler: sampler, last: sampler.Read(time.Now()),
		ended: map[schedule.Slot]int{}, limits: start, emit: emit}
}

// Limits takes a reading once an interval has passed since the last and
// hands it to the controller; between readings the limits stand.
func (t *liveTuner) Limits(now time.Time, state func() []schedule.SlotState) map[schedule.Slot]int {
	if now.Sub(t.last.At) < tuneEvery {
		return t.limits
	}
	r := t.sampler.Read(now)
	o := t.sampler.Interval(t.last, r)
	t.last = r
	queue := map[string]schedule.SlotState{}
	for _, s := range state() {
		o.Classes = append(o.Classes, tune.Class{Name: string(s.Slot), Running: s.Running, Waiting: s.Waiting, Finished: s.Finished - t.ended[s.Slot]})
		t.ended[s.Slot] = s.Finished
		queue[string(s.Slot)] = s
	}
	for _, ch := range t.ctl.Observe(o) {
		t.limits[schedule.Slot(ch.Class)] = ch.To
		q := queue[ch.Class]
		t.emit(event.Event{V: event.SchemaVersion, Time: now, Kind: event.TuneKind, Message: ch.String(),
			Tune: &event.Tune{Slot: ch.Class, From: ch.From, To: ch.To, Reason: ch.Reason,
				CPUBusy: o.CPUBusy, MachineBusy: o.MachineBusy, DiskBusy: o.DiskBusy, DiskBytes: o.DiskBytes / max(o.Seconds, 1e-9),
				Running: q.Running, Waiting: q.Waiting, Rate: ch.Rate, Before: ch.Before}})
	}
	return t.limits
}

// runCPU is the CPU time of oedl and of the utilities it waited for.
func runCPU() time.Duration {
	r := measureRusage(0)
	return r.SelfUser + r.SelfSys + r.ChildrenUser + r.ChildrenSys
}

// tickEvery wakes the dispatcher every interval until stop is called, so
// that a raise starts jobs at once and not only when a running one ends.
func (e *Executor) tickEvery(d time.Duration) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				select {
				case e.wake <- struct{}{}:
				default: // a wake is pending already
				}
			}
		}
	}()
	return func() { close(done) }
}

// DiskOf is the diskstats source of the device holding dir in the
// /proc/diskstats-form file path, or of the device named dev in it.
func DiskOf(path, dev, dir string) (*diskstats.Source, error) {
	if dev == "" {
		var err error
		if dev, err = diskstats.DeviceOf(path, dir); err != nil {
			return nil, err
		}
	}
	return &diskstats.Source{Path: path, Device: dev}, nil
}
