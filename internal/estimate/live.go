package estimate

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"time"

	"golang.org/x/sync/errgroup"

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
	Done    map[string]bool    // ended well (this invocation or an earlier one)
	Running map[string]Running // under way
	// Sections are the loads of .bd sections the threaded dumps have
	// added so far (they are not in the graph Build makes).
	Sections []Section
	// Finished are the jobs that ended well in this invocation, with the
	// time they took: the evidence.
	Finished []Finished
}

// Running is a job under way.
type Running struct {
	Elapsed time.Duration
	// Fraction is the share of its bytes done, from its progress events (0
	// when it has reported none: a start-up, or a job that reports nothing
	// until it ends).
	Fraction float64
}

// Section is the load of one .bd section of a threaded dump.
type Section struct {
	Table          string
	Section        int // 1 is table.bd, N table.bdN
	Records, Bytes int64
}

// Finished is a job that ended well, and the time it took.
type Finished struct {
	Job     string
	Elapsed time.Duration
}

// Forecast is the time a run has left.
type Forecast struct {
	Remaining time.Duration // the model with this run's factors
	P50, P90  time.Duration // the range over the factors' and the jobs' spread
	Samples   int
	// BoundBy is the table whose dump and loads the finish waits for (""
	// when none); QueueBound, when the critical path of what is left
	// spends more than half its time waiting for slots.
	BoundBy    string
	QueueBound bool
	// Overdue names a job that reports nothing until it ends (idxbuild)
	// and has run past its predicted time: the remaining time is a guess.
	Overdue string
	// IdxbuildExpected is the duration predicted for the running index
	// rebuild (0 when none runs).
	IdxbuildExpected time.Duration
	Factors          map[string]Factors
}

// Live is the estimate of one run before it started, kept so the work it
// has left can be estimated again as it goes.
type Live struct {
	in     Input
	m      *Model
	cc     costContext
	before *Estimate
	// pred is what the estimate before the run predicted for each job
	// (its start-up and its work, seconds, the work under the contention
	// the simulation had); ratio, per group, the predicted work against
	// the work alone, for jobs it did not have (sections of other sizes).
	pred  map[string]prediction
	ratio map[string]float64
}

type prediction struct {
	group         string
	startup, work float64
}

// NewLive keeps the estimate of in (Run's result) for live forecasts.
func NewLive(in Input, before *Estimate) (*Live, error) {
	if before == nil || before.sim == nil {
		return nil, errors.New("live estimate: no estimate before the run")
	}
	l := &Live{in: in, m: in.model(), cc: in.context(), before: before, pred: map[string]prediction{}, ratio: map[string]float64{}}
	spanWork, aloneWork := map[string]float64{}, map[string]float64{}
	for _, sp := range before.sim.result.Spans {
		j := sp.Job
		w := l.m.work(j, l.cc)
		total := sp.End.Sub(sp.Start).Seconds()
		s := math.Min(total, l.startupOf(j, w))
		g := groupOf(j.Kind)
		l.pred[j.ID] = prediction{group: g, startup: s, work: total - s}
		spanWork[g] += total - s
		aloneWork[g] += math.Max(0, aloneDuration(w, l.cc.hw).Seconds()-s)
	}
	for g, a := range aloneWork {
		if a > 0 {
			l.ratio[g] = spanWork[g] / a
		}
	}
	return l, nil
}

// Before is the estimate the run started with.
func (l *Live) Before() *Estimate { return l.before }

// startupOf is the part of a job's predicted time that is its start-up
// (waiting and its CPU), whatever its table.
func (l *Live) startupOf(j *schedule.Job, w jobWork) float64 {
	switch j.Kind {
	case schedule.KindDump:
		return l.m.Dump.StartupSec
	case schedule.KindLoad:
		return l.m.Load.StartupSec
	case schedule.KindAnalyzeSource, schedule.KindAnalyzeTarget:
		return l.m.Tabanalys.StartupSec
	case schedule.KindIdxbuild:
		return w.startup + math.Min(l.m.Idxbuild.StartupCPUSec, l.m.Idxbuild.StartupSec)
	}
	return w.startup
}

