package estimate

import (
	"context"
	"errors"
	"time"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/schedule"
)

// The live ETA is the estimate re-run over the work a run has left: the
// same graph (schedule.Build with the run's options), the same queue
// (schedule.Dispatch) on the simulated clock, with the jobs done skipped,
// the running ones started first with the part they have left, and the
// model's costs corrected by what this run measured so far (evidence.go).
// So in the tail of hundreds of small tables the ETA is what the queue
// makes of their start-ups, not their bytes at the throughput of the big
// ones, and while one big table dumps it is that table's pace.

// Left is what a run has done and is doing at one moment, by the stable
// job IDs its events carry.
type Left struct {
	Now     time.Time
	Done    map[string]bool    // ended well (this invocation or an earlier one)
	Running map[string]Running // under way
	// Sections are the loads of .bd sections the threaded dumps have
	// added so far (they are not in the graph Build makes).
	Sections []Section
	// Finished are the jobs that ended well in this invocation, with when
	// they started and the time they took: the evidence.
	Finished []Finished
	// Slots are the limits the run's tuner has set (oedl run --tune), by
	// slot ("dump", "load"): the work left queues through them, not
	// through the run's start. Nil: the run's own slots throughout.
	Slots map[string]int
}

// Running is a job under way.
type Running struct {
	Elapsed time.Duration `json:"elapsed_ns"`
	// Fraction is the share of its bytes done, from its progress events (0
	// when it has reported none: a start-up, or a job that reports nothing
	// until it ends).
	Fraction float64 `json:"fraction,omitempty"`
	// ProgressAt is the time it had run when it reported Fraction (0:
	// now). A job that reports only whole parts (idxbuild's areas) has
	// spent the time since on the next part: its pace is Fraction in
	// ProgressAt, not in Elapsed.
	ProgressAt time.Duration `json:"progress_at_ns,omitempty"`
}

// Section is the load of one .bd section of a threaded dump.
type Section struct {
	Table          string
	Section        int // 1 is table.bd, N table.bdN
	Records, Bytes int64
}

// Finished is a job that ended well: when it started, the time it took.
type Finished struct {
	Job     string
	Start   time.Time
	Elapsed time.Duration
}

// Forecast is the time a run has left.
type Forecast struct {
	Remaining time.Duration // the model with this run's factors
	// P50 is Remaining; P90 is Remaining stretched by the spread of the
	// simulations with the factors and the jobs drawn (rangeAround).
	P50, P90 time.Duration
	Samples  int
	// BoundBy is the table whose dump and loads the finish waits for (""
	// when none); QueueBound, when the critical path of what is left
	// spends more than half its time waiting for slots.
	BoundBy    string
	QueueBound bool
	// Overdue names a job that reports nothing until it ends (idxbuild)
	// and has run past its predicted time by enough to matter (overdueMin,
	// overdueShare): the remaining time is a guess.
	Overdue string
	// IdxbuildExpected is the duration predicted for the running index
	// rebuild (0 when none runs).
	IdxbuildExpected time.Duration
	Factors          map[string]Factors
	// Jobs is the central simulation's plan of the work left, each job's
	// start and end from now, in the order they end: what a trace of the
	// ETA (eta.Config.TracePath) compares with what the run then did.
	Jobs []JobForecast
}

// A job past its prediction makes the forecast a guess (Forecast.Overdue,
// "ETA unknown" on the screen) only when it is late by a second and a
// tenth of the time left at least: a tiny table's dump a few tenths late,
// as half of them are, said nothing of the finish, and on an 873-table
// run it turned the ETA to "unknown" a quarter of the time (nu-trial10).
// Its guess (a tenth of the time it has run) is in the forecast either way.
const (
	overdueMin   = time.Second
	overdueShare = 10
)

// JobForecast is one job of the work left as the forecast simulated it.
type JobForecast struct {
	Job     string        `json:"job"`
	Kind    string        `json:"kind"`
	Start   time.Duration `json:"start_ns"` // from the forecast's moment
	End     time.Duration `json:"end_ns"`
	Running bool          `json:"running,omitempty"`
	// Loads are the IDs the run gives a batch's loads (load:T): the run
	// tells a batch as its tables.
	Loads []string `json:"loads,omitempty"`
}

