package report

import (
	"encoding/json"
	"io"
	"time"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/poststeps"
)

// JSONVersion is the "v" of `oedl report --json`; it changes only when a
// field changes meaning or goes away (adding fields keeps it).
const JSONVersion = 1

// JSON is `oedl report --json`: the data report.md is made from, in the
// shape of `oedl status --json` (snake_case keys, durations in
// nanoseconds as "*_ns", times in RFC 3339, "v" first). Durations "at"
// a moment are from the run's start, as in the report's tables. The Gantt
// chart's bars are not in it: they are the journal's jobs, which
// journal.jsonl holds already (docs/events.md).
type JSON struct {
	V           int              `json:"v"`
	Title       string           `json:"title"`
	Source      string           `json:"source,omitempty"`
	Target      string           `json:"target,omitempty"`
	Work        string           `json:"work"`
	Started     time.Time        `json:"started,omitzero"`
	Ended       time.Time        `json:"ended,omitzero"`
	Outage      time.Duration    `json:"outage_ns"`
	Finished    bool             `json:"finished"`
	Interrupted bool             `json:"interrupted,omitempty"`
	Err         string           `json:"error,omitempty"`
	Verdict     JSONVerdict      `json:"verdict"`
	Invocations []JSONInvocation `json:"invocations,omitempty"`
	OEDL        string           `json:"oedl_version,omitempty"`
	OpenEdge    string           `json:"openedge_version,omitempty"`
	Records     *JSONRecords     `json:"records,omitempty"` // nil: not verified
	TotalBytes  int64            `json:"total_bytes"`
	TotalRecs   int64            `json:"total_records"`
	Batches     *JSONBatches     `json:"batches,omitempty"`
	Estimate    *event.Estimate  `json:"estimate,omitempty"`
	TrueBound   *JSONPart        `json:"true_bound,omitempty"`
	Preparation *JSONPreparation `json:"preparation,omitempty"`
	Phases      []JSONPhase      `json:"phases"`
	Kinds       []JSONKind       `json:"kinds"`
	Tables      []JSONTable      `json:"tables"`
	Slowest     []string         `json:"slowest"` // table names, slowest first; their rows are in tables
	Critical    []JSONStep       `json:"critical_path"`
	Throughput  []JSONRate       `json:"throughput"`
	Failures    []JSONFailure    `json:"failures"`
	Hosts       []JSONHost       `json:"hosts,omitempty"`
	PostSteps   []poststeps.Step `json:"post_steps,omitempty"`
}

// JSONVerdict is Verdict; "state" is the one word scripts switch on.
type JSONVerdict struct {
	OK       bool     `json:"ok"`
	State    string   `json:"state"`
	Headline string   `json:"headline"`
	Details  []string `json:"details,omitempty"`
}

// JSONInvocation is one `oedl run` of the work directory.
type JSONInvocation struct {
	Start   time.Time `json:"start"`
	End     time.Time `json:"end,omitzero"` // absent: killed, no end recorded
	Outcome string    `json:"outcome"`
	Message string    `json:"message,omitempty"`
	// InPlace: oedl started again by itself (Invocation.InPlace).
	InPlace bool `json:"in_place,omitempty"`
}

// JSONRecords is the verification's counts and checksums.
type JSONRecords struct {
	Before         int64  `json:"before"`
	After          int64  `json:"after"`
	ChecksumBefore string `json:"checksum_before"`
	ChecksumAfter  string `json:"checksum_after"`
}

// JSONBatches is Batches: Tables small tables loaded in Calls utility calls.
type JSONBatches struct {
	Tables int `json:"tables"`
	Calls  int `json:"calls"`
}

// JSONPart is the true lower bound: its largest part.
type JSONPart struct {
	Name string        `json:"name"`
	Time time.Duration `json:"time_ns"`
	Note string        `json:"note,omitempty"`
	// Weak: the disk's bandwidth was unknown, every job counted at its
	// calls only, and the CPU does not bind; no ratio to it means anything
	// (truebound.Bound.WeakMax).
	Weak bool `json:"weak,omitempty"`
}

