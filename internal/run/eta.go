package run

import (
	"context"
	"maps"
	"os"
	"time"

	"github.com/oedl/oedl/internal/estimate"
	"github.com/oedl/oedl/internal/eta"
	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/schedule"
)

// estimateSamples is the range of the estimate the run makes of its own
// graph (the journal's; the live ETA has its own, eta.DefaultSamples).
const estimateSamples = 20

// ownEstimate is the estimate of the run's own graph under way: started
// beside the preflight, awaited before the run's first record.
type ownEstimate struct {
	done chan struct{}
	live *estimate.Live
	err  error
	// rebuild is what a failed -i load would cost (nil: crash-safe
	// loads, or not priced), for the run's first lines.
	rebuild *estimate.IntegrityPrice
	priors  bool // the model is the built-in priors, no calibration
}

// estimateOwnGraph starts the estimate of the graph this run will execute:
// its plan, its strategy, its queue's priority (the run's Cost, not the
// model's), on the model's hardware. nil without a model.
func (c *Config) estimateOwnGraph(ctx context.Context) *ownEstimate {
	if c.Model == nil {
		return nil
	}
	o := &ownEstimate{done: make(chan struct{}), priors: !c.Model.Calibrated()}
	cost := c.Cost
	if cost == nil {
		cost = schedule.DefaultCost
	}
	in := estimate.Input{Plan: c.Plan, Hardware: c.Model.Hardware, Model: c.Model, Strategy: c.Strategy(),
		Samples: estimateSamples, Seed: 1, QueueCost: cost}
	go func() {
		defer close(o.done)
		est, err := estimate.Run(ctx, in)
		if err != nil {
			o.err = err
			return
		}
		if in.Strategy.NoIntegrity {
			if p, err := estimate.RebuildPrice(ctx, in); err == nil {
				o.rebuild = &p
			}
		}
		o.live, o.err = estimate.NewLive(in, est)
	}()
	return o
}

// failureLine is the run's first word on -i (call after wait).
func (o *ownEstimate) failureLine() string {
	if o == nil {
		return estimate.FailureLine(nil, false)
	}
	return estimate.FailureLine(o.rebuild, o.priors)
}

// wait returns the estimate (nil, nil without a model).
func (o *ownEstimate) wait() (*estimate.Live, error) {
	if o == nil {
		return nil, nil
	}
	<-o.done
	return o.live, o.err
}

// startETA makes the live ETA of this attempt: a tracker that hears every
// event of the run (c.Events now goes through it; restore puts it back)
// and forecasts into the run's sinks and WORK/eta.json. Nil without an
// estimate.
func (c *Config) startETA(live *estimate.Live) (t *eta.Tracker, restore func()) {
	_ = os.Remove(c.work(ETAFile)) // an earlier invocation's
	if live == nil {
		return nil, func() {}
	}
	orig := c.Events
	cfg := eta.Config{Live: live, Out: orig, Path: c.work(ETAFile),
		OnError: func(err error) { c.Log.Warn("eta: " + err.Error()) }}
	if c.ETATrace {
		cfg.TracePath = c.work(ETATraceFile) // appended to: a resume's forecasts follow the first's
	}
	t = eta.New(cfg)
	c.Events = event.Multi{orig, t}
	return t, func() { c.Events = orig }
}

// runETA forecasts on its own goroutine until the returned stop is called.
func runETA(ctx context.Context, t *eta.Tracker) (stop func()) {
	if t == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t.Run(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}

// openingEstimate is the estimate run_started carries: the whole run's,
// or on a resume the work the journal has not finished (p.skip, what
// planResume made of the replay oedl status reads too), from now; a
// resume's window of the whole migration again was wrong until the first
// forecast corrected it (docs/decisions.md, est-advice). Nil when it
// cannot be made (said in the log).
func (c *Config) openingEstimate(ctx context.Context, live *estimate.Live, p *resumePlan, resumed bool) *event.Estimate {
	if live == nil {
		return nil
	}
	if !resumed {
		return live.Before().Event()
	}
	left := estimate.Left{Now: time.Now(), Done: maps.Clone(p.skip), Running: map[string]estimate.Running{}}
	for _, j := range p.extra {
		if j.Kind == schedule.KindLoad {
			left.Sections = append(left.Sections, estimate.Section{Table: j.Table, Section: max(1, j.Section), Records: j.Records, Bytes: j.Bytes})
		}
	}
	est, err := live.Resumed(ctx, left, estimateSamples, 1)
	if err != nil {
		c.Log.Warn("the estimate of the work left: " + err.Error())
		return nil
	}
	return est
}