// Live is the estimate of one run before it started, kept so the work it
// has left can be estimated again as it goes.
type Live struct {
	in     Input
	m      *Model
	cc     costContext
	before *Estimate
}

// NewLive keeps the estimate of in (Run's result) for live forecasts.
func NewLive(in Input, before *Estimate) (*Live, error) {
	if before == nil || before.sim == nil {
		return nil, errors.New("live estimate: no estimate before the run")
	}
	return &Live{in: in, m: in.model(), cc: in.context(), before: before}, nil
}

// Before is the estimate the run started with.
func (l *Live) Before() *Estimate { return l.before }

// Forecast estimates the time left: the left work simulated with the
// factors this run's evidence gives, then samples more runs with the
// factors and the jobs drawn from their spread (seeded: the same state
// gives the same range).
func (l *Live) Forecast(ctx context.Context, left Left, samples int, seed uint64) (*Forecast, error) {
	lg, err := l.leftGraph(left)
	if err != nil {
		return nil, err
	}
	obs, running := l.evidence(left, lg)
	fit := fitFactors(l.m.Calibrated(), obs)
	if late := overdueEvidence(lg, running, fit); len(late) > 0 {
		fit = fitFactors(l.m.Calibrated(), obs, late...)
	}
	plan := &liveWork{l: l, lg: lg, fit: fit, pred: running, record: true}
	in := l.in // a copy: the tuned slots are this forecast's
	if len(left.Slots) > 0 {
		in.slots = map[schedule.Slot]int{}
		for slot, n := range left.Slots {
			in.slots[schedule.Slot(slot)] = n
		}
	}
	central, err := in.simulateFrom(ctx, l.m, plan.adjust, lg)
	if err != nil {
		return nil, err
	}
	plan.record = false // the samples run in parallel: only the central one tells
	f := &Forecast{Remaining: central.result.Elapsed(), Factors: fit, IdxbuildExpected: plan.idxExpected}
	if plan.overdue != "" && plan.overrun >= max(overdueMin, f.Remaining/overdueShare) {
		f.Overdue = plan.overdue
	}
	f.BoundBy, f.QueueBound = boundOf(criticalPath(central))
	f.Jobs = jobsOf(central, lg)
	f.P50, f.P90 = f.Remaining, f.Remaining
	if samples > 0 {
		noise := l.noise(obs, fit)
		left, err := sampleRuns(ctx, samples, func(ctx context.Context, i int) (*simulation, error) {
			return in.simulateFrom(ctx, l.m, noise.sample(seed, uint64(i), plan.adjust), lg)
		})
		if err != nil {
			return nil, err
		}
		f.P50, f.P90 = rangeAround(f.Remaining, left)
		f.Samples = samples
	}
	return f, nil
}

// rangeAround is a forecast's range from its samples (shortest first):
// P50 the forecast itself, P90 the forecast stretched as far as the
// samples' P90 lies above their median. Not the samples' own quantiles:
// their median lies above the forecast (by a few per cent, by up to 60 %
// on the recorded sports runs), since each job's draw, exp(residual), has
// a mean above 1 on top of factors that already fit this run's times by
// least squares, and a parallel schedule's end is the maximum of its
// paths, which independent noise lengthens. The screen then showed an ETA
// below its own range ("48 s [50–68]") and in the recorded runs the
// forecast was the closer of the two (docs/decisions.md). The samples
// tell how uncertain the forecast is, not where it lies.
func rangeAround(forecast time.Duration, sorted []time.Duration) (p50, p90 time.Duration) {
	median, q90 := quantile(sorted, 0.5), quantile(sorted, 0.9)
	if median <= 0 {
		return forecast, forecast
	}
	stretched := time.Duration(float64(forecast) * float64(q90) / float64(median)).Round(time.Millisecond)
	return forecast, max(forecast, stretched)
}