// JSONPreparation is the `oedl prepare` done before the window.
type JSONPreparation struct {
	Start        time.Time     `json:"start"`
	End          time.Time     `json:"end"`
	CreateTarget time.Duration `json:"create_target_ns"`
}

// JSONPhase is PhaseTiming.
type JSONPhase struct {
	Name      string         `json:"name"`
	Start     time.Duration  `json:"start_ns"`
	End       time.Duration  `json:"end_ns"`
	Duration  time.Duration  `json:"duration_ns"`
	Jobs      int            `json:"jobs"`
	Estimated *time.Duration `json:"estimated_ns,omitempty"` // absent: the estimate had no such phase
}

// JSONKind is KindTiming.
type JSONKind struct {
	Kind   string        `json:"kind"`
	Jobs   int           `json:"jobs"`
	Failed int           `json:"failed"`
	Busy   time.Duration `json:"busy_ns"`
	Start  time.Duration `json:"start_ns"`
	End    time.Duration `json:"end_ns"`
	Bytes  int64         `json:"bytes"`
}

// JSONTable is TableRow; the counts are absent when not verified.
type JSONTable struct {
	Table         string        `json:"table"`
	Area          string        `json:"area,omitempty"`
	Bytes         int64         `json:"bytes"`
	RecordsBefore *int64        `json:"records_before,omitempty"`
	RecordsAfter  *int64        `json:"records_after,omitempty"`
	Status        string        `json:"status,omitempty"`
	Dump          time.Duration `json:"dump_ns"`
	Load          time.Duration `json:"load_ns"`
	Attempts      int           `json:"attempts"`
}

// JSONStep is one step of the critical path.
type JSONStep struct {
	Label string        `json:"label"`
	Kind  string        `json:"kind"`
	Start time.Duration `json:"start_ns"`
	End   time.Duration `json:"end_ns"`
	Jobs  int           `json:"jobs"`
}

// JSONRate is one bucket of throughput, in bytes per second.
type JSONRate struct {
	At         time.Duration `json:"at_ns"`
	Width      time.Duration `json:"width_ns"`
	DumpPerSec float64       `json:"dump_bytes_per_second"`
	LoadPerSec float64       `json:"load_bytes_per_second"`
}

// JSONFailure is FailureRow.
type JSONFailure struct {
	Job     string        `json:"job"`
	Attempt int           `json:"attempt"`
	At      time.Duration `json:"at_ns"`
	Reason  string        `json:"reason,omitempty"`
	Err     string        `json:"error"`
	Log     string        `json:"log,omitempty"`
	Outcome string        `json:"outcome"`
}

// JSONHost is HostRow.
type JSONHost struct {
	Name       string        `json:"name"`
	Role       string        `json:"role,omitempty"`
	SSH        string        `json:"ssh,omitempty"`
	Jobs       int           `json:"jobs"`
	Failed     int           `json:"failed"`
	Dumps      int           `json:"dumps"`
	DumpBytes  int64         `json:"dump_bytes"`
	Moves      int           `json:"moves"`
	MovedBytes int64         `json:"moved_bytes"`
	Loads      int           `json:"loads"`
	Start      time.Duration `json:"start_ns"`
	End        time.Duration `json:"end_ns"`
}

