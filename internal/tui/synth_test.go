package tui

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/schedule"
)

// t0 is the start of every synthetic run: fixed, so goldens are stable.
var t0 = time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC)

// simExecutor runs the real dispatcher on a simulated clock, the way `oedl
// estimate` does, and emits the progress events a real runner would: one per
// running dump or load every progressEvery of simulated time. It gives the
// tests and the benchmark a realistic event stream (thousands of queued,
// started, progress and finished events in dispatcher order).
type simExecutor struct {
	now           time.Time
	rate          float64 // bytes per second per job
	progressEvery time.Duration
	sink          event.Sink
	running       map[string]*simJob
	fail          map[string]bool
}

type simJob struct {
	j          *schedule.Job
	start, end time.Time
}

func (x *simExecutor) Now() time.Time { return x.now }

func (x *simExecutor) Start(_ context.Context, j *schedule.Job) {
	d := 200*time.Millisecond + time.Duration(float64(j.Bytes)/x.rate*float64(time.Second))
	x.running[j.ID] = &simJob{j: j, start: x.now, end: x.now.Add(d)}
}

func (x *simExecutor) Next() schedule.Outcome {
	var next *simJob
	for _, r := range x.running {
		if next == nil || r.end.Before(next.end) || (r.end.Equal(next.end) && r.j.ID < next.j.ID) {
			next = r
		}
	}
	// Progress of every running job up to the next end.
	for t := x.now.Truncate(x.progressEvery).Add(x.progressEvery); t.Before(next.end); t = t.Add(x.progressEvery) {
		ids := make([]string, 0, len(x.running))
		for id := range x.running {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			r := x.running[id]
			if r.j.Kind != schedule.KindDump && r.j.Kind != schedule.KindLoad && r.j.Kind != schedule.KindIdxbuild {
				continue
			}
			f := float64(t.Sub(r.start)) / float64(r.end.Sub(r.start))
			x.sink.Emit(event.Event{V: 1, Time: t, Kind: event.JobProgress, Job: id, JobKind: string(r.j.Kind), Table: r.j.Table,
				Records: int64(f * float64(r.j.Records)), Bytes: int64(f * float64(r.j.Bytes))})
		}
	}
	x.now = next.end
	delete(x.running, next.j.ID)
	var err error
	if x.fail[next.j.ID] {
		err = fmt.Errorf("exit status 1 (** %s: load failed)", next.j.Table)
	}
	return schedule.Outcome{Job: next.j, Done: true, Err: err}
}

// collect is a Sink that keeps every event.
type collect struct{ events []event.Event }

func (c *collect) Emit(e event.Event) { c.events = append(c.events, e) }

// synthRun dispatches a plan of n tables (sizes spread over four orders of
// magnitude, like a real ERP database) and returns its event stream.
func synthRun(t testing.TB, n int, fail ...string) []event.Event {
	t.Helper()
	p := &plan.Plan{Version: 1}
	var total int64
	for i := range n {
		bytes := int64(4096) << (i % 14) // 4 KiB .. 32 MiB
		if i == 0 {
			bytes = 2 << 30 // the one huge table
		}
		p.Tables = append(p.Tables, plan.Placement{Table: fmt.Sprintf("PUB.t%04d", i), Records: bytes / 120, Bytes: bytes,
			DataArea: fmt.Sprintf("Data_%d", i%4)})
		total += bytes
	}
	g, err := schedule.Build(p, schedule.BuildOptions{})
	require.NoError(t, err)
	c := &collect{}
	c.Emit(event.Event{V: 1, Time: t0, Kind: event.RunStarted, TotalBytes: total, Message: fmt.Sprintf("%d tables", n)})
	x := &simExecutor{now: t0, rate: 40 << 20, progressEvery: 500 * time.Millisecond, sink: c, running: map[string]*simJob{}, fail: map[string]bool{}}
	for _, f := range fail {
		x.fail[f] = true
	}
	res, err := schedule.Dispatch(context.Background(), g.Graph, x, schedule.Options{
		Slots: map[schedule.Slot]int{schedule.SlotDump: 4, schedule.SlotLoad: 4}, Events: c})
	require.NoError(t, err)
	fin := event.Event{V: 1, Time: res.End, Kind: event.RunFinished}
	if e := res.Err(); e != nil {
		fin.Err = e.Error()
	}
	c.Emit(fin)
	return withETA(c.events, res.End)
}

// withETA adds what the run's live estimate would send (internal/eta): the
// estimate before the run on run_started, then an eta event every 5 s,
// here as if the estimate knew the end (its P90 a fifth later).
func withETA(events []event.Event, end time.Time) []event.Event {
	window := end.Sub(t0)
	out := make([]event.Event, 0, len(events)+int(window/(5*time.Second))+1)
	next := t0
	for _, e := range events {
		if e.Kind == event.RunStarted {
			e.Estimate = &event.Estimate{Window: window * 11 / 10, P50: window * 11 / 10, P90: window * 13 / 10}
		}
		for e.Kind != event.RunStarted && e.Kind != event.RunFinished && !e.Time.Before(next) && next.Before(end) {
			left := end.Sub(next)
			e := event.Event{V: 1, Time: next, Kind: event.ETAKind, ETA: &event.ETA{Remaining: left, P50: left, P90: left * 6 / 5, Finish: end}}
			if next.Sub(t0) >= 30*time.Second {
				e.ETA.Trend = "steady"
			}
			out = append(out, e)
			next = next.Add(5 * time.Second)
		}
		out = append(out, e)
	}
	return out
}
