package estimate

import (
	"math"
	"sort"
	"time"

	"github.com/oedl/oedl/internal/schedule"
)

// The evidence compares what a job took with what the model predicts for
// it. The prediction must be the model's under the concurrency the job
// really had: a load that ran beside eight dumps is slower than one alone,
// and a factor fitted without knowing it would make every later load, run
// alone, slower too. So the run so far is replayed on the model: every job
// of this invocation from its real start to its real end (or now), its
// start-up waited first, its streams sharing the machine as the simulation
// shares it (allocate) with the streams that really ran beside it. What
// the model gets done of a job's work in its real time gives its
// predicted time under that concurrency.

// pastJob is a job of this invocation with its real times (seconds from
// the replay's origin) and the model's work for it.
type pastJob struct {
	id         string
	w          jobWork
	start, end float64 // end: now for a running job
	running    bool
	fraction   float64 // a running dump's or load's share of its bytes done
	alone      float64 // the model's time for it alone on the machine
	// done is the share of its work the model gets done over its real
	// time (its streams' shares weighed by their bytes); the replay fills
	// it in.
	done float64
}

// streamWeights are the shares of a job's work in each of its streams: a
// threaded dump's brackets by their bytes. Not their mean: the replay
// keeps a bracket the model would have finished demanding until the job
// ends, so the small bracket gets more than all its work done and the
// large one less than it, and only the bytes-weighed sum is what the
// job's streams together got done (a dump whose brackets went exactly as
// the model said showed a factor of 1.14 by the mean).
func streamWeights(w jobWork) []float64 {
	out := make([]float64, len(w.flows))
	var total float64
	for _, f := range w.flows {
		total += f.bytes
	}
	for i, f := range w.flows {
		if total > 0 {
			out[i] = f.bytes / total
		} else {
			out[i] = 1 / float64(len(w.flows))
		}
	}
	return out
}

// replay fills in done for every job: the time from the earliest start to
// the latest end is cut at every start, end and end of a start-up, and in
// each piece the streams running then share the machine.
func replay(jobs []*pastJob, hw Hardware) {
	var times []float64
	for _, j := range jobs {
		times = append(times, j.start, math.Min(j.end, j.start+j.w.startup), j.end)
	}
	sort.Float64s(times)
	s := newSim(hw)
	credit := s.bursting()
	byStart := append([]*pastJob(nil), jobs...)
	sort.Slice(byStart, func(a, b int) bool { return byStart[a].start < byStart[b].start })
	var active []*pastJob
	next := 0
	for i := 0; i+1 < len(times); i++ {
		t0, t1 := times[i], times[i+1]
		if t1 <= t0 {
			continue
		}
		for ; next < len(byStart) && byStart[next].start <= t0; next++ {
			active = append(active, byStart[next])
		}
		kept := active[:0]
		var flows []*flowDemand
		var owners []*pastJob
		var weights []float64
		for _, j := range active {
			if j.end <= t0 {
				continue
			}
			kept = append(kept, j)
			if t0 < j.start+j.w.startup { // still starting up: waiting, not sharing
				continue
			}
			for k, wk := range streamWeights(j.w) {
				flows = append(flows, &j.w.flows[k])
				owners = append(owners, j)
				weights = append(weights, wk)
			}
		}
		active = kept
		if len(flows) == 0 {
			continue
		}
		for k, r := range allocate(flows, s.cores, &s.disk, credit) {
			j := owners[k]
			if math.IsInf(r, 1) {
				r = 1 / (t1 - t0) // no demand: done at once
			}
			j.done += r * (t1 - t0) * weights[k]
		}
	}
}

// predicted is the model's time for the part of the job done, under the
// concurrency it had: its start-up, then its streams at the pace the
// replay gave them. ok is false when the replay could not tell (no body
// yet, or no work).
func (j *pastJob) predicted() (seconds float64, ok bool) {
	body := j.end - j.start - j.w.startup
	switch {
	case len(j.w.flows) == 0 && !j.running:
		return j.w.startup, true // a wait, whatever ran beside it
	case body <= 0 && !j.running:
		// It took less than the model's start-up: the model's whole
		// time for it, alone, is what it is compared with.
		return j.alone, true
	case body <= 0 || j.done <= 0:
		return 0, false
	}
	share := 1.0
	if j.running {
		if j.fraction <= 0 {
			return 0, false
		}
		share = math.Min(1, j.fraction)
	}
	// The model's pace over the body (done per second) makes the body of
	// the share done last body·share/done.
	return j.w.startup + body*share/j.done, true
}

