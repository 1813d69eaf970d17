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
	Overall  float64       `json:"overall"` // fraction of all bytes dumped, loaded and indexed
	Progress []Progress    `json:"progress"`
	Counts   Counts        `json:"counts"`
	ETA      ETA           `json:"eta"`
	Running  []Job         `json:"running"`
	Failures []Failure     `json:"failures,omitempty"`
	Warnings []string      `json:"warnings,omitempty"`
}

// Snapshot copies the picture.
func (s *State) Snapshot() Snapshot {
	return Snapshot{
		V: event.SchemaVersion, Phase: s.CurrentPhase(), Started: s.Started, Now: s.Now, Elapsed: s.Elapsed(),
		Finished: s.Finished, Err: s.Err, Overall: s.Overall(), Progress: s.Progress(), Counts: s.counts,
		ETA: s.ETA(), Running: s.Running(), Failures: s.Failures(), Warnings: s.Warnings(),
	}
}

// MarshalJSON writes the Snapshot.
func (s *State) MarshalJSON() ([]byte, error) { return json.Marshal(s.Snapshot()) }

// CurrentPhase is the last Phase event, or, when the runner does not send
// them, what the running jobs are doing ("dump+load").
func (s *State) CurrentPhase() string {
	if s.Finished {
		if s.Err != "" {
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
