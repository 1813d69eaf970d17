package estimate

import (
	"context"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/oedl/oedl/internal/schedule"
)

// monteCarlo re-runs the simulation with the model's parameters drawn
// from their uncertainty and returns the window's range around the central
// simulation (window): P50 the window itself, P90 stretched as the
// samples' P90 lies above their median (rangeAround, as the live ETA's).
// The samples' own median lies a few per cent above the window (each job's
// draw has a mean above 1, a parallel schedule's end is its longest path),
// and the headline sat below its own range ("23.7s (P50 24.6s, P90
// 29.9s)"): the samples say how uncertain the window is, not where it
// lies (docs/decisions.md "The estimate's window is its range's P50").
// Every sample has its own generator seeded from (seed, sample),
// and a job's own noise from (seed, sample, job ID), so the result does
// not depend on goroutine scheduling or on the order jobs start in.
//
// Three factors are shared by every job of a sample (CPU speed, disk
// speed, start-up cost: a model that is wrong is wrong everywhere), one is
// per job (tables differ). When a calibration measured residuals, the
// per-job factor is drawn from them (bootstrap) instead of the prior.
func monteCarlo(ctx context.Context, in *Input, m *Model, window time.Duration, samples int, seed uint64) (*Range, error) {
	u := m.Uncertainty
	windows, err := sampleRuns(ctx, samples, func(ctx context.Context, i int) (*simulation, error) {
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		cpu, io, start := lognormal(rng, u.CPU), lognormal(rng, u.IO), lognormal(rng, u.Startup)
		perturb := func(j *schedule.Job, w *jobWork) {
			jr := rand.New(rand.NewPCG(seed^uint64(i)<<32, hashID(j.ID)))
			f := lognormal(jr, u.Job)
			if n := len(u.Residuals); n > 0 {
				f = math.Exp(u.Residuals[jr.IntN(n)])
			}
			w.startup *= start * f
			for k := range w.flows {
				w.flows[k].cpu *= cpu * f
				w.flows[k].schema *= start * f // a part of the start-up each table pays again
				w.flows[k].bytes *= io * f
				w.flows[k].ops *= io * f
			}
		}
		return in.simulate(ctx, m, perturb)
	})
	if err != nil {
		return nil, err
	}
	p50, p90 := rangeAround(window, windows)
	return &Range{P50: Seconds(p50), P90: Seconds(p90), Samples: samples, Seed: seed}, nil
}

// sampleRuns makes n simulations, as many at a time as there are cores,
// and returns how long each took on its clock, shortest first.
func sampleRuns(ctx context.Context, n int, run func(ctx context.Context, i int) (*simulation, error)) ([]time.Duration, error) {
	out := make([]time.Duration, n)
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range n {
		g.Go(func() error {
			sim, err := run(ctx, i)
			if err != nil {
				return err
			}
			out[i] = sim.result.Elapsed()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	sort.Slice(out, func(a, b int) bool { return out[a] < out[b] })
	return out, nil
}

// lognormal draws a factor with median 1 and log-σ sigma.
func lognormal(r *rand.Rand, sigma float64) float64 {
	if sigma <= 0 {
		return 1
	}
	return math.Exp(sigma * r.NormFloat64())
}

func hashID(id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64()
}

// quantile interpolates linearly between the sorted samples.
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(sorted)-1)
	frac := pos - float64(lo)
	return time.Duration(float64(sorted[lo])*(1-frac) + float64(sorted[hi])*frac).Round(time.Millisecond)
}
