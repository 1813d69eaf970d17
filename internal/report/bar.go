package report

import (
	"time"

	"github.com/oedl/oedl/internal/schedule"
)

// Bar is one job on a Gantt chart, on a clock that starts at zero (the start
// of the run, actual or simulated).
type Bar struct {
	Label string // the row label, e.g. "load PUB.customer"
	// Group gathers bars that may share one row when there are too many to
	// draw one row each (see GanttSVG). BarsFromSpans uses the job kind.
	Group    string
	Kind     string // colours the bar: dump, load, idxbuild, ...
	Start    time.Duration
	End      time.Duration
	Critical bool // on the critical path: drawn with a heavy outline
	Failed   bool // the job failed: drawn hatched in red
}

// Duration is End - Start.
func (b Bar) Duration() time.Duration { return b.End - b.Start }

// BarsFromSpans turns the spans of a dispatch (real or simulated) into bars,
// in start order. critical holds the IDs of the jobs on the critical path
// (see CriticalSpans); it may be nil.
func BarsFromSpans(res *schedule.Result, critical map[string]bool) []Bar {
	if res == nil {
		return nil
	}
	bars := make([]Bar, 0, len(res.Spans))
	for _, s := range res.Spans {
		if s.Job == nil {
			continue
		}
		bars = append(bars, Bar{
			Label:    JobLabel(s.Job),
			Group:    string(s.Job.Kind),
			Kind:     string(s.Job.Kind),
			Start:    nonNegative(s.Start.Sub(res.Start)),
			End:      nonNegative(s.End.Sub(res.Start)),
			Critical: critical[s.Job.ID],
			Failed:   s.Err != nil,
		})
	}
	return bars
}

// JobLabel is how a job is named to a human: "load PUB.customer #2" rather
// than its journal ID "load:PUB.customer:2".
func JobLabel(j *schedule.Job) string {
	switch {
	case j.Table == "":
		return j.ID
	case j.Section > 1:
		return string(j.Kind) + " " + j.Table + " #" + itoa(j.Section)
	default:
		return string(j.Kind) + " " + j.Table
	}
}

func nonNegative(d time.Duration) time.Duration {
	if d < 0 {
		return 0
	}
	return d
}