// prediction is the model's time for a job, its start-up and its work
// (seconds), under the concurrency it had (replay.go).
type prediction struct {
	group         string
	startup, work float64
	// observed: a running job whose part done is an observation already
	// (a dump or load far enough along).
	observed bool
}

// startupOf is the part of a job's predicted time that is its start-up
// (waiting and its CPU), whatever its table.
func (l *Live) startupOf(j *schedule.Job, w jobWork) float64 {
	switch j.Kind {
	case schedule.KindDump:
		return l.m.Dump.StartupSec
	case schedule.KindLoad, schedule.KindLoadBatch: // a batch: one start-up for its tables
		return l.m.Load.StartupSec
	case schedule.KindAnalyzeSource, schedule.KindAnalyzeTarget:
		return l.m.Tabanalys.StartupSec
	case schedule.KindIdxbuild:
		return w.startup + math.Min(l.m.Idxbuild.StartupCPUSec, l.m.Idxbuild.StartupSec)
	}
	return w.startup
}

// split is a predicted time cut into its start-up and its work.
func (l *Live) split(j *schedule.Job, w jobWork, total float64) prediction {
	s := math.Min(total, l.startupOf(j, w))
	return prediction{group: groupOf(j.Kind), startup: s, work: total - s}
}

// fineProgress: the kinds whose progress events measure their bytes as
// they go (a dump's files, a load's read offset); the others report
// nothing, or only whole areas (idxbuild), until they end.
func fineProgress(k schedule.Kind) bool { return k == schedule.KindDump || k == schedule.KindLoad }

// minPartial is the share of a running dump or load done before its pace
// counts as evidence.
const minPartial = 0.05

// evidence replays the jobs of this invocation on the model (replay.go)
// and returns the observations (every job finished, and the part done of
// the running dumps and loads far enough along) and the model's
// prediction for each running job under the concurrency it has had.
func (l *Live) evidence(left Left, lg *leftGraph) ([]observation, map[string]prediction) {
	built, err := schedule.Build(l.in.Plan, l.in.Strategy.BuildOptions(l.queueCost()))
	if err != nil {
		return nil, nil
	}
	if err := lg.extend(built); err != nil {
		return nil, nil
	}
	var past []*pastJob
	origin := left.Now
	add := func(id string, start time.Time, end time.Time, running bool, fraction float64) {
		j := built.Job(id)
		if j == nil || end.Before(start) {
			return // a repair, or a job of another graph
		}
		w := l.m.work(j, l.cc)
		past = append(past, &pastJob{id: id, w: w, alone: aloneDuration(w, l.cc.hw).Seconds(),
			start: start.Sub(origin).Seconds(), end: end.Sub(origin).Seconds(), running: running, fraction: fraction})
	}
	for _, f := range lg.finished {
		if f.Elapsed > 0 && !f.Start.IsZero() {
			add(f.Job, f.Start, f.Start.Add(f.Elapsed), false, 0)
		}
	}
	ids := make([]string, 0, len(lg.running))
	for id := range lg.running {
		ids = append(ids, id)
	}
	sort.Strings(ids) // a fixed order: the fit's sums do not depend on map order
	for _, id := range ids {
		r := lg.running[id]
		add(id, left.Now.Add(-r.Elapsed), left.Now, true, r.Fraction)
	}
	replay(past, l.cc.hw)

	var obs []observation
	running := map[string]prediction{}
	for _, p := range past {
		j := built.Job(p.id)
		total, ok := p.predicted()
		if p.running {
			// Its whole time under the concurrency it has had: the body at
			// the pace the replay gave it, or alone before it has one.
			whole := p.alone
			if body := p.end - p.start - p.w.startup; body > 0 && p.done > 0 {
				whole = p.w.startup + body/p.done
			}
			pr := l.split(j, p.w, whole)
			pr.observed = ok && fineProgress(j.Kind) && p.fraction >= minPartial
			running[p.id] = pr
			if !pr.observed {
				continue
			}
		}
		if !ok {
			continue
		}
		pr := l.split(j, p.w, total)
		obs = append(obs, observation{group: pr.group, actual: p.end - p.start, startup: pr.startup, work: pr.work})
	}
	return obs, running
}
