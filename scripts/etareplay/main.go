// Command etareplay measures the live screen's ETA after the fact: it
// replays the JSON events of a run (`oedl run --json`) through the fold the
// screen and `oedl status` use (tui.State) and, at given fractions of the
// run's elapsed time, compares the ETA the screen showed then with the time
// the run really had left. scripts/bench-eta runs it on fresh runs; since
// it reads only the events, the ETA of any oedl version is measured the
// same way.
//
//	go run ./scripts/etareplay -at 0.25,0.5,0.75 events.jsonl
//	go run ./scripts/etareplay -trace WORK/eta-trace.jsonl events.jsonl
//
// It prints one JSON object per fraction: the fraction, the seconds the
// run had left, the ETA shown (with its P50 and P90 when the ETA has a
// range) and the error, (ETA − actual) / actual. With -trace (the file
// `oedl run --eta-trace` writes), each point is followed by where the
// forecast before it went wrong (trace.go).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/tui"
)

// Point is the ETA at one fraction of the run.
type Point struct {
	Fraction float64 `json:"fraction"`
	Elapsed  float64 `json:"elapsed_s"`
	Actual   float64 `json:"actual_s"` // what the run had left
	Known    bool    `json:"known"`
	ETA      float64 `json:"eta_s"`
	P50      float64 `json:"p50_s,omitempty"`
	P90      float64 `json:"p90_s,omitempty"`
	Error    float64 `json:"error"` // (ETA − actual) / actual; 0 when not known
	Reason   string  `json:"reason,omitempty"`
}

func main() {
	at := flag.String("at", "0.25,0.5,0.75", "fractions of the run's elapsed time")
	tracePath := flag.String("trace", "", "the run's ETA trace (oedl run --eta-trace): per kind of job, the time forecast against the time taken")
	worst := flag.Int("worst", 8, "with -trace: the jobs whose end the forecast missed most, this many per point")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: etareplay [-at 0.25,0.5,0.75] EVENTS.jsonl")
		os.Exit(2)
	}
	var fractions []float64
	for _, f := range strings.Split(*at, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || v <= 0 || v >= 1 {
			fmt.Fprintf(os.Stderr, "etareplay: -at: %q is not a fraction between 0 and 1\n", f)
			os.Exit(2)
		}
		fractions = append(fractions, v)
	}
	events, err := read(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "etareplay:", err)
		os.Exit(1)
	}
	points, err := measure(events, fractions)
	if err != nil {
		fmt.Fprintln(os.Stderr, "etareplay:", err)
		os.Exit(1)
	}
	enc := json.NewEncoder(os.Stdout)
	for _, p := range points {
		if err := enc.Encode(p); err != nil {
			os.Exit(1)
		}
	}
	if *tracePath == "" {
		return
	}
	trace, err := readTrace(*tracePath)
	if err == nil {
		err = compareTrace(enc, events, trace, points, runStart(events), *worst)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "etareplay:", err)
		os.Exit(1)
	}
}

// runStart is the first run_started's time.
func runStart(events []event.Event) time.Time {
	for _, e := range events {
		if e.Kind == event.RunStarted {
			return e.Time
		}
	}
	return time.Time{}
}

func read(path string) ([]event.Event, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []event.Event
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 1; sc.Scan(); n++ {
		var e event.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

// measure replays the events once, stopping at each fraction of the span
// from the first run_started to the last run_finished.
func measure(events []event.Event, fractions []float64) ([]Point, error) {
	var start, end time.Time
	for _, e := range events {
		switch {
		case e.Kind == event.RunStarted && start.IsZero():
			start = e.Time
		case e.Kind == event.RunFinished:
			end = e.Time
		}
	}
	if start.IsZero() || !end.After(start) {
		return nil, fmt.Errorf("the events hold no complete run (a run_started and a later run_finished)")
	}
	span := end.Sub(start)
	s := tui.NewState()
	var out []Point
	i := 0
	for _, f := range fractions {
		t := start.Add(time.Duration(f * float64(span)))
		for ; i < len(events) && !events[i].Time.After(t); i++ {
			s.Apply(events[i])
		}
		s.Advance(t)
		eta := s.ETA()
		p := Point{Fraction: f, Elapsed: t.Sub(start).Seconds(), Actual: end.Sub(t).Seconds(), Known: eta.Known, Reason: eta.Reason}
		if eta.Known {
			p.ETA = eta.Remaining.Seconds()
			p.Error = (p.ETA - p.Actual) / p.Actual
			p.P50, p.P90 = eta.P50.Seconds(), eta.P90.Seconds()
		}
		out = append(out, p)
	}
	return out, nil
}
