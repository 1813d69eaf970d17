package estimate

import (
	"math"
	"sort"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/schedule"
)

// The live ETA corrects the model with what the run measures (live.go).
// Each job the run finished is one observation: the time it took, A, and
// what the estimate before the run predicted for it, split into its
// start-up S (process start, connect: the same whatever the table) and
// the rest, its work W (records and bytes, under the contention the
// simulation predicted). Two factors per group of jobs, one for start-ups
// (a) and one for work (b), say how far this run is from the model:
//
//	A ≈ a·S + b·W
//
// They are fitted by least squares with a prior:
//
//	minimise  Σ (A − a·S − b·W)² / (S + W)  +  λ·Σ (a₀·S + b₀·W − a·S − b·W)² / (S + W)
//	                                        +  τ₀·((a − a₀)² + (b − b₀)²)
//
// The weight 1/(S+W) makes the noise of a job proportional to its length
// (a job of 10 s counts as ten of 1 s, not a hundred), so the sums are in
// seconds of evidence. The second term is the prior as pseudo-jobs: τ
// seconds of jobs like the ones observed that behaved exactly as the prior
// says (λ = τ / Σ(S+W)), so the factors are the evidence's and the prior's
// weighted by their seconds, E/(E+τ) and τ/(E+τ), in every direction the
// jobs tell apart. The third is a weak prior on each factor alone, for
// what the jobs cannot tell (the work of jobs that are all start-up stays
// at the prior instead of taking any value). With little evidence the
// factors are the prior, with much they are the run's.
//
// The prior of a group is the factors of the work most like it: the
// dumps' for idxbuild (its time is a scan of every record and the keys
// drawn from them, as a dump's is a read of every record: docs/
// benchmarks/eta.md measured idxbuild's time against the model's with
// the dumps' work factor on four runs, 3.1 against 3.8, 0.65 against
// 0.79, 1.1 against 1.3, 0.28 against 0.26, and with the loads' 0.9,
// 0.2, 0.6, 0.08: a load's work is writes, and batches of small tables
// leave its start-up and work hard to tell apart), the dumps' for the
// source's tabanalys (the same database, beside them), the model as it
// is for the target's tabanalys, and for the dumps, the loads and the
// other steps the factors fitted on every group together (the run's
// machine against the model's), whose own prior is 1 (the model as it
// is). So a group without evidence of its own (idxbuild runs once, at the
// end) moves with its kin, and a group with evidence follows it. The
// target's tabanalys, a read of the target alone at the end, has no kin
// in the run: the pooled factors are mostly the loads' and the dumps'
// work, which made it 0.25 to 1.3 times what it took on the oesim runs
// of issue 14 (docs/benchmarks/eta.md) where the model made it 0.8 to
// 1.25 times. The source's tabanalys is not the target's kin: it reads
// the source while the dumps do (on oesim three to ten times its time
// alone), and what it shows of that contention says nothing of a read
// alone at the end.
//
// A calibrated model is another matter for idxbuild: its costs were
// measured on this machine by rebuilding a sample (calibrate), so the
// dumps' factors say how the run's dumps differ from the calibration's
// dumps, which does not carry over to a rebuild. On sports (i14-eta3's
// traces, docs/benchmarks/eta.md) the dumps ran at 0.86 of their
// calibrated work, the rebuild at 1.01 to 1.06 of its: with the dumps'
// factors the forecast before it started was 16.5 s for 19.3 and 20.2,
// with the model's own 19.1. So in a calibrated run the rebuild's prior
// is the model as it is, and until it reports an area, that is its
// forecast. The same holds for the source's tabanalys, also calibrated,
// also one job that reports nothing until it ends: on those 16 runs the
// model made it 0.98 to 1.19 times what it took from its start, while
// the dumps' factors, fitted on the small dumps that end first, made
// sports' 24.7 s for 48.7 twelve seconds in (work factor 0.45) and 11.3
// for 24.4 four seconds in on io1 (0.38). The dumps, loads and other
// steps have evidence of their own early and keep the pooled prior.
//
// One neighbour's burst can stall a few jobs far beyond anything the
// factors explain; the fit is done twice, the second time without the jobs
// whose log residual is beyond 3 median absolute deviations (as calibrate
// trims its wall-time fits), when there are at least minTrim of them.

