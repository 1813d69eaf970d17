package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"time"

	"github.com/oedl/oedl/internal/eta"
	"github.com/oedl/oedl/internal/event"
)

// The trace (oedl run --eta-trace) has the job plan behind each forecast.
// Against the events, it says which jobs the ETA got wrong: for the last
// forecast before each fraction of the run, per kind of job, the time the
// forecast gave what was left of them and the time they really took from
// then on, and the jobs whose end it missed most.

// KindError is one kind of job in one forecast: its jobs' time from the
// forecast's moment on (the part after it of each), predicted and real,
// and the end of the last of them.
type KindError struct {
	Fraction   float64 `json:"fraction"`
	Kind       string  `json:"kind"`
	Jobs       int     `json:"jobs"`
	Running    int     `json:"running,omitempty"`
	Predicted  float64 `json:"predicted_s"` // Σ job seconds left, as forecast
	Actual     float64 `json:"actual_s"`    // Σ job seconds left, as run
	LastEnd    float64 `json:"last_end_s"`  // the last one's end from the moment, forecast
	LastActual float64 `json:"last_actual_s"`
}

// JobError is one job whose end the forecast missed.
type JobError struct {
	Fraction  float64 `json:"fraction"`
	Job       string  `json:"job"`
	Running   bool    `json:"running,omitempty"`
	Elapsed   float64 `json:"elapsed_s,omitempty"` // a running one's time so far
	Done      float64 `json:"done,omitempty"`      // its share of bytes done
	Start     float64 `json:"start_s"`             // forecast, from the moment
	End       float64 `json:"end_s"`
	RealStart float64 `json:"real_start_s"`
	RealEnd   float64 `json:"real_end_s"`
}

type span struct{ start, end time.Time }

// realSpans are the last start and finish of each job in the events.
func realSpans(events []event.Event) map[string]span {
	out := map[string]span{}
	for _, e := range events {
		s := out[e.Job]
		switch e.Kind {
		case event.JobStarted:
			s.start = e.Time
		case event.JobFinished:
			s.end = e.Time
		default:
			continue
		}
		out[e.Job] = s
	}
	return out
}

func readTrace(path string) ([]eta.TraceLine, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []eta.TraceLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for n := 1; sc.Scan(); n++ {
		var l eta.TraceLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, l)
	}
	return out, sc.Err()
}

// compareTrace writes, for the last forecast before each point, the kinds'
// and the worst jobs' errors.
func compareTrace(enc *json.Encoder, events []event.Event, trace []eta.TraceLine, points []Point, start time.Time, worst int) error {
	real := realSpans(events)
	for _, p := range points {
		at := start.Add(time.Duration(p.Elapsed * float64(time.Second)))
		i := sort.Search(len(trace), func(i int) bool { return trace[i].Time.After(at) }) - 1
		if i < 0 {
			continue
		}
		line := trace[i]
		now := line.Time
		kinds := map[string]*KindError{}
		var order []string
		var jobs []JobError
		for _, j := range line.Jobs {
			r, ok := real[j.Job]
			for _, id := range j.Loads { // a batch: its tables' first start and last end
				m, seen := real[id]
				if !seen || m.start.IsZero() {
					continue // a member the run never started is no bound on the batch
				}
				if !ok || m.start.Before(r.start) {
					r.start = m.start
				}
				if m.end.After(r.end) {
					r.end = m.end
				}
				ok = true
			}
			if !ok || r.end.IsZero() {
				continue // never ran (skipped), or not as this graph's job
			}
			k := kinds[j.Kind]
			if k == nil {
				k = &KindError{Fraction: p.Fraction, Kind: j.Kind}
				kinds[j.Kind] = k
				order = append(order, j.Kind)
			}
			realStart := r.start.Sub(now).Seconds()
			realEnd := r.end.Sub(now).Seconds()
			k.Jobs++
			if j.Running {
				k.Running++
			}
			k.Predicted += (j.End - max(j.Start, 0)).Seconds()
			k.Actual += realEnd - max(realStart, 0)
			k.LastEnd = max(k.LastEnd, j.End.Seconds())
			k.LastActual = max(k.LastActual, realEnd)
			je := JobError{Fraction: p.Fraction, Job: j.Job, Running: j.Running, Start: j.Start.Seconds(), End: j.End.Seconds(),
				RealStart: realStart, RealEnd: realEnd}
			if rr, ok := line.Running[j.Job]; ok {
				je.Elapsed, je.Done = rr.Elapsed.Seconds(), rr.Fraction
			}
			jobs = append(jobs, je)
		}
		for _, k := range order {
			if err := enc.Encode(kinds[k]); err != nil {
				return err
			}
		}
		sort.Slice(jobs, func(a, b int) bool {
			return math.Abs(jobs[a].End-jobs[a].RealEnd) > math.Abs(jobs[b].End-jobs[b].RealEnd)
		})
		for _, j := range jobs[:min(worst, len(jobs))] {
			if err := enc.Encode(j); err != nil {
				return err
			}
		}
	}
	return nil
}
