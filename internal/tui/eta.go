package tui

import (
	"time"

	"github.com/oedl/oedl/internal/event"
)

// Trend says where the predicted finish is moving.
type Trend string

const (
	TrendUnknown Trend = ""
	TrendSteady  Trend = "steady"
	TrendRising  Trend = "rising"  // the finish moves later
	TrendFalling Trend = "falling" // the finish comes closer
)

// ETA is the time left as the run's live estimate gave it (the latest eta
// event: the estimate re-run over the work left, internal/eta), counted
// down to the State's clock. The screen, the plain printer and `oedl
// status` all show this one, so they cannot disagree.
type ETA struct {
	Known bool `json:"known"`
	// Remaining is the estimate's; P50 and P90 its range, all counted
	// down since the estimate was made (At).
	Remaining time.Duration `json:"remaining_ns,omitempty"`
	P50       time.Duration `json:"p50_ns,omitempty"`
	P90       time.Duration `json:"p90_ns,omitempty"`
	Finish    time.Time     `json:"finish,omitzero"`
	At        time.Time     `json:"at,omitzero"`
	Trend     Trend         `json:"trend,omitempty"`
	// BoundBy names the table whose dump and loads the finish waits for;
	// QueueBound: what is left waits mostly for slots.
	BoundBy    string `json:"bound_by,omitempty"`
	QueueBound bool   `json:"queue_bound,omitempty"`
	// Overdue: a job that reports nothing until it ends (the index
	// rebuild, a tabanalys, a batch of loads) has run past its predicted
	// duration; the remaining time is a guess until it ends. OverdueJob
	// is its ID, for the screen to name it: during the dumps it is not
	// the index rebuild.
	Overdue    bool   `json:"overdue,omitempty"`
	OverdueJob string `json:"overdue_job,omitempty"`
	// IdxbuildExpected is the duration predicted for the running index
	// rebuild (0 when none runs).
	IdxbuildExpected time.Duration `json:"idxbuild_expected_ns,omitempty"`
	// Before is the window the estimate of the run's graph predicted
	// before it started (0 when it made none).
	Before time.Duration `json:"before_ns,omitempty"`
	Reason string        `json:"reason,omitempty"` // why it is not known
}

// applyETA keeps the latest eta event.
func (s *State) applyETA(e event.Event) {
	if e.ETA == nil {
		return
	}
	s.live, s.liveAt = e.ETA, e.Time
}

// ETA is the time left now.
func (s *State) ETA() ETA {
	var before time.Duration
	if s.before != nil {
		before = s.before.Window
	}
	switch {
	case s.Finished:
		return ETA{Before: before}
	case s.live == nil:
		return ETA{Before: before, Reason: "no estimate yet"}
	}
	since := max(0, s.Now.Sub(s.liveAt))
	left := func(d time.Duration) time.Duration { return max(0, d-since).Round(time.Second) }
	l := s.live
	return ETA{Known: true, Remaining: left(l.Remaining), P50: left(l.P50), P90: left(l.P90), Finish: l.Finish, At: s.liveAt,
		Trend: Trend(l.Trend), BoundBy: l.BoundBy, QueueBound: l.QueueBound, Overdue: l.Overdue != "", OverdueJob: l.Overdue,
		IdxbuildExpected: l.IdxbuildExpected, Before: before}
}
