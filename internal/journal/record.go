package journal

import (
	"time"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/sysproc"
)

// Version is the "v" field of every record. Bump it when a field changes
// meaning; adding fields is free (readers ignore unknown fields).
const Version = 1

// State is the job state change a record describes.
type State string

const (
	Started State = "started"
	Done    State = "done"
	Failed  State = "failed"
	// Repair records a repair decision: the area named in Area is dirty and
	// is about to be truncated; Message says why (which load failed).
	Repair State = "repair"
	// Running records a utility process a job started (Proc): a resume
	// finds the utilities a killed run left running by these, and stops
	// them before it repairs anything. Not a change of the job's state.
	Running State = "running"
)

// RunJob is the pseudo job of the run itself: its records mark each
// invocation of `oedl run` (started, resumed, done, failed).
const RunJob = "run"

// PrepareJob is the pseudo job of `oedl prepare`: its records (in the
// work directory's PrepareFileName, not in the run's journal) mark each
// invocation of the preparation, started and done.
const PrepareJob = "prepare"

// LogSeen is a database log's identity (device, inode and, where the
// filesystem keeps one, its creation time: an inode number is reused by
// the next file made) and size.
type LogSeen struct {
	Dev   uint64 `json:"dev"`
	Ino   uint64 `json:"ino"`
	Birth int64  `json:"birth,omitempty"`
	Size  int64  `json:"size"`
}

// File is one output file and the size it had when its job ended.
type File struct {
	Path string `json:"path"`
	Size int64  `json:"size"`
	// Host is the host the file is on, by its name in the hosts file
	// ("" = the machine oedl runs on).
	Host string `json:"host,omitempty"`
	// SHA256 of the file's bytes, when the job read them (a dump whose
	// files move to another machine, and the move): what a copy is
	// checked against end to end.
	SHA256 string `json:"sha256,omitempty"`
}

// Record is one line of the journal.
type Record struct {
	V       int       `json:"v"`
	Seq     int64     `json:"seq"` // 1, 2, ... across every invocation of the run
	Time    time.Time `json:"time"`
	Job     string    `json:"job"`
	Kind    string    `json:"kind,omitempty"` // schedule.Kind of the job
	State   State     `json:"state"`
	Attempt int       `json:"attempt,omitempty"`
	Table   string    `json:"table,omitempty"`
	Area    string    `json:"area,omitempty"`
	// Section of a load: 0 = every file of the table's dump, N = the .bd
	// section N of a threaded dump.
	Section int `json:"section,omitempty"`
	// Batch names the load batch a table's load record belongs to (its
	// job ID): the batch's own record holds the time of the call.
	Batch string `json:"batch,omitempty"`
	// Host is where the job ran, by its name in the hosts file ("" = the
	// machine oedl runs on).
	Host string `json:"host,omitempty"`

	// Proof of the outcome.
	Files   []File `json:"files,omitempty"`   // dump: .bd files and sizes; other jobs: files they wrote
	Records int64  `json:"records,omitempty"` // dump: (13932) count; load: records loaded
	// CountKnown tells that Records was read from the utility's output (a
	// load may not print its count; then only the marker proves it).
	CountKnown bool `json:"count_known,omitempty"`
	Marker     int  `json:"marker,omitempty"` // success message number seen: 6254, 6256, 11465...

	Bytes int64 `json:"bytes,omitempty"` // load: bytes of .bd read (a dump's are its Files)

	// Frozen, on the source's analysis record, says no one but this run
	// could write the source while it was counted: the run opened it
	// single-user or under the broker it started after the preflight found
	// it not in use (not --online-source). Its report still carries (2486)
	// from that broker, and standalone verify reads this to say so.
	Frozen bool `json:"frozen,omitempty"`
	// TargetLog is, on the done record of a job that opened the target,
	// the target's log as the job left it (its identity and size): the
	// resume of a killed run proves from it that the log still holds
	// every line the run saw (a log truncated or replaced since, prolog,
	// holds no evidence of who used the target: run/killedsince.go).
	TargetLog *LogSeen `json:"target_log,omitempty"`
	// SourceTask, on the preflight's record, is the source's last
	// transaction id (_MstrBlk-Lasttask) read single-user when the run was
	// about to freeze it: a resume that reads another refuses to dump the
	// rest of a source that changed since (run/fingerprint.go).
	SourceTask *int64 `json:"source_task,omitempty"`

	Elapsed time.Duration `json:"elapsed_ns,omitempty"`
	Message string        `json:"message,omitempty"`
	Err     string        `json:"error,omitempty"`
	Log     string        `json:"log,omitempty"` // the job's log file
	// Why a job failed, as event.Reason* ("signal", "hang", "cancelled",
	// ...), with its figures. Older journals have none: Err says it.
	Reason   string        `json:"reason,omitempty"`
	ExitCode int           `json:"exit_code,omitempty"`
	Signal   string        `json:"signal,omitempty"`
	Timeout  time.Duration `json:"timeout_ns,omitempty"`

	// Run records only: what this invocation runs, so that a resume can
	// refuse a different plan or database.
	Plan string `json:"plan,omitempty"` // sha256 of plan.json
	// PlanFiles are the plan's target.st and target.df with their SHA-256:
	// plan.json's hash does not cover them, and a resume may create the
	// target again from them (safety trial 10).
	PlanFiles []File `json:"plan_files,omitempty"`
	Source    string `json:"source,omitempty"` // source database
	Target    string `json:"target,omitempty"` // target database
	// PlanDir and HostsFile are the --plan directory and the --hosts
	// file as the run took them (absolute): with Source and Target, what
	// `oedl status` needs to print the whole command that continues it.
	PlanDir   string `json:"plan_dir,omitempty"`
	HostsFile string `json:"hosts_file,omitempty"`
	// Calibration is the --calibration file the invocation was estimated
	// with (absolute; "" for the built-in priors), for the same command.
	Calibration string `json:"calibration,omitempty"`
	// HostsPlaces say, per host of the hosts file, where the run works
	// there (role, ssh destination, database, $DLC, work directory): a
	// resume whose hosts file places them elsewhere is refused (safety
	// trial 11).
	HostsPlaces []string `json:"hosts_places,omitempty"`
	PID         int      `json:"pid,omitempty"` // the oedl process of this invocation
	// Settings that shape the job graph (dump/load concurrency, threaded
	// dumps): a resume reuses them, so that a table dumped in sections is
	// not loaded again as a whole.
	Settings map[string]int64 `json:"settings,omitempty"`
	// Warnings are what the preflight let pass but the DBA must hear (a
	// source dumped online), for the screen and the report.
	Warnings []string `json:"warnings,omitempty"`
	// Prepared, on a run record, is when `oedl prepare` finished the
	// target this run keeps: create-target is not part of the run (the
	// run's first invocation proved the target untouched since).
	Prepared *time.Time `json:"prepared,omitempty"`
	// Estimate is what the estimate of the run's own graph said when this
	// invocation started (the report's estimate against actual).
	Estimate *event.Estimate `json:"estimate,omitempty"`

	// Created lists the files a job created (create-target: every file of
	// the new database, as the target's record DB.oedl.json names them).
	// Not proof of an outcome: the files change as the run goes on.
	Created []File `json:"created,omitempty"`
	// The programs of this invocation: oedl's version and OpenEdge's
	// ($DLC/version), for the report.
	OEDLVersion     string `json:"oedl_version,omitempty"`
	OpenEdgeVersion string `json:"openedge_version,omitempty"`

	// Proc is a process: on a Running record the utility a job started, on
	// a run record oedl itself. The start time and boot tell it from a
	// later process given the same PID. Absent from journals written
	// before oedl recorded processes.
	Proc *sysproc.ID `json:"proc,omitempty"`
	// Broker is, on a serve job's done record, the broker it started (its
	// PID from proserve's (5644), with its start time): a resume shuts a
	// broker down only while that process still serves, never one the DBA
	// started on the database after the kill.
	Broker *sysproc.ID `json:"broker,omitempty"`
}

