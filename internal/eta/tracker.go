package eta

import (
	"context"
	"encoding/json"
	"maps"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/oedl/oedl/internal/atomicfile"
	"github.com/oedl/oedl/internal/estimate"
	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/schedule"
)

// Config is one run's live ETA.
type Config struct {
	Live *estimate.Live
	Out  event.Sink // where the eta events go
	// Path, when set, is replaced with each eta event (JSON), for `oedl
	// status`.
	Path string
	// TracePath, when set, gets a line (JSON, appended) for each forecast:
	// the eta event's figures, the running jobs as the forecast took them
	// and the job plan it simulated (trace.go), to compare afterwards
	// with what the run did (scripts/etareplay -trace).
	TracePath string
	// Samples is the number of simulations behind the P50-P90 range
	// (default DefaultSamples).
	Samples int
	// MinInterval is the least time between two forecasts (default
	// DefaultMinInterval); Budget the share of one core they may take
	// (default DefaultBudget), half for the forecast, half for its range.
	MinInterval time.Duration
	Budget      float64
	Now         func() time.Time
	// OnError hears a forecast that failed (nil: ignored; the next one
	// tries again).
	OnError func(error)
}

// Defaults.
const (
	DefaultSamples     = 16
	DefaultMinInterval = 2 * time.Second
	DefaultBudget      = 0.01
)

// Tracker folds the events of a run and forecasts the time it has left.
type Tracker struct {
	cfg Config

	mu       sync.Mutex
	jobs     map[string]*job
	sections map[string]estimate.Section // by load ID
	slots    map[string]int              // the tuner's limits so far, by slot (tune events)
	finished []estimate.Finished
	n        uint64 // forecasts made: the seed of the next one's range
	// spread90 is the last range's P90 against its forecast, for the
	// forecasts made between two ranges (their P50 is the forecast: a
	// range is centred on it, estimate.Live.Forecast).
	spread90 float64
	samples  int
	finishes []finishAt // recent forecasts, for the trend
	// begun is closed at the first job start: the queue has told every
	// job it skipped (a resume) and queued by then.
	begun     chan struct{}
	beginOnce sync.Once
	// wake hears the first job of a kind that ends: evidence of a group
	// the forecasts had only the prior for (Run forecasts again as soon
	// as MinInterval allows). ended has the kinds seen end.
	wake  chan struct{}
	ended map[schedule.Kind]bool
}

type finishAt struct{ at, finish time.Time }

// trendLag: the trend compares the finish with the one forecast this long
// before.
const trendLag = 30 * time.Second

// trend records the forecast made at now and compares it with the newest
// one at least trendLag older: later by more than 5 % of the time left
// (or 10 s) is rising. Called with the lock held.
func (t *Tracker) trend(now, finish time.Time) string {
	t.finishes = append(t.finishes, finishAt{now, finish})
	cut := 0
	for cut+1 < len(t.finishes) && now.Sub(t.finishes[cut+1].at) >= trendLag {
		cut++
	}
	t.finishes = t.finishes[cut:]
	then := t.finishes[0]
	if now.Sub(then.at) < trendLag {
		return ""
	}
	diff := finish.Sub(then.finish)
	tol := max(finish.Sub(now)/20, 10*time.Second)
	switch {
	case diff > tol:
		return "rising"
	case diff < -tol:
		return "falling"
	}
	return "steady"
}

type job struct {
	kind    schedule.Kind
	done    bool
	running bool
	started time.Time
	bytes   int64 // so far
	total   int64 // expected
	// progressed is when bytes last grew (a job reporting whole parts
	// spends the time after on the next one).
	progressed time.Time
}

var _ event.Sink = (*Tracker)(nil)

