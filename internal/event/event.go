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
	// JobCancelled: the job was stopped because the run was interrupted
	// (Ctrl-C, SIGTERM); it is not a failure, and --resume runs it again.
	JobCancelled Kind = "job_cancelled"
	Warning      Kind = "warning"
	// ETA: the estimate re-run over the work left, with what the run has
	// measured so far (ETA holds it).
	ETAKind Kind = "eta"
	// TuneKind: the run moved a slot limit while it goes (oedl run
	// --tune): Tune says which, why and on what figures.
	TuneKind Kind = "tune"
)

// Why a job failed (Event.Reason), decided from exit codes, signals,
// timeouts and message numbers, never from English text.
const (
	ReasonExit        = "exit"               // non-zero exit code (ExitCode)
	ReasonSignal      = "signal"             // killed by a signal (Signal): kill -9, the OOM killer
	ReasonHang        = "hang"               // no end within the job's timeout (Timeout); oedl killed it
	ReasonDiskFull    = "disk_full"          // the utility reported errno 28 (ENOSPC)
	ReasonNoSuccess   = "no_success_message" // exit 0 without its success message number
	ReasonCouldNotRun = "could_not_run"      // the program did not start
	ReasonCancelled   = "cancelled"          // stopped by an interrupt (job_cancelled)
	ReasonError       = "error"              // anything else: a missing file, a journal write
)

// How a run ended (Event.Status on run_finished).
const (
	StatusVerified    = "verified"    // every job done and every table's count matches
	StatusFailed      = "failed"      // a job failed for good, or verify found a mismatch
	StatusInterrupted = "interrupted" // stopped by Ctrl-C or SIGTERM; --resume continues
)

// VerifySummary is the verification of a run, on run_finished.
type VerifySummary struct {
	OK             bool   `json:"ok"`
	Tables         int    `json:"tables"`
	Mismatched     int    `json:"mismatched"`
	RecordsBefore  int64  `json:"records_before"`
	RecordsAfter   int64  `json:"records_after"`
	ChecksumBefore string `json:"checksum_before"` // sha256 of the sorted "table count" lines
	ChecksumAfter  string `json:"checksum_after"`
}

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
	Host    string `json:"host,omitempty"` // where the job runs, on several hosts (docs/hosts.md)
	Attempt int    `json:"attempt,omitempty"`
	// Batch names the load batch a table's load went through (its job
	// ID, load-batch:AREA:N): the batch's events are told as the loads of
	// its tables, and their elapsed_ns is the batch's call.
	Batch string `json:"batch,omitempty"`

	Records      int64 `json:"records,omitempty"` // so far, or final on job_finished
	Bytes        int64 `json:"bytes,omitempty"`
	TotalRecords int64 `json:"total_records,omitempty"` // expected, when known
	TotalBytes   int64 `json:"total_bytes,omitempty"`

	Elapsed time.Duration `json:"elapsed_ns,omitempty"`
	Message string        `json:"message,omitempty"`
	Err     string        `json:"error,omitempty"`
	Log     string        `json:"log,omitempty"` // path of the job's log

	// Failures (job_failed, job_cancelled): why, in a form a script can
	// test; Err says it in words.
	Reason   string        `json:"reason,omitempty"`     // one of the Reason* constants
	ExitCode int           `json:"exit_code,omitempty"`  // ReasonExit, ReasonDiskFull
	Signal   string        `json:"signal,omitempty"`     // ReasonSignal: "SIGKILL"
	Timeout  time.Duration `json:"timeout_ns,omitempty"` // ReasonHang: the limit it ran past
	// Retrying: another attempt follows (job_retry comes next), so the
	// failure is not the job's end.
	Retrying bool `json:"retrying,omitempty"`

	// run_started: the outage began at Since (the first invocation's
	// start; a resume keeps counting from it), this is invocation Attempt,
	// with the Settings that shape the queue and the versions in use.
	Since           time.Time        `json:"since,omitzero"`
	Settings        map[string]int64 `json:"settings,omitempty"`
	OEDLVersion     string           `json:"oedl_version,omitempty"`
	OpenEdgeVersion string           `json:"openedge_version,omitempty"`
	// InPlace (run_started): the same oedl process starts again after an
	// attempt whose failures only a resume repairs (run.Run), not a
	// --resume: the screen's clock and phases go on from the attempt's.
	InPlace bool `json:"in_place,omitempty"`

	// run_started: what the estimate of the run's own graph said before
	// it started.
	Estimate *Estimate `json:"estimate,omitempty"`
	// eta: the time left.
	ETA *ETA `json:"eta,omitempty"`
	// tune: a slot limit moved.
	Tune *Tune `json:"tune,omitempty"`

	// run_finished: how the run ended, and its verification when it ran.
	Status string         `json:"status,omitempty"`
	Verify *VerifySummary `json:"verify,omitempty"`
}

