package estimate

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/oedl/oedl/internal/schedule"
)

// liveWork turns a job of the left graph into the work it has left, with
// this run's factors.
type liveWork struct {
	l    *Live
	lg   *leftGraph // the work left, by the graph's job IDs
	fit  map[string]Factors
	pred map[string]prediction // of the running jobs
	// record: adjust notes what it finds (the central simulation only).
	record bool
	// overdue is the running job that ran furthest past its prediction
	// (overrun, by how much); Forecast tells it only when that matters.
	overdue     string
	overrun     time.Duration
	idxExpected time.Duration
}

// adjust scales j's work: a job not started by its group's factors; a
// running one by what it has left, at its own pace where it shows one.
func (lw *liveWork) adjust(j *schedule.Job, w *jobWork) {
	f := lw.fit[groupOf(j.Kind)]
	r, running := lw.lg.running[j.ID]
	if !running {
		w.startup *= f.Startup
		scaleFlows(w.flows, f.Work)
		return
	}
	p, ok := lw.pred[j.ID]
	if !ok {
		w0 := *w
		p = lw.l.split(j, w0, aloneDuration(w0, lw.l.cc.hw).Seconds())
	}
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
	// It reports nothing until it ends (or, idxbuild, only the areas it
	// has finished): count down from its prediction; past it, it is
	// overdue and a tenth of the time it has run is the guess. The share
	// of its bytes in finished areas, when it reports one, is its own
	// pace, weighed by that share as a dump's is: the share done in the
	// time it had run when the last area ended, since the time after it
	// went into an area not yet counted (dividing the time so far by the
	// share counted that time as producing nothing: a sports rebuild
	// 11 s into 26, 19 % reported at 7 s, was paced at 58 s).
	expected := f.Startup*p.startup + f.Work*p.work
	if expected <= 0 {
		return
	}
	if j.Kind == schedule.KindIdxbuild && lw.record {
		lw.idxExpected = seconds(expected)
	}
	total := expected
	if elapsed >= expected {
		if over := seconds(elapsed - expected); lw.record && (lw.overdue == "" || over > lw.overrun) {
			lw.overdue, lw.overrun = j.ID, over
		}
		total = elapsed + math.Max(elapsed/10, 1)
	}
	if done := math.Min(r.Fraction, 0.999); done > 0 {
		at := elapsed
		if p := r.ProgressAt.Seconds(); p > 0 && p < elapsed {
			at = p
		}
		total = (1-done)*total + done*math.Max(elapsed, at/done)
	}
	rest := math.Max(total-elapsed, math.Min(1, expected/10)) / expected
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
		f.schema *= k
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