// New returns a tracker; feed it the run's events (Emit) and Run it.
func New(cfg Config) *Tracker {
	if cfg.Samples == 0 {
		cfg.Samples = DefaultSamples
	}
	if cfg.MinInterval <= 0 {
		cfg.MinInterval = DefaultMinInterval
	}
	if cfg.Budget <= 0 {
		cfg.Budget = DefaultBudget
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Tracker{cfg: cfg, jobs: map[string]*job{}, sections: map[string]estimate.Section{}, slots: map[string]int{}, begun: make(chan struct{}),
		wake: make(chan struct{}, 1), ended: map[schedule.Kind]bool{}}
}

// Emit folds one event (O(1); called from the run's goroutines).
func (t *Tracker) Emit(e event.Event) {
	if e.Kind == event.TuneKind && e.Tune != nil {
		t.mu.Lock()
		t.slots[e.Tune.Slot] = e.Tune.To // the forecasts after it queue through the new limit
		t.mu.Unlock()
		return
	}
	if e.Job == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	j := t.jobs[e.Job]
	if j == nil {
		j = &job{kind: schedule.Kind(e.JobKind)}
		t.jobs[e.Job] = j
	}
	if e.TotalBytes > 0 {
		j.total = e.TotalBytes
	}
	switch e.Kind {
	case event.JobQueued, event.JobRetry:
		j.done, j.running = false, false
		if _, known := t.sections[e.Job]; j.kind == schedule.KindLoad && e.Table != "" && (e.TotalBytes > 0 || !known) {
			t.sections[e.Job] = estimate.Section{Table: e.Table, Section: sectionOf(e.Job), Records: e.TotalRecords, Bytes: e.TotalBytes}
		}
	case event.JobStarted:
		j.running, j.done, j.started, j.bytes = true, false, e.Time, 0
		t.beginOnce.Do(func() { close(t.begun) })
	case event.JobProgress:
		if e.Bytes > j.bytes {
			j.bytes, j.progressed = e.Bytes, e.Time
		}
	case event.JobFinished:
		j.running, j.done = false, true
		if e.Elapsed > 0 {
			t.finished = append(t.finished, estimate.Finished{Job: e.Job, Start: e.Time.Add(-e.Elapsed), Elapsed: e.Elapsed})
		}
		if !t.ended[j.kind] {
			t.ended[j.kind] = true
			select {
			case t.wake <- struct{}{}:
			default: // a wake-up is pending already
			}
		}
	case event.JobSkipped:
		j.running, j.done = false, true
	case event.JobFailed, event.JobCancelled:
		j.running, j.done = false, false
	}
}

// sectionOf is the .bd section of a load's ID: "load:T:3" is 3, "load:T" 1.
func sectionOf(id string) int {
	if i := strings.LastIndexByte(id, ':'); i > len("load:") {
		if n, err := strconv.Atoi(id[i+1:]); err == nil {
			return n
		}
	}
	return 1
}

// Left is the run at now, as the forecast takes it.
func (t *Tracker) Left(now time.Time) estimate.Left {
	t.mu.Lock()
	defer t.mu.Unlock()
	left := estimate.Left{Now: now, Done: map[string]bool{}, Running: map[string]estimate.Running{},
		Finished: append([]estimate.Finished(nil), t.finished...)}
	for id, j := range t.jobs {
		switch {
		case j.done:
			left.Done[id] = true
		case j.running:
			r := estimate.Running{Elapsed: max(0, now.Sub(j.started))}
			if j.total > 0 && j.bytes > 0 {
				r.Fraction = min(1, float64(j.bytes)/float64(j.total))
				r.ProgressAt = max(0, j.progressed.Sub(j.started))
			}
			left.Running[id] = r
		}
	}
	for _, s := range t.sections {
		left.Sections = append(left.Sections, s)
	}
	if len(t.slots) > 0 {
		left.Slots = maps.Clone(t.slots)
	}
	return left
}

// Forecast computes the ETA now, with its range (full) or with the last
// range's spread around it, and sends it out (and to Path).
func (t *Tracker) Forecast(ctx context.Context, full bool) (*event.ETA, error) {
	now := t.cfg.Now()
	left := t.Left(now)
	t.mu.Lock()
	seed := t.n
	t.n++
	t.mu.Unlock()
	samples := 0
	if full {
		samples = t.cfg.Samples
	}
	cpu := cpuTime()
	f, err := t.cfg.Live.Forecast(ctx, left, samples, seed)
	if err != nil {
		return nil, err
	}
	e := &event.ETA{Remaining: f.Remaining, P50: f.P50, P90: f.P90, Finish: now.Add(f.Remaining),
		BoundBy: f.BoundBy, QueueBound: f.QueueBound, Overdue: f.Overdue, IdxbuildExpected: f.IdxbuildExpected,
		Factors: f.Factors, Samples: f.Samples, CPU: cpuTime() - cpu}
	t.mu.Lock()
	e.Trend = t.trend(now, e.Finish)
	switch {
	case full && f.Remaining > 0:
		t.spread90, t.samples = float64(f.P90)/float64(f.Remaining), f.Samples
	case !full && t.samples > 0:
		e.P90 = max(f.Remaining, time.Duration(t.spread90*float64(f.Remaining)).Round(time.Millisecond))
		e.Samples = t.samples
	}
	t.mu.Unlock()
	ev := event.Event{V: event.SchemaVersion, Time: now, Kind: event.ETAKind, ETA: e}
	t.cfg.Out.Emit(ev)
	if t.cfg.TracePath != "" {
		if err := t.trace(ev, left, f); err != nil {
			return e, err
		}
	}
	if t.cfg.Path != "" {
		if data, err := json.Marshal(ev); err == nil {
			if err := atomicfile.WriteFileNoSync(t.cfg.Path, append(data, '\n')); err != nil {
				return e, err
			}
		}
	}
	return e, nil
}

// Run forecasts when the first job starts, then again and again until ctx
// ends: after MinInterval, and after as long as keeps the forecasts
// within half the budget, and their ranges (Samples more simulations, so
// less often) within the other half.
func (t *Tracker) Run(ctx context.Context) {
	select {
	case <-ctx.Done():
		return
	case <-t.begun:
	}
	half := t.cfg.Budget / 2
	var nextRange time.Time
	for {
		now := t.cfg.Now()
		full := !now.Before(nextRange)
		wait := t.cfg.MinInterval
		e, err := t.Forecast(ctx, full)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			if t.cfg.OnError != nil {
				t.cfg.OnError(err)
			}
		case full:
			nextRange = now.Add(max(t.cfg.MinInterval, time.Duration(float64(e.CPU)/half)))
			one := e.CPU / time.Duration(t.cfg.Samples+1)
			wait = max(wait, time.Duration(float64(one)/half))
		default:
			wait = max(wait, time.Duration(float64(e.CPU)/half))
		}
		if !t.sleep(ctx, wait) {
			return
		}
	}
}

// sleep waits wait, or MinInterval when the first job of a kind ends
// meanwhile: the forecast before it had only that group's prior, and the
// budget's wait (for the 529 tables of an erp run, 3 to 6 s) could let the
// screen show it well into a phase that is already proving it wrong (an
// erp run's ETA halfway through was the one made before its first load
// ended: +31 %). At most one early forecast per kind of job in a run.
// false when ctx ends.
func (t *Tracker) sleep(ctx context.Context, wait time.Duration) bool {
	start := time.Now()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	wake := t.wake
	for {
		select {
		case <-ctx.Done():
			return false
		case <-timer.C:
			return true
		case <-wake:
			wake = nil
			least := t.cfg.MinInterval - time.Since(start)
			if least <= 0 {
				return true
			}
			if least < wait {
				timer.Reset(least)
			}
		}
	}
}

// cpuTime is the process's CPU time so far. A forecast's is its
// difference: it counts the rest of oedl over the same moment too, which
// errs on the side of forecasting less often.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