// Estimate is what the estimate of a run's own graph (internal/estimate,
// the same queue on a simulated clock) said before it started.
type Estimate struct {
	Window time.Duration `json:"window_ns"` // the outage window
	// P50 and P90 of the window over the model's uncertainty (0 when no
	// range was computed).
	P50    time.Duration   `json:"p50_ns,omitempty"`
	P90    time.Duration   `json:"p90_ns,omitempty"`
	Phases []PhaseEstimate `json:"phases,omitempty"`
	Model  string          `json:"model,omitempty"` // where the costs come from
	// Priors: the costs are the built-in priors, not a calibration of the
	// machine (the report says the estimate knew nothing of it).
	Priors bool `json:"priors,omitempty"`
}

// PriorsOnly is how a figure from the built-in priors is labelled wherever
// the DBA reads it (the report, the run's first lines): nothing of this
// machine is in it, and oedl calibrate would put it in. It names the flag
// too: a DBA who calibrated and estimated with it, then ran without it,
// ran a queue sized from the priors against the priors' estimate, not the
// window promised (nu-trial10).
const PriorsOnly = "from the built-in priors only (no calibration of this machine: oedl calibrate, then --calibration FILE)"

// PhaseEstimate is one phase of the estimated window, from the start of
// the run: from its first job's start to its last job's end.
type PhaseEstimate struct {
	Phase string        `json:"phase"` // schedule.Phase
	Start time.Duration `json:"start_ns"`
	End   time.Duration `json:"end_ns"`
}

// ETA is the time a run has left: the estimate re-run over the work left,
// with the model's costs corrected by what the run measured so far.
type ETA struct {
	Remaining time.Duration `json:"remaining_ns"` // from the event's time
	P50       time.Duration `json:"p50_ns"`
	P90       time.Duration `json:"p90_ns"`
	Finish    time.Time     `json:"finish"` // Time + Remaining
	// Trend compares Finish with the one forecast about 30 s before:
	// "rising" (later by more than 5 % of the time left, or 10 s),
	// "falling", "steady"; "" until there is one that old.
	Trend string `json:"trend,omitempty"`
	// BoundBy is the table whose dump and loads the finish waits for;
	// QueueBound, when what is left waits mostly for slots.
	BoundBy    string `json:"bound_by,omitempty"`
	QueueBound bool   `json:"queue_bound,omitempty"`
	// Overdue names a job that reports nothing until it ends (idxbuild,
	// analyze-source, a load batch) and has run past its predicted time:
	// the remaining time is a guess.
	Overdue string `json:"overdue,omitempty"`
	// IdxbuildExpected is the predicted duration of the running index
	// rebuild.
	IdxbuildExpected time.Duration `json:"idxbuild_expected_ns,omitempty"`
	// Factors are the corrections of the model by group of jobs.
	Factors map[string]Factors `json:"factors,omitempty"`
	Samples int                `json:"samples,omitempty"`
	// CPU is the CPU time computing it took.
	CPU time.Duration `json:"cpu_ns,omitempty"`
}

// Factors scale the model's costs of a group of jobs: their start-ups and
// their work, fitted on the run's jobs; Evidence is the predicted seconds
// of the jobs behind them (0: the prior alone).
type Factors struct {
	Startup  float64 `json:"startup"`
	Work     float64 `json:"work"`
	Evidence float64 `json:"evidence_s"`
}

// Tune is one move of a slot limit by the run's tuner (internal/tune),
// with the figures of the interval it decided on.
type Tune struct {
	Slot   string `json:"slot"` // dump, load (dump@HOST, load@HOST on several hosts)
	From   int    `json:"from"`
	To     int    `json:"to"`
	Reason string `json:"reason"` // "waiting": jobs waited for a slot and no resource was busy; "contention": the last raise did not raise the bound resource's throughput
	// The interval: the share of the cores the run kept busy, the share
	// all processes did, the disk's busy share (each -1: unknown), the
	// disk's throughput, the class's jobs running and waiting.
	CPUBusy     float64 `json:"cpu_busy"`
	MachineBusy float64 `json:"machine_busy"`
	DiskBusy    float64 `json:"disk_busy"`
	DiskBytes   float64 `json:"disk_bytes_per_s"`
	Running     int     `json:"running"`
	Waiting     int     `json:"waiting"`
	// contention: the throughput compared (disk bytes/s when the disk
	// bound, else the class's jobs/s) since the raise and before it.
	Rate   float64 `json:"rate,omitempty"`
	Before float64 `json:"before,omitempty"`
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