// predictionOf is the estimate's prediction for j, or, for a job it did
// not have, the model's alone at the contention the estimate had for its
// group.
func (l *Live) predictionOf(j *schedule.Job) prediction {
	if p, ok := l.pred[j.ID]; ok && !(j.Kind == schedule.KindLoad && j.Section > 0) {
		return p
	}
	w := l.m.work(j, l.cc)
	s := l.startupOf(j, w)
	g := groupOf(j.Kind)
	work := math.Max(0, aloneDuration(w, l.cc.hw).Seconds()-s)
	if r := l.ratio[g]; r > 0 {
		work *= r
	}
	return prediction{group: g, startup: math.Min(s, s+work), work: work}
}

// fineProgress: the kinds whose progress events measure their bytes as
// they go (a dump's files, a load's read offset); the others report
// nothing, or only whole areas (idxbuild), until they end.
func fineProgress(k schedule.Kind) bool { return k == schedule.KindDump || k == schedule.KindLoad }

// minPartial is the share of a running dump or load done before its pace
// counts as evidence.
const minPartial = 0.05

// Forecast estimates the time left: the left work simulated with the
// factors this run's evidence gives, then samples more runs with the
// factors and the jobs drawn from their spread (seeded: the same state
// gives the same range).
func (l *Live) Forecast(ctx context.Context, left Left, samples int, seed uint64) (*Forecast, error) {
	lg, err := l.leftGraph(left)
	if err != nil {
		return nil, err
	}
	obs := l.observations(left, lg)
	fit := fitFactors(obs)
	plan := &liveWork{l: l, left: &left, lg: lg, fit: fit, record: true}
	central, err := l.in.simulateFrom(ctx, l.m, plan.adjust, lg)
	if err != nil {
		return nil, err
	}
	plan.record = false // the samples run in parallel: only the central one tells
	f := &Forecast{Remaining: central.result.Elapsed(), Factors: fit, Overdue: plan.overdue, IdxbuildExpected: plan.idxExpected}
	f.BoundBy, f.QueueBound = boundOf(criticalPath(central))
	f.P50, f.P90 = f.Remaining, f.Remaining
	if samples > 0 {
		noise := l.noise(obs, fit)
		left := make([]time.Duration, samples)
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(runtime.GOMAXPROCS(0))
		for i := range samples {
			g.Go(func() error {
				perturb := noise.sample(seed, uint64(i), plan.adjust)
				sim, err := l.in.simulateFrom(gctx, l.m, perturb, lg)
				if err != nil {
					return err
				}
				left[i] = sim.result.Elapsed()
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			return nil, err
		}
		sort.Slice(left, func(a, b int) bool { return left[a] < left[b] })
		f.P50, f.P90, f.Samples = quantile(left, 0.5), quantile(left, 0.9), samples
	}
	return f, nil
}

// leftGraph is what simulateFrom needs to turn the plan's graph into the
// graph of the work left.
type leftGraph struct {
	done     map[string]bool
	running  map[string]Running
	sections []Section
	landed   map[string]map[int]bool // table -> sections already in the graph
}

func (l *Live) leftGraph(left Left) (*leftGraph, error) {
	lg := &leftGraph{done: left.Done, running: left.Running, landed: map[string]map[int]bool{}}
	for _, s := range left.Sections {
		if s.Section < 1 {
			continue
		}
		if lg.landed[s.Table] == nil {
			lg.landed[s.Table] = map[int]bool{}
		}
		if !lg.landed[s.Table][s.Section] {
			lg.landed[s.Table][s.Section] = true
			lg.sections = append(lg.sections, s)
		}
	}
	return lg, nil
}

// runningFirst lifts a running job above every other ready job, so the
// simulated queue starts first what the run already has under way.
const runningFirst = time.Duration(1) << 52

// extend adds the sections landed so far to the graph Build made (with
// their place before the load barrier, as the dispatcher adds them) and
// puts the running jobs at the head of the queue.
func (lg *leftGraph) extend(built *schedule.Built) error {
	if len(lg.sections) > 0 {
		jobs := append([]*schedule.Job(nil), built.Jobs()...)
		barrier := built.Job(built.LoadBarrier)
		for _, s := range lg.sections {
			dump := built.Job(schedule.DumpID(s.Table))
			if dump == nil || dump.Threads <= 1 || built.Job(schedule.LoadID(s.Table, s.Section)) != nil {
				continue // not dumped in sections in this graph, or there already
			}
			j := built.SectionLoad(dump, s.Section, s.Records, s.Bytes)
			j.Before = nil
			barrier.Deps = append(barrier.Deps, j.ID)
			jobs = append(jobs, j)
		}
		g, err := schedule.NewGraph(jobs)
		if err != nil {
			return err
		}
		built.Graph = g
	}
	for id := range lg.running {
		if j := built.Job(id); j != nil {
			j.TailCost += runningFirst
		}
	}
	return nil
}

// observations are the evidence: every job finished in this invocation,
// and the part done of the running dumps and loads far enough along.
func (l *Live) observations(left Left, lg *leftGraph) []observation {
	built, err := schedule.Build(l.in.Plan, l.in.Strategy.BuildOptions(l.queueCost()))
	if err != nil {
		return nil
	}
	if err := lg.extend(built); err != nil {
		return nil
	}
	var obs []observation
	for _, f := range left.Finished {
		j := built.Job(f.Job)
		if j == nil || f.Elapsed <= 0 {
			continue // a repair, or a job of another graph
		}
		p := l.predictionOf(j)
		obs = append(obs, observation{group: p.group, actual: f.Elapsed.Seconds(), startup: p.startup, work: p.work})
	}
	ids := make([]string, 0, len(left.Running))
	for id := range left.Running {
		ids = append(ids, id)
	}
	sort.Strings(ids) // a fixed order: the fit's sums do not depend on map order
	for _, id := range ids {
		r := left.Running[id]
		j := built.Job(id)
		if j == nil || !fineProgress(j.Kind) || r.Fraction < minPartial {
			continue
		}
		p := l.predictionOf(j)
		obs = append(obs, observation{group: p.group, actual: r.Elapsed.Seconds(), startup: p.startup, work: p.work * math.Min(1, r.Fraction)})
	}
	return obs
}

func (l *Live) queueCost() func(*schedule.Job) time.Duration {
	if l.in.QueueCost != nil {
		return l.in.QueueCost
	}
	return func(j *schedule.Job) time.Duration { return aloneDuration(l.m.work(j, l.cc), l.cc.hw) }
}

// liveWork turns a job of the left graph into the work it has left, with
// this run's factors.
type liveWork struct {
	l    *Live
	left *Left
	lg   *leftGraph
	fit  map[string]Factors
	// record: adjust notes what it finds (the central simulation only).
	record      bool
	overdue     string
	idxExpected time.Duration
}

// adjust scales j's work: a job not started by its group's factors; a
// running one by what it has left, at its own pace where it shows one.
func (lw *liveWork) adjust(j *schedule.Job, w *jobWork) {
	f := lw.fit[groupOf(j.Kind)]
	r, running := lw.left.Running[j.ID]
	if !running {
		w.startup *= f.Startup
		scaleFlows(w.flows, f.Work)
		return
	}
	p := lw.l.predictionOf(j)
	elapsed := r.Elapsed.Seconds()
	if fineProgress(j.Kind) && r.Fraction > 0 {
		done := math.Min(r.Fraction, 0.999)
		// Its own pace so far against its prediction, weighed by the
		// share of it done (the evidence it is).
		pace := 1.0
		if body := done * f.Work * p.work; body > 0 {
			pace = clampFactor((elapsed - math.Min(elapsed, f.Startup*p.startup)) / body)
		}
		k := f.Work * ((1 - done) + done*pace)
		w.startup = 0
		lw.scaleRunning(j, w, k, done)
		return
	}
	// It reports nothing until it ends: count down from its prediction.
	expected := f.Startup*p.startup + f.Work*p.work
	rest := 1.0
	if expected > 0 {
		rest = (expected - elapsed) / expected
		if j.Kind == schedule.KindIdxbuild {
			if lw.record {
				lw.idxExpected = seconds(expected)
			}
			if r.Fraction > 0 { // the areas it has finished
				rest = math.Min(rest, 1-r.Fraction)
			}
		}
		if rest <= 0 {
			if lw.record {
				lw.overdue = j.ID
			}
			rest = math.Max(elapsed/10, 1) / expected
		}
	}
	w.startup *= f.Startup * rest
	scaleFlows(w.flows, f.Work*rest)
}

// scaleRunning scales a running dump or load to the share it has left;
// the brackets of a threaded dump whose sections have landed are done.
func (lw *liveWork) scaleRunning(j *schedule.Job, w *jobWork, k, done float64) {
	landed := lw.lg.landed[j.Table]
	if !w.sections || len(landed) == 0 {
		scaleFlows(w.flows, k*(1-done))
		return
	}
	shares := bracketShares(len(w.flows), lw.l.m.BracketSkew)
	var gone float64
	for i := range w.flows {
		if landed[i+1] {
			gone += shares[i]
		}
	}
	rest := 1.0
	if gone < 1 {
		rest = math.Min(1, math.Max(0, (1-done)/(1-gone)))
	}
	for i := range w.flows {
		s := k * rest
		if landed[i+1] {
			s = 0
		}
		scaleFlows(w.flows[i:i+1], s)
	}
}

func scaleFlows(flows []flowDemand, k float64) {
	for i := range flows {
		f := &flows[i]
		f.cpu *= k
		f.bytes *= k
		f.ops *= k
		f.waits *= k
	}
}

// liveNoise is the spread of a forecast: the model's shared factors (CPU,
// disk, start-up), narrowed for each group by the evidence behind its
// factors, and a factor per job drawn from this run's own residuals once
// it has enough of them.
type liveNoise struct {
	u         Uncertainty
	shrink    map[string]float64
	residuals []float64
}

func (l *Live) noise(obs []observation, fit map[string]Factors) liveNoise {
	n := liveNoise{u: l.m.Uncertainty, shrink: map[string]float64{}}
	for g, f := range fit {
		n.shrink[g] = shrink(f.Evidence)
	}
	if r := runResiduals(obs, fit); len(r) >= minTrim {
		n.residuals = r
	} else {
		n.residuals = l.m.Uncertainty.Residuals
	}
	return n
}

// sample is the perturbation of sample i: adjust, then the noise.
func (n liveNoise) sample(seed, i uint64, adjust func(*schedule.Job, *jobWork)) func(*schedule.Job, *jobWork) {
	rng := rand.New(rand.NewPCG(seed, i))
	cpu, io, start := rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()
	return func(j *schedule.Job, w *jobWork) {
		adjust(j, w)
		s := n.shrink[groupOf(j.Kind)]
		jr := rand.New(rand.NewPCG(seed^i<<32, hashID(j.ID)))
		f := lognormal(jr, n.u.Job)
		if k := len(n.residuals); k > 0 {
			f = math.Exp(n.residuals[jr.IntN(k)])
		}
		w.startup *= math.Exp(s*n.u.Startup*start) * f
		for k := range w.flows {
			fl := &w.flows[k]
			c, d := math.Exp(s*n.u.CPU*cpu)*f, math.Exp(s*n.u.IO*io)*f
			fl.cpu *= c
			fl.bytes *= d
			fl.ops *= d
			fl.waits *= d
		}
	}
}

// boundOf reads the critical path of what is left: one table's dump and
// loads, or the queue (its dumps and loads waited more than they ran).
func boundOf(path []PathStep) (table string, queue bool) {
	var waited Seconds
	var first, last *PathStep
	for i := range path {
		s := &path[i]
		if s.Kind != string(schedule.KindDump) && s.Kind != string(schedule.KindLoad) {
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
	out := &event.Estimate{Window: e.Window.D(), Model: e.ModelOrigin}
	if e.Range != nil {
		out.P50, out.P90 = e.Range.P50.D(), e.Range.P90.D()
	}
	res := e.sim.result
	spans := map[schedule.Phase]*event.PhaseEstimate{}
	for _, sp := range res.Spans {
		p := schedule.PhaseOf(sp.Job.Kind)
		if p == "" {
			continue
		}
		start, end := sp.Start.Sub(res.Start), sp.End.Sub(res.Start)
		if s := spans[p]; s != nil {
			s.Start, s.End = min(s.Start, start), max(s.End, end)
			continue
		}
		spans[p] = &event.PhaseEstimate{Phase: string(p), Start: start, End: end}
	}
	for _, p := range schedule.Phases {
		if s := spans[p]; s != nil {
			out.Phases = append(out.Phases, *s)
		}
	}
	return out
}
