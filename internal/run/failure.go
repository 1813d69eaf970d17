package run

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/schedule"
)

// failure is one failed attempt as the events, the journal and the screen
// tell it: the reason a script can test, its figures, and the words.
type failure struct {
	reason   string // event.Reason*
	exitCode int
	signal   string
	timeout  time.Duration
	text     string // "proutil load was killed by signal 9 (SIGKILL): <its last message>"
	attempt  int
	elapsed  time.Duration // of the attempt
	retrying bool          // another attempt follows
}

// classify tells why an attempt failed. An attempt that ends while the
// run is being interrupted is a cancel, whatever its utility said on the
// way down (it was killed by oedl): that is not the utility failing.
func classify(ctx context.Context, err error) failure {
	if ctx.Err() != nil {
		return failure{reason: event.ReasonCancelled, text: "stopped: the run was interrupted"}
	}
	var je *JobError
	if errors.As(err, &je) {
		f := failure{reason: je.Cause, exitCode: je.ExitCode, signal: je.Signal, timeout: je.Timeout, text: err.Error()}
		if f.reason == "" {
			f.reason = event.ReasonError
		}
		return f
	}
	return failure{reason: event.ReasonError, text: err.Error()}
}

// toRecord puts the failure in a journal record.
func (f failure) toRecord(r *journal.Record) {
	r.Err, r.Reason, r.ExitCode, r.Signal, r.Timeout = f.text, f.reason, f.exitCode, f.signal, f.timeout
}

// toEvent puts the failure in a job_failed event (job_cancelled for a
// cancel).
func (f failure) toEvent(ev *event.Event) {
	ev.Kind = event.JobFailed
	if f.reason == event.ReasonCancelled {
		ev.Kind = event.JobCancelled
	}
	ev.Err, ev.Reason, ev.ExitCode, ev.Signal, ev.Timeout = f.text, f.reason, f.exitCode, f.signal, f.timeout
	ev.Retrying = f.retrying
	if f.attempt > 0 {
		ev.Attempt = f.attempt
	}
	if f.elapsed > 0 {
		ev.Elapsed = f.elapsed
	}
}

// unjournalled is f when the journal could not record it either (the
// work disk full): the run's summary says so beside the utility's error,
// which was all it said, so that the DBA knows the journal missed records
// before trusting a resume.
func (f failure) unjournalled(jerr error) failure {
	f.text = fmt.Sprintf("%s; its failure is not in the journal: %v", f.text, jerr)
	return f
}

// errnoNoSpace matches errno 28 where OpenEdge's templates print an
// errno: after the C name errno ("..., errno = 28.", "errno 28"), which no
// message file translates (the Portuguese and German (43) keep it). ENOSPC
// on Linux.
var errnoNoSpace = regexp.MustCompile(`errno\s*=?\s*28\b`)

// diskFull reports whether a utility's output says its disk filled up.
func diskFull(output string) bool { return noSpaceLine(output) != "" }

// noSpaceLine is the last line of output that says the disk filled up:
// by its number, a (6091), or a (290) or (43) whose errno is 28
// (openedge.NoSpace: (290) prints its errno without the name, "I/O error
// 28", so only its number tells); or by errno 28 after the name errno,
// numbered or not (oesim's own "** Error writing F, errno = 28: ...
// (oesim)"). It names the file (and so the disk); the utility's last
// line says less: idxbuild ends with "Index rebuild complete.  1
// error(s) encountered.", which was all the DBA read of a full disk.
func noSpaceLine(output string) string {
	lines := strings.Split(output, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := lines[i]
		if _, ok := openedge.NoSpace(l); ok || errnoNoSpace.MatchString(l) {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// refusalOf is the message number of a utility's refusal that another
// attempt cannot change (JobError.Refusal), 0 for any other failure.
func refusalOf(err error) int {
	var jerr *JobError
	if errors.As(err, &jerr) {
		return jerr.Refusal
	}
	return 0
}

// diskFilled ends job j, whose utility reported errno 28, for good in this
// run: another attempt (or, for a load, a repair of its area and a dump
// again) writes the same bytes to the same full disk, and only uses up
// the --retries and the window. The line with errno 28 names the file,
// so the DBA knows which disk to free; the resume runs the job again (a
// load's area is repaired first, as after any failed load).
func (e *Executor) diskFilled(j *schedule.Job, err error, f failure) schedule.Outcome {
	err = fmt.Errorf("%w (not tried again: it would fill the same disk; free space there, then resume)", err)
	f.text = err.Error()
	e.noteFailure(j.ID, f)
	return schedule.Outcome{Err: err}
}
