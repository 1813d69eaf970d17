// Package event is the typed stream that every part of a run reports through.
// Workers emit events and never print; the journal, the TUI, the plain and
// JSON printers, the log and the report are all consumers of this stream.
package event

import "time"

// SchemaVersion is the "v" field of every JSON event (oedl run --json).
// Bump it when a field changes meaning or disappears; adding fields is free.
const SchemaVersion = 1

// Kind is what happened.
type Kind string

const (
	RunStarted  Kind = "run_started"  // Total* fields describe the whole run
	RunFinished Kind = "run_finished" // Err set when the run failed
	Phase       Kind = "phase"        // Phase entered
	JobQueued   Kind = "job_queued"
	JobStarted  Kind = "job_started"
	JobProgress Kind = "job_progress" // Records / Bytes so far
	JobFinished Kind = "job_finished"
	JobFailed   Kind = "job_failed" // Err and Log set; Attempt says which try
	JobRetry    Kind = "job_retry"
	JobSkipped  Kind = "job_skipped" // already done in the journal (resume)
	Warning     Kind = "warning"
)

// Event is one state change. Fields that do not apply are zero and omitted
// from JSON.
type Event struct {
	V    int       `json:"v"`
	Time time.Time `json:"time"`
	Kind Kind      `json:"kind"`

	Phase   string `json:"phase,omitempty"`
	Job     string `json:"job,omitempty"`      // stable job id, e.g. "dump:PUB.customer"
	JobKind string `json:"job_kind,omitempty"` // dump, load, idxbuild, ...
	Table   string `json:"table,omitempty"`
	Area    string `json:"area,omitempty"`
	Attempt int    `json:"attempt,omitempty"`

	Records      int64 `json:"records,omitempty"` // so far, or final on job_finished
	Bytes        int64 `json:"bytes,omitempty"`
	TotalRecords int64 `json:"total_records,omitempty"` // expected, when known
	TotalBytes   int64 `json:"total_bytes,omitempty"`

	Elapsed time.Duration `json:"elapsed_ns,omitempty"`
	Message string        `json:"message,omitempty"`
	Err     string        `json:"error,omitempty"`
	Log     string        `json:"log,omitempty"` // path of the job's log
}

// Sink consumes events. Emit must not block for long: a slow consumer must
// buffer or drop progress events, never stall the workers.
type Sink interface {
	Emit(Event)
}

// SinkFunc adapts a function to Sink.
type SinkFunc func(Event)

// Emit calls f.
func (f SinkFunc) Emit(e Event) { f(e) }

// Multi fans an event out to several sinks, in order, stamping V and Time.
type Multi []Sink

// Emit sends e to every sink.
func (m Multi) Emit(e Event) {
	if e.V == 0 {
		e.V = SchemaVersion
	}
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	for _, s := range m {
		s.Emit(e)
	}
}