// priorWeight is τ: the prior counts as this many seconds of jobs;
// factorWeight is τ₀, the weak prior on each factor alone.
const (
	priorWeight  = 5.0
	factorWeight = 0.5
)

const (
	minFactor = 1.0 / 50 // the factors stay within these: a run 50 times
	maxFactor = 50.0     // faster or slower than its model is a broken model
	minTrim   = 10
)

// Factors scale the model's costs of one group of jobs (the events carry
// them as they are).
type Factors = event.Factors

// Identity is the model as it is.
var Identity = Factors{Startup: 1, Work: 1}

// observation is one finished job, or a running one's part done: its
// measured time and what was predicted for the same part (seconds).
type observation struct {
	group    string
	actual   float64
	startup  float64
	work     float64
	residual float64 // log(actual / fitted), after the fit
}

// The groups of jobs with factors of their own.
const (
	groupDump      = "dump"
	groupLoad      = "load"
	groupIdxbuild  = "idxbuild"
	groupSourceTba = "analyze-source"
	groupTargetTba = "analyze-target"
	groupOther     = "other" // brokers, the schema, sequences, verify, post
	groupAll       = "all"   // the pooled fit, the groups' prior
)

func groupOf(k schedule.Kind) string {
	switch k {
	case schedule.KindDump:
		return groupDump
	case schedule.KindLoad, schedule.KindLoadBatch:
		return groupLoad
	case schedule.KindIdxbuild:
		return groupIdxbuild
	case schedule.KindAnalyzeSource:
		return groupSourceTba
	case schedule.KindAnalyzeTarget:
		return groupTargetTba
	}
	return groupOther
}

// fitFactors fits the pooled factors on every observation (prior: the
// model), then each group's on its own (prior: the pooled ones) with its
// overdue jobs (overdueEvidence: what they say of their own group's
// pace is a lower bound, not the run's machine). calibrated: the model
// was measured on this machine (idxbuild's and the source's tabanalys's
// prior is then the model, not the dumps'). The result has every group,
// groupAll included.
func fitFactors(calibrated bool, obs []observation, overdue ...observation) map[string]Factors {
	all := fitTrimmed(obs, Identity)
	out := map[string]Factors{groupAll: all}
	byGroup := map[string][]observation{}
	for _, o := range append(append([]observation(nil), obs...), overdue...) {
		byGroup[o.group] = append(byGroup[o.group], o)
	}
	for _, g := range []string{groupDump, groupLoad, groupOther} {
		out[g] = fitTrimmed(byGroup[g], all)
	}
	out[groupTargetTba] = fitTrimmed(byGroup[groupTargetTba], Identity)
	kin := out[groupDump] // idxbuild's and the source's tabanalys's
	if calibrated {
		kin = Identity
	}
	out[groupSourceTba] = fitTrimmed(byGroup[groupSourceTba], kin)
	out[groupIdxbuild] = fitTrimmed(byGroup[groupIdxbuild], kin)
	return out
}

// fitTrimmed fits, drops the observations the fit cannot explain, and fits
// again.
func fitTrimmed(obs []observation, prior Factors) Factors {
	f := fitRidge(obs, prior)
	if len(obs) < minTrim {
		return f
	}
	res := make([]float64, len(obs))
	for i, o := range obs {
		res[i] = logResidual(o, f)
	}
	med := median(res)
	dev := make([]float64, len(res))
	for i, r := range res {
		dev[i] = math.Abs(r - med)
	}
	mad := math.Max(median(dev), 0.01) // jobs all alike: 1 % is their spread
	kept := make([]observation, 0, len(obs))
	for i, o := range obs {
		if dev[i] <= 3*mad {
			kept = append(kept, o)
		}
	}
	if len(kept) == len(obs) {
		return f
	}
	return fitRidge(kept, prior)
}