// ToJSON is d as `oedl report --json` prints it. Lists a script ranges
// over are [] rather than null when empty.
func ToJSON(d Data) JSON {
	j := JSON{V: JSONVersion, Title: d.Title, Source: d.Source, Target: d.Target, Work: d.Work,
		Started: d.Started, Ended: d.Ended, Finished: d.Finished, Interrupted: d.Interrupted, Err: d.RunErr,
		Verdict: JSONVerdict{OK: d.Verdict.OK, State: d.Verdict.State, Headline: d.Verdict.Headline, Details: d.Verdict.Details},
		OEDL:    d.OEDLVersion, OpenEdge: d.OpenEdgeVersion, TotalBytes: d.TotalBytes, TotalRecs: d.TotalRecords,
		Estimate: d.Estimate, PostSteps: d.PostSteps,
		Phases: []JSONPhase{}, Kinds: []JSONKind{}, Tables: []JSONTable{}, Slowest: []string{},
		Critical: []JSONStep{}, Throughput: []JSONRate{}, Failures: []JSONFailure{}}
	if !d.Started.IsZero() && !d.Ended.IsZero() {
		j.Outage = d.Ended.Sub(d.Started)
	}
	for _, inv := range d.Invocations {
		j.Invocations = append(j.Invocations, JSONInvocation{Start: inv.Start, End: inv.End, Outcome: inv.Outcome, Message: inv.Message, InPlace: inv.InPlace})
	}
	if d.ChecksumBefore != "" {
		j.Records = &JSONRecords{Before: d.RecordsBefore, After: d.RecordsAfter, ChecksumBefore: d.ChecksumBefore, ChecksumAfter: d.ChecksumAfter}
	}
	if d.Batches.Calls > 0 {
		j.Batches = &JSONBatches{Tables: d.Batches.Tables, Calls: d.Batches.Calls}
	}
	if d.TrueBound != nil {
		m := d.TrueBound.Max()
		j.TrueBound = &JSONPart{Name: m.Name, Time: m.Time, Note: m.Note, Weak: d.TrueBound.WeakMax()}
	}
	if p := d.Preparation; p != nil {
		j.Preparation = &JSONPreparation{Start: p.Start, End: p.End, CreateTarget: p.CreateTarget}
	}
	for _, p := range d.Phases {
		jp := JSONPhase{Name: p.Name, Start: p.Start, End: p.End, Duration: p.Duration(), Jobs: p.Jobs}
		if p.EstimatedOK {
			e := p.Estimated
			jp.Estimated = &e
		}
		j.Phases = append(j.Phases, jp)
	}
	for _, k := range d.Kinds {
		j.Kinds = append(j.Kinds, JSONKind{Kind: k.Kind, Jobs: k.Jobs, Failed: k.Failed, Busy: k.Busy, Start: k.Start, End: k.End, Bytes: k.Bytes})
	}
	for _, t := range d.Tables {
		jt := JSONTable{Table: t.Table, Area: t.Area, Bytes: t.Bytes, Status: t.Status, Dump: t.Dump, Load: t.Load, Attempts: t.Attempts}
		if t.RecordsBefore >= 0 { // -1: unknown, no verification
			before, after := t.RecordsBefore, t.RecordsAfter
			jt.RecordsBefore, jt.RecordsAfter = &before, &after
		}
		j.Tables = append(j.Tables, jt)
	}
	for _, t := range d.Slowest {
		j.Slowest = append(j.Slowest, t.Table)
	}
	for _, s := range d.Critical {
		j.Critical = append(j.Critical, JSONStep{Label: s.Label, Kind: s.Kind, Start: s.Start, End: s.End, Jobs: s.Jobs})
	}
	for _, r := range d.Throughput {
		j.Throughput = append(j.Throughput, JSONRate{At: r.At, Width: r.Width, DumpPerSec: r.DumpPerSec, LoadPerSec: r.LoadPerSec})
	}
	for _, f := range d.Failures {
		j.Failures = append(j.Failures, JSONFailure{Job: f.Job, Attempt: f.Attempt, At: f.At, Reason: f.Reason, Err: f.Err, Log: f.Log, Outcome: f.Outcome})
	}
	for _, h := range d.Hosts {
		j.Hosts = append(j.Hosts, JSONHost{Name: h.Name, Role: h.Role, SSH: h.SSH, Jobs: h.Jobs, Failed: h.Failed, Dumps: h.Dumps,
			DumpBytes: h.DumpBytes, Moves: h.Moves, MovedBytes: h.MovedBytes, Loads: h.Loads, Start: h.Start, End: h.End})
	}
	return j
}

// WriteJSON writes d as `oedl report --json` prints it, indented as
// `oedl status --json` is.
func WriteJSON(w io.Writer, d Data) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(ToJSON(d))
}
