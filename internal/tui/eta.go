package tui

import "time"

// Trend says where the predicted finish is moving.
type Trend string

const (
	TrendUnknown Trend = ""
	TrendSteady  Trend = "steady"
	TrendRising  Trend = "rising"  // the finish moves later: throughput is dropping
	TrendFalling Trend = "falling" // the finish comes closer
)

// ETA is the estimate of the time left.
type ETA struct {
	Known     bool          `json:"known"`
	Remaining time.Duration `json:"remaining_ns,omitempty"`
	Finish    time.Time     `json:"finish,omitzero"`
	Trend     Trend         `json:"trend,omitempty"`
	Rate      float64       `json:"bytes_per_second,omitempty"` // recent throughput of the work under way
	// BoundBy names the running job whose own remaining time is longer than
	// the throughput estimate: the finish waits for it.
	BoundBy string `json:"bound_by,omitempty"`
	// Overdue: the index rebuild has run longer than the throughput seen so
	// far predicts; the remaining time is a guess until it reports.
	Overdue bool `json:"overdue,omitempty"`
	// IdxbuildExpected is the duration the running, silent index rebuild
	// was expected to take when it started (0 when none runs).
	IdxbuildExpected time.Duration `json:"idxbuild_expected_ns,omitempty"`
	Reason           string        `json:"reason,omitempty"` // why it is not known yet
}

// Evidence needed before an ETA is shown: a prediction from the first
// seconds, which are all setup and small tables, is worse than none.
const (
	etaMinElapsed  = 20 * time.Second
	etaMinFraction = 0.02
	etaWindow      = 60 * time.Second // recent throughput is measured over this
	etaMinWindow   = 10 * time.Second
	etaTrendLag    = 30 * time.Second // the trend compares with the prediction this long ago
	etaKeep        = 3 * etaWindow
)

// The kinds of work the ETA adds up, in progressKinds order.
const (
	kDump = iota
	kLoad
	kIdx
	nKinds
)

// etaInput is what the estimate reads from the State at one moment.
type etaInput struct {
	now, started time.Time
	done, total  [nKinds]int64
	since        [nKinds]time.Time     // when the first job of the kind started
	busy         [nKinds]time.Duration // time with at least one job of the kind running
	jobRate      [nKinds]float64       // bytes per second of one job, from finished jobs
	running      map[string]*Job
	// idxExpected is the cost model's duration for the index rebuild (0
	// without a model; see State.SetCost).
	idxExpected time.Duration
	// chain returns the longest remaining dump-then-load of one table at
	// the given per-job rates, and the table (State.chain).
	chain func(jobRate [nKinds]float64) (time.Duration, string)
}

type sample struct {
	t      time.Time
	done   [nKinds]int64
	busy   [nKinds]time.Duration
	finish time.Time // the prediction made then; zero when there was none
}

// etaTracker keeps one sample of the bytes done per kind per second, with
// the prediction of that moment (for the trend).
type etaTracker struct {
	samples []sample
	// The index rebuild's expected duration, fixed when it starts, so the
	// countdown does not drift as the throughput average decays.
	idxSince  time.Time
	idxExpect time.Duration
}

// sample records the moment; at most one sample per second is kept, and a
// prediction is computed only when a new sample is added, so the per-event
// cost stays a comparison.
func (t *etaTracker) sample(in etaInput) {
	if in.now.IsZero() {
		return
	}
	if n := len(t.samples); n > 0 && in.now.Sub(t.samples[n-1].t) < time.Second {
		t.samples[n-1].done, t.samples[n-1].busy = in.done, in.busy // the latest within the second
		return
	}
	t.samples = append(t.samples, sample{t: in.now, done: in.done, busy: in.busy})
	if len(t.samples) > 2*int(etaKeep/time.Second) {
		cut := 0
		for cut < len(t.samples) && in.now.Sub(t.samples[cut].t) > etaKeep {
			cut++
		}
		t.samples = append(t.samples[:0], t.samples[cut:]...)
	}
	if e := t.predict(in); e.Known {
		t.samples[len(t.samples)-1].finish = e.Finish
	}
}

// kindRate is kind k's throughput per busy second: over the last
// etaWindow when the kind was busy long enough in it, else since its start.
// Per busy second, because loads waiting for their dumps, or a phase not
// started yet, must not look slow.
func (t *etaTracker) kindRate(k int, in etaInput) float64 {
	for _, s := range t.samples {
		if in.now.Sub(s.t) > etaWindow {
			continue
		}
		if busy := in.busy[k] - s.busy[k]; busy >= etaMinWindow/2 {
			return float64(in.done[k]-s.done[k]) / busy.Seconds()
		}
		break
	}
	if in.busy[k] >= time.Second {
		return float64(in.done[k]) / in.busy[k].Seconds()
	}
	return 0
}

// estimate is the ETA with its trend.
func (t *etaTracker) estimate(in etaInput) ETA {
	e := t.predict(in)
	if !e.Known {
		return e
	}
	e.Trend = t.trend(in.now, e.Finish)
	return e
}