// Event converts the record to the event stream, so that `oedl status` and
// the report can replay a run with the same consumers as a live one. Job
// IDs become the stable IDs the live events carry (event.StableID: a
// reload is "load:PUB.x" again, its attempt says which).
func (r Record) Event() event.Event {
	e := event.Event{
		V: event.SchemaVersion, Time: r.Time, Job: event.StableID(r.Job), JobKind: r.Kind,
		Table: r.Table, Area: r.Area, Host: r.Host, Attempt: r.Attempt, Records: r.Records, Bytes: r.Bytes,
		Elapsed: r.Elapsed, Message: r.Message, Err: r.Err, Log: r.Log,
		Reason: r.Reason, ExitCode: r.ExitCode, Signal: r.Signal, Timeout: r.Timeout,
	}
	for _, f := range r.Files {
		e.Bytes += f.Size
	}
	if r.Job == RunJob {
		e.Job, e.Attempt = "", 0
		switch {
		case r.State == Started:
			e.Kind = event.RunStarted
			e.Settings, e.OEDLVersion, e.OpenEdgeVersion, e.Estimate = r.Settings, r.OEDLVersion, r.OpenEdgeVersion, r.Estimate
		case r.State == Done:
			e.Kind, e.Status = event.RunFinished, event.StatusVerified
		case r.Interrupted():
			e.Kind, e.Status = event.RunFinished, event.StatusInterrupted
		default:
			e.Kind, e.Status = event.RunFinished, event.StatusFailed
		}
		return e
	}
	switch r.State {
	case Started:
		e.Kind = event.JobStarted
	case Done:
		e.Kind = event.JobFinished
	case Failed:
		e.Kind = event.JobFailed
		if r.Interrupted() {
			e.Kind = event.JobCancelled
		}
	case Repair:
		e.Kind = event.Warning
		if e.Message == "" {
			e.Message = "area " + r.Area + " will be truncated and its tables reloaded"
		}
	}
	return e
}

// Interrupted reports a failed record that is a cancel (Ctrl-C): its
// Reason, or in journals older than Reason the run's "interrupted".
func (r Record) Interrupted() bool {
	return r.State == Failed && (r.Reason == event.ReasonCancelled || (r.Reason == "" && r.Err == "interrupted"))
}

// ResumedInPlace marks, by index in recs, the run records that start an
// invocation written by the same oedl process as the invocation before
// it: a resume in place (run.Run starts again by itself after a failure
// only a resume repairs), not an interruption and not an `oedl run
// --resume` of the DBA's. `oedl status` and the report read it back so.
func ResumedInPlace(recs []Record) map[int]bool {
	out := map[int]bool{}
	var last *sysproc.ID // the oedl process of the last invocation started
	for i, r := range recs {
		if r.Job != RunJob || r.State != Started {
			continue
		}
		if r.Proc != nil && last != nil && *r.Proc == *last {
			out[i] = true
		}
		last = r.Proc
	}
	return out
}
