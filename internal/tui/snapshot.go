package tui

import (
	"encoding/json"
	"time"

	"github.com/oedl/oedl/internal/event"
)

// Snapshot is the picture at one moment, for `oedl status --json` and for
// anything that wants the State as data. Its fields are the JSON schema
// (docs/events.md); V is event.SchemaVersion.
type Snapshot struct {
	V        int           `json:"v"`
	Phase    string        `json:"phase,omitempty"`
	Started  time.Time     `json:"started,omitzero"`
	Now      time.Time     `json:"now,omitzero"`
	Elapsed  time.Duration `json:"elapsed_ns"`
	Finished bool          `json:"finished"`
	Err      string        `json:"error,omitempty"`
	Status   string        `json:"status,omitempty"` // how it ended: verified, failed, interrupted
	// Since: the outage began (the first invocation's start); Outage counts
	// from it across resumes, Elapsed is this invocation's.
	Since      time.Time     `json:"since,omitzero"`
	Outage     time.Duration `json:"outage_ns,omitempty"`
	Invocation int           `json:"invocation,omitempty"`
	Phases     []PhaseTime   `json:"phases,omitempty"`
	Overall    float64       `json:"overall"` // fraction of all bytes dumped, loaded and indexed
	// BytesPerSecond: what the running dumps and loads move now.
	BytesPerSecond float64    `json:"bytes_per_second,omitempty"`
	Waiting        []Wait     `json:"waiting,omitempty"`
	Progress       []Progress `json:"progress"`
	Counts         Counts     `json:"counts"`
	ETA            ETA        `json:"eta"`
	Running        []Job      `json:"running"`
	Failures       []Failure  `json:"failures,omitempty"`
	Warnings       []string   `json:"warnings,omitempty"`
}

// PhaseTime is a phase and how long it took (so far, when it runs), in
// which invocation and how it ended (PhaseSpan).
type PhaseTime struct {
	Name       string        `json:"name"`
	Start      time.Time     `json:"start"`
	Duration   time.Duration `json:"duration_ns"`
	Running    bool          `json:"running,omitempty"`
	State      string        `json:"state"`
	Invocation int           `json:"invocation,omitempty"`
	// Restarts: the run resumed in place this many times while in it.
	Restarts int `json:"restarts,omitempty"`
}

// Snapshot copies the picture.
func (s *State) Snapshot() Snapshot {
	snap := Snapshot{
		V: event.SchemaVersion, Phase: s.CurrentPhase(), Started: s.Started, Now: s.Now, Elapsed: s.Elapsed(),
		Finished: s.Finished, Err: s.Err, Status: s.Status, Since: s.Since, Outage: s.Outage(), Invocation: s.Invocation,
		Overall: s.Overall(), BytesPerSecond: s.Throughput(), Waiting: s.Waiting(), Progress: s.Progress(), Counts: s.Counts(),
		ETA: s.ETA(), Running: s.Running(), Failures: s.Failures(), Warnings: s.Warnings(),
	}
	for _, p := range s.phases {
		end, running := p.End, p.End.IsZero()
		if running {
			end = s.Now
		}
		snap.Phases = append(snap.Phases, PhaseTime{Name: p.Name, Start: p.Start, Duration: end.Sub(p.Start), Running: running && !s.Finished,
			State: p.State, Invocation: p.Invocation, Restarts: p.Restarts})
	}
	return snap
}

// MarshalJSON writes the Snapshot.
func (s *State) MarshalJSON() ([]byte, error) { return json.Marshal(s.Snapshot()) }

// CurrentPhase is the last Phase event, or, when the runner does not send
// them, what the running jobs are doing ("dump+load").
func (s *State) CurrentPhase() string {
	if s.Finished {
		switch {
		case s.Status == event.StatusInterrupted:
			return "cancelled"
		case s.Err != "":
			return "failed"
		}
		return "finished"
	}
	if s.Phase != "" {
		return s.Phase
	}
	seen := map[string]bool{}
	var kinds []string
	for _, k := range append(append([]string{}, progressKinds...), "preflight", "create-target", "analyze-source", "analyze-target", "verify", "post") {
		for _, j := range s.running {
			if j.Kind == k && !seen[k] {
				seen[k] = true
				kinds = append(kinds, k)
			}
		}
	}
	switch len(kinds) {
	case 0:
		if s.counts.Done+s.counts.Skipped == 0 {
			return "starting"
		}
		return "waiting"
	case 1:
		return kinds[0]
	}
	return kinds[0] + "+" + kinds[1]
}