// predict adds up the work left the way the run does it: dumps and loads
// overlap (the later of the two ends that stage), the index rebuild comes
// after the last load. Each kind goes at its throughput per busy second; a
// kind that has not run yet borrows the one before it (loads about as fast
// as dumps, idxbuild about as fast as loads) until it shows otherwise. The
// stage cannot end before the longest remaining dump-then-load of a single
// table (the critical work): one huge table holds the finish back however
// fast the rest goes.
func (t *etaTracker) predict(in etaInput) ETA {
	var done, total int64
	for k := range nKinds {
		done += in.done[k]
		total += in.total[k]
	}
	elapsed := in.now.Sub(in.started)
	switch {
	case total <= 0:
		return ETA{Reason: "nothing to measure yet"}
	case elapsed < etaMinElapsed || float64(done) < etaMinFraction*float64(total):
		return ETA{Reason: "gathering evidence"}
	}
	var rate, jobRate [nKinds]float64
	for k := range nKinds {
		rate[k] = t.kindRate(k, in)
		jobRate[k] = in.jobRate[k]
		if jobRate[k] <= 0 {
			jobRate[k] = runningRate(in.running, progressKinds[k])
		}
	}
	borrow := func(r *[nKinds]float64, k, from int) {
		if r[k] <= 0 {
			r[k] = r[from]
		}
	}
	for _, r := range []*[nKinds]float64{&rate, &jobRate} {
		borrow(r, kLoad, kDump)
		borrow(r, kDump, kLoad)
	}
	if rate[kIdx] <= 0 {
		// idxbuild is one process reading all the data with every core;
		// dumps and loads of small tables are mostly start-up. The best
		// sustained throughput seen is the least wrong prior.
		rate[kIdx] = max(rate[kDump], rate[kLoad], float64(done)/elapsed.Seconds())
	}
	if rate[kLoad] <= 0 {
		return ETA{Reason: "no throughput yet"}
	}
	left := func(k int) time.Duration {
		if rem := in.total[k] - in.done[k]; rem > 0 {
			return secs(float64(rem) / rate[k])
		}
		return 0
	}
	e := ETA{Known: true, Rate: t.wallRate(in, done, elapsed)}
	stage := max(left(kDump), left(kLoad))
	if in.chain != nil {
		if c, by := in.chain(jobRate); c > stage {
			stage, e.BoundBy = c, by
		}
	}
	idx := left(kIdx)
	if in.idxExpected > 0 && in.done[kIdx] == 0 {
		idx = in.idxExpected
	}
	if idxRunningSilently(in) {
		// idxbuild reports nothing until it ends: count down from the
		// duration the model (or the throughput) predicts for it.
		if !t.idxSince.Equal(in.since[kIdx]) {
			t.idxSince, t.idxExpect = in.since[kIdx], in.idxExpected
			if t.idxExpect <= 0 {
				t.idxExpect = secs(float64(in.total[kIdx]) / rate[kIdx])
			}
		}
		expected := t.idxExpect
		e.IdxbuildExpected = expected
		ran := in.now.Sub(in.since[kIdx])
		idx = expected - ran
		if idx <= 0 {
			idx, e.Overdue = max(ran/10, time.Second), true
		}
	}
	e.Remaining = stage + idx
	e.Finish = in.now.Add(e.Remaining)
	return e
}

// wallRate is the bytes per wall-clock second of all the work over the
// last etaWindow (since the start when the window is short): the figure a
// manager reads as "how fast is it going".
func (t *etaTracker) wallRate(in etaInput, done int64, elapsed time.Duration) float64 {
	for _, s := range t.samples {
		span := in.now.Sub(s.t)
		if span > etaWindow {
			continue
		}
		if span >= etaMinWindow {
			var then int64
			for k := range nKinds {
				then += s.done[k]
			}
			return float64(done-then) / span.Seconds()
		}
		break
	}
	return float64(done) / elapsed.Seconds()
}

// runningRate is the mean rate of the running jobs of a kind.
func runningRate(running map[string]*Job, kind string) float64 {
	var sum float64
	n := 0
	for _, j := range running {
		if j.Kind == kind && j.Rate > 0 {
			sum += j.Rate
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

func idxRunningSilently(in etaInput) bool {
	if in.done[kIdx] > 0 || in.since[kIdx].IsZero() {
		return false
	}
	for _, j := range in.running {
		if j.Kind == "idxbuild" {
			return true
		}
	}
	return false
}

// trend compares the predicted finish with the one made about etaTrendLag
// ago.
func (t *etaTracker) trend(now, finish time.Time) Trend {
	for i := len(t.samples) - 1; i >= 0; i-- {
		s := t.samples[i]
		if now.Sub(s.t) < etaTrendLag {
			continue
		}
		if s.finish.IsZero() {
			return TrendUnknown
		}
		diff := finish.Sub(s.finish)
		tol := max(finish.Sub(now)/20, 10*time.Second)
		switch {
		case diff > tol:
			return TrendRising
		case diff < -tol:
			return TrendFalling
		}
		return TrendSteady
	}
	return TrendUnknown
}

func secs(f float64) time.Duration {
	const maxSecs = float64(1<<63-1) / float64(time.Second)
	if f > maxSecs || f != f {
		f = maxSecs
	}
	return time.Duration(f * float64(time.Second)).Round(time.Second)
}