// jobsOf lists the jobs a simulation of the work left ran.
func jobsOf(s *simulation, lg *leftGraph) []JobForecast {
	res := s.result
	out := make([]JobForecast, 0, len(res.Spans))
	for _, sp := range res.Spans {
		_, running := lg.running[sp.Job.ID]
		jf := JobForecast{Job: sp.Job.ID, Kind: string(sp.Job.Kind),
			Start: sp.Start.Sub(res.Start), End: sp.End.Sub(res.Start), Running: running}
		for _, m := range sp.Job.Members {
			jf.Loads = append(jf.Loads, schedule.LoadID(m.Table, 0))
		}
		out = append(out, jf)
	}
	return out
}

func (l *Live) queueCost() func(*schedule.Job) time.Duration {
	if l.in.QueueCost != nil {
		return l.in.QueueCost
	}
	return func(j *schedule.Job) time.Duration { return aloneDuration(l.m.work(j, l.cc), l.cc.hw) }
}

// boundOf reads the critical path of what is left: one table's dump and
// loads, or the queue (its dumps and loads waited more than they ran).
func boundOf(path []PathStep) (table string, queue bool) {
	var waited Seconds
	var first, last *PathStep
	for i := range path {
		s := &path[i]
		switch schedule.Kind(s.Kind) {
		case schedule.KindDump, schedule.KindLoad, schedule.KindLoadBatch:
		default:
			continue
		}
		if first == nil {
			first = s
		}
		last = s
		waited += s.Waited
	}
	if first == nil {
		return "", false
	}
	span := last.End - first.Start + first.Waited
	if span > 0 && 2*waited > span {
		return "", true
	}
	return last.Table, false
}

// Event is the estimate as run_started carries it: the window, its range,
// and its phases as the run names them (schedule.PhaseOf, the screen's and
// the report's phases).
func (e *Estimate) Event() *event.Estimate {
	out := &event.Estimate{Window: e.Window.D(), Model: e.ModelOrigin, Priors: e.Priors}
	if e.Range != nil {
		out.P50, out.P90 = e.Range.P50.D(), e.Range.P90.D()
	}
	res := e.sim.result
	var ph phaseSpans
	for _, sp := range res.Spans {
		ph.add(sp.Job.Kind, sp.Start.Sub(res.Start), sp.End.Sub(res.Start))
	}
	out.Phases = ph.list()
	return out
}

// phaseSpans gathers the phases of an estimate from its jobs' times.
type phaseSpans map[schedule.Phase]*event.PhaseEstimate

// add counts a job of kind k from start to end in its phase (none: a job
// outside the run's phases).
func (ps *phaseSpans) add(k schedule.Kind, start, end time.Duration) {
	p := schedule.PhaseOf(k)
	if p == "" {
		return
	}
	if *ps == nil {
		*ps = phaseSpans{}
	}
	if s := (*ps)[p]; s != nil {
		s.Start, s.End = min(s.Start, start), max(s.End, end)
		return
	}
	(*ps)[p] = &event.PhaseEstimate{Phase: string(p), Start: start, End: end}
}

// list is the phases in the run's order.
func (ps phaseSpans) list() []event.PhaseEstimate {
	var out []event.PhaseEstimate
	for _, p := range schedule.Phases {
		if s := ps[p]; s != nil {
			out = append(out, *s)
		}
	}
	return out
}

// Resumed is the estimate a resume opens with, as run_started carries it:
// the work left (left.Done: the jobs the journal has finished), from now,
// with the model's costs as Before's (no evidence yet: left.Finished is
// this invocation's). Before's window is the whole migration again, which
// the first forecast then corrected (docs/decisions.md, est-advice).
func (l *Live) Resumed(ctx context.Context, left Left, samples int, seed uint64) (*event.Estimate, error) {
	f, err := l.Forecast(ctx, left, samples, seed)
	if err != nil {
		return nil, err
	}
	out := &event.Estimate{Window: f.Remaining, Model: l.before.ModelOrigin, Priors: l.before.Priors}
	if f.Samples > 0 {
		out.P50, out.P90 = f.P50, f.P90
	}
	var ph phaseSpans
	for _, j := range f.Jobs {
		ph.add(schedule.Kind(j.Kind), j.Start, j.End)
	}
	out.Phases = ph.list()
	return out, nil
}