// fitRidge solves the 2×2 normal equations of the problem above. A factor
// the equations put out of range is held at the bound and the other one
// fitted alone.
func fitRidge(obs []observation, prior Factors) Factors {
	var sss, ssw, sww, sas, saw, evidence float64
	for _, o := range obs {
		p := o.startup + o.work
		if p <= 0 || o.actual < 0 || math.IsNaN(o.actual) {
			continue
		}
		w := 1 / p
		sss += w * o.startup * o.startup
		ssw += w * o.startup * o.work
		sww += w * o.work * o.work
		sas += w * o.actual * o.startup
		saw += w * o.actual * o.work
		evidence += p
	}
	if evidence == 0 {
		return Factors{Startup: prior.Startup, Work: prior.Work}
	}
	lambda := priorWeight / evidence
	// (1+λ)·M·θ + τ₀·θ = r + λ·M·θ₀ + τ₀·θ₀
	m11, m12, m22 := (1+lambda)*sss+factorWeight, (1+lambda)*ssw, (1+lambda)*sww+factorWeight
	r1 := sas + lambda*(sss*prior.Startup+ssw*prior.Work) + factorWeight*prior.Startup
	r2 := saw + lambda*(ssw*prior.Startup+sww*prior.Work) + factorWeight*prior.Work
	det := m11*m22 - m12*m12
	a, b := prior.Startup, prior.Work
	if det > 0 {
		a, b = (r1*m22-r2*m12)/det, (m11*r2-m12*r1)/det
	}
	switch {
	case a < minFactor || a > maxFactor:
		a = clampFactor(a)
		b = clampFactor((r2 - m12*a) / m22)
	case b < minFactor || b > maxFactor:
		b = clampFactor(b)
		a = clampFactor((r1 - m12*b) / m11)
	}
	return Factors{Startup: a, Work: b, Evidence: evidence}
}

func clampFactor(x float64) float64 {
	if math.IsNaN(x) {
		return 1
	}
	return math.Min(maxFactor, math.Max(minFactor, x))
}

// logResidual is log(actual / fitted) of one observation.
func logResidual(o observation, f Factors) float64 {
	fitted := f.Startup*o.startup + f.Work*o.work
	if fitted <= 0 || o.actual <= 0 {
		return 0
	}
	return math.Log(o.actual / fitted)
}

// runResiduals are the log residuals of the observations against their
// group's factors: the per-job noise of this run, for the range.
func runResiduals(obs []observation, fit map[string]Factors) []float64 {
	out := make([]float64, 0, len(obs))
	for _, o := range obs {
		if o.actual > 0 && o.startup+o.work > 0 {
			out = append(out, logResidual(o, fit[o.group]))
		}
	}
	return out
}

// shrink is how much of the prior's spread is left of a factor fitted on
// evidence seconds: the standard deviation of the ridge estimate against
// the prior's, √(τ / (τ + evidence)).
func shrink(evidence float64) float64 {
	return math.Sqrt(priorWeight / (priorWeight + math.Max(0, evidence)))
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// overdueEvidence are the running jobs that say nothing of their progress
// and have run past what the factors fitted without them predict: each
// counts as if it ended now, the least it will have taken. Without them a
// run whose first batches of small tables all run long (a batch reports
// nothing until it ends) would keep the factors that made them late and
// forecast the batches queued behind them as short: on a seed003 run the
// loads' phase was forecast to end in 1.6 s, with 11 batches overdue and 20
// queued, and took 7.3. A job not yet overdue is not evidence: its time so
// far is what the factors allow.
func overdueEvidence(lg *leftGraph, running map[string]prediction, fit map[string]Factors) []observation {
	ids := make([]string, 0, len(running))
	for id := range running {
		ids = append(ids, id)
	}
	sort.Strings(ids) // a fixed order: the fit's sums do not depend on map order
	var out []observation
	for _, id := range ids {
		p := running[id]
		r, ok := lg.running[id]
		if !ok || p.observed {
			continue
		}
		f := fit[p.group]
		elapsed := r.Elapsed.Seconds()
		if elapsed > f.Startup*p.startup+f.Work*p.work {
			out = append(out, observation{group: p.group, actual: elapsed, startup: p.startup, work: p.work})
		}
	}
	return out
}
