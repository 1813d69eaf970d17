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
	Rate      float64       `json:"bytes_per_second,omitempty"` // recent overall throughput
	// BoundBy names the running job whose own remaining time is longer than
	// the throughput estimate: the finish waits for it.
	BoundBy string `json:"bound_by,omitempty"`
	Reason  string `json:"reason,omitempty"` // why it is not known yet
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

type sample struct {
	t    time.Time
	done int64
}

// etaTracker keeps about one sample of bytes done per second.
type etaTracker struct {
	samples []sample
}

func (t *etaTracker) sample(now time.Time, done, _ int64) {
	if now.IsZero() {
		return
	}
	if n := len(t.samples); n > 0 {
		last := &t.samples[n-1]
		if now.Sub(last.t) < time.Second {
			last.done = max(last.done, done) // keep the latest value within the second
			return
		}
	}
	t.samples = append(t.samples, sample{t: now, done: done})
	if len(t.samples) > 2*int(etaKeep/time.Second) {
		cut := 0
		for cut < len(t.samples) && now.Sub(t.samples[cut].t) > etaKeep {
			cut++
		}
		t.samples = append(t.samples[:0], t.samples[cut:]...)
	}
}

// rateAt is the throughput over the window ending at index i.
func (t *etaTracker) rateAt(i int) (float64, bool) {
	end := t.samples[i]
	for k := 0; k < i; k++ {
		s := t.samples[k]
		span := end.t.Sub(s.t)
		if span > etaWindow {
			continue
		}
		if span < etaMinWindow {
			return 0, false
		}
		return float64(end.done-s.done) / span.Seconds(), true
	}
	return 0, false
}

func (t *etaTracker) estimate(now time.Time, elapsed time.Duration, done, total int64, running map[string]*Job) ETA {
	switch {
	case total <= 0:
		return ETA{Reason: "nothing to measure yet"}
	case elapsed < etaMinElapsed || float64(done) < etaMinFraction*float64(total):
		return ETA{Reason: "gathering evidence"}
	}
	rate, ok := 0.0, false
	if len(t.samples) > 0 {
		rate, ok = t.rateAt(len(t.samples) - 1)
	}
	if !ok || rate <= 0 {
		// Nothing moved in the window (a long silent job): fall back on the
		// average since the start rather than claiming forever.
		rate = float64(done) / elapsed.Seconds()
	}
	if rate <= 0 {
		return ETA{Reason: "no throughput yet"}
	}
	remaining := secs(float64(total-done) / rate)
	eta := ETA{Known: true, Remaining: remaining, Rate: rate}

	for _, j := range running {
		if j.Rate <= 0 || j.TotalBytes <= j.Bytes {
			continue
		}
		if r := secs(float64(j.TotalBytes-j.Bytes) / j.Rate); r > eta.Remaining {
			eta.Remaining, eta.BoundBy = r, j.ID
		}
	}
	eta.Finish = now.Add(eta.Remaining)
	eta.Trend = t.trend(now, remaining, total)
	return eta
}

// trend compares the throughput prediction now with the one made about
// etaTrendLag ago, from the samples of then.
func (t *etaTracker) trend(now time.Time, remaining time.Duration, total int64) Trend {
	for i := len(t.samples) - 1; i >= 0; i-- {
		s := t.samples[i]
		if now.Sub(s.t) < etaTrendLag {
			continue
		}
		rate, ok := t.rateAt(i)
		if !ok || rate <= 0 {
			return TrendUnknown
		}
		then := s.t.Add(secs(float64(total-s.done) / rate))
		diff := now.Add(remaining).Sub(then)
		tol := max(remaining/20, 10*time.Second)
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
	if f > maxSecs {
		f = maxSecs
	}
	return time.Duration(f * float64(time.Second)).Round(time.Second)
}
