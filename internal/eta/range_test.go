package eta

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/schedule"
	"github.com/oedl/oedl/internal/tui"
)

// A run replayed as its events, its jobs stretch times what the estimate
// said, through the tracker (forecasts with and between ranges) and then,
// with the eta events it sent, through the fold the screen, the plain
// lines and `oedl status` share (tui.State, as scripts/etareplay replays):
// at every moment the ETA they show is its range's P50 and below its P90.
// The old code sent the samples' median, above the forecast ("ETA 10s
// (P50–P90 12s–15s)").
func TestReplayedRunShowsTheETAInItsRange(t *testing.T) {
	for _, stretch := range []float64{0.8, 1, 1.3} {
		t.Run(fmt.Sprint(stretch), func(t *testing.T) {
			live, est := liveOf(t, 60e6, 25e6, 8e6, 2e6, 1e6, 400e3)
			events, end := runEvents(est.Result(), stretch)
			var etas []event.Event
			now := t0
			tr := New(Config{Live: live, Samples: 8, Now: func() time.Time { return now },
				Out: event.SinkFunc(func(e event.Event) { etas = append(etas, e) })})
			next := 0
			for i, share := range []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9} {
				now = t0.Add(time.Duration(share * float64(end.Sub(t0))))
				for ; next < len(events) && !events[next].Time.After(now); next++ {
					tr.Emit(events[next])
				}
				_, err := tr.Forecast(context.Background(), i%3 == 0) // a range, then two forecasts between
				require.NoError(t, err)
			}
			require.Len(t, etas, 9)
			for _, e := range etas {
				at := e.Time.Sub(t0)
				assert.Equal(t, e.ETA.Remaining, e.ETA.P50, "at %s: the ETA is its range's median", at)
				assert.Greater(t, e.ETA.P90, e.ETA.P50, "at %s: a range", at)
			}

			stream := append(append([]event.Event(nil), events...), etas...)
			sort.SliceStable(stream, func(a, b int) bool { return stream[a].Time.Before(stream[b].Time) })
			s := tui.NewState()
			for _, e := range stream {
				s.Apply(e)
				for _, later := range []time.Duration{0, 700 * time.Millisecond, 1500 * time.Millisecond} {
					s.Advance(e.Time.Add(later)) // the viewers count down between two
					if shown := s.ETA(); shown.Known {
						assert.Equal(t, shown.Remaining, shown.P50, "shown at %s", s.Now.Sub(t0))
						assert.GreaterOrEqual(t, shown.P90, shown.Remaining, "shown at %s", s.Now.Sub(t0))
					}
				}
			}
		})
	}
}

// runEvents are the events of res as a run whose every job took stretch
// times its simulated time sends them, from t0, in time order: every job
// queued at the start, each dump and load reporting half its bytes
// halfway; end is when the last job ended.
func runEvents(res *schedule.Result, stretch float64) (events []event.Event, end time.Time) {
	at := func(tm time.Time) time.Time { return t0.Add(time.Duration(stretch * float64(tm.Sub(res.Start)))) }
	events = []event.Event{{V: 1, Time: t0, Kind: event.RunStarted}}
	for _, sp := range res.Spans {
		j := sp.Job
		e := event.Event{V: 1, Job: j.ID, JobKind: string(j.Kind), Table: j.Table}
		queued, started, finished := e, e, e
		queued.Time, queued.Kind, queued.TotalBytes, queued.TotalRecords = t0, event.JobQueued, j.Bytes, j.Records
		started.Time, started.Kind = at(sp.Start), event.JobStarted
		finished.Time, finished.Kind, finished.Elapsed = at(sp.End), event.JobFinished, at(sp.End).Sub(at(sp.Start))
		events = append(events, queued, started, finished)
		if (j.Kind == schedule.KindDump || j.Kind == schedule.KindLoad) && j.Bytes > 0 {
			half := e
			half.Time, half.Kind, half.Bytes = started.Time.Add(finished.Elapsed/2), event.JobProgress, j.Bytes/2
			events = append(events, half)
		}
		if finished.Time.After(end) {
			end = finished.Time
		}
	}
	sort.SliceStable(events, func(a, b int) bool { return events[a].Time.Before(events[b].Time) })
	return events, end
}
