package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/oedl/oedl/internal/atomicfile"
	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/sysproc"
	"github.com/oedl/oedl/internal/units"
)

// JobError is a failed utility call, with what a DBA needs to act: the
// call, why it failed, the utility's own last message and the log holding
// all of it.
type JobError struct {
	Job     string
	Argv    []string
	Reason  string // "proutil load was killed by signal 9 (SIGKILL)", "proutil dump hung: killed after 13s", ...
	Message string // the utility's own last message, e.g. "** Cannot find or open file ... (43)"
	Log     string
	// Cause is Reason as an event.Reason* a script can test, with its
	// figure (ExitCode, Signal or Timeout).
	Cause    string
	ExitCode int
	Signal   string
	Timeout  time.Duration
	// Refusal is the number of a message that says another attempt fails
	// the same way (openedge.Refusal): the job is not tried again.
	Refusal int
}

// Error is the reason and the utility's message. The log's path is not in
// it: every consumer shows the log on its own (the event's "log", the
// screen's log line), and a path repeated inside a one-line message is
// what pushed failure lines past the terminal's edge.
func (e *JobError) Error() string {
	if e.Message != "" {
		return e.Reason + ": " + e.Message
	}
	return e.Reason
}

// runStep runs one call, appending argv, output and timing to the job's
// log, and decides whether it worked: exit status, success marker
// (openedge.CheckSuccess), timeout. progress, when set, receives the
// output as it comes. A speed-only call (step.speedOnly) that fails is a
// warning, and the job goes on.
func (e *Executor) runStep(ctx context.Context, jobID string, s step, timeout time.Duration, log io.Writer, progress io.Writer) (execx.Result, error) {
	res, err := e.runCall(ctx, jobID, s, timeout, log, progress)
	var jerr *JobError
	if s.speedOnly && errors.As(err, &jerr) {
		// In every job that starts the target's broker: the serve, and a
		// repair that starts it again.
		kind := ""
		if e.built != nil { // nil in executors tests build by hand
			if j := e.built.Job(jobID); j != nil {
				kind = string(j.Kind)
			}
		}
		e.emit(event.Event{Kind: event.Warning, Job: jobID, JobKind: kind, Err: jerr.Error(), Log: e.cfg.logPath(jobID),
			Message: fmt.Sprintf("%s did not start: the job goes on without it (slower, not less safe)", filepath.Base(s.argv[0]))})
		return res, nil
	}
	return res, err
}

// runCall is runStep without the tolerance of a speed-only call's failure.
func (e *Executor) runCall(ctx context.Context, jobID string, s step, timeout time.Duration, log io.Writer, progress io.Writer) (execx.Result, error) {
	m := e.cfg.machine(s.host)
	dir := s.dir
	if dir == "" {
		dir = m.work
	}
	call := execx.Cmd{
		Path: s.argv[0], Args: s.argv[1:], Dir: dir, Stdin: s.stdin, Env: append(e.cfg.at(s.host).env(), jobMarker(jobID)),
		Timeout: timeout, Log: log, Output: progress,
		Started: func(pid int) {
			e.recordProc(jobID, pid)
			if s.started != nil {
				s.started(pid)
			}
		},
	}
	if m.remote {
		// The utility's PID on its host, for the resume of a killed run
		// to tell its lines in the target's log (killedsince.go); never
		// taken for a process of this machine (no start time).
		call.RemoteStarted = func(pid int) {
			_ = e.record(journal.Record{Job: jobID, State: journal.Running, Host: s.host, Proc: &sysproc.ID{PID: pid}})
		}
	}
	var res execx.Result
	var err error
	// A helper the broker refuses (speedOnly) is done without at once:
	// waiting for a slot would hold up the loads it only speeds up.
	if db := connectedDB(s.argv); db != "" && !s.speedOnly {
		res, err = e.runCounted(ctx, jobID, db, s.host, call, log)
	} else {
		res, err = m.runner.Run(ctx, call)
	}
	jerr := &JobError{Job: jobID, Argv: s.argv, Log: e.cfg.logPath(jobID)}
	prog := filepath.Base(s.argv[0])
	utility := s.utility
	name := prog + " " + utility          // "proutil load"
	if utility == "" || utility == prog { // "procopy", not "procopy procopy"
		utility, name = prog, prog
	}
	if m.remote {
		// Which machine: the files its message names may exist on
		// several, and a disk that filled is that host's.
		name += " on host " + s.host
	}
	last := lastMessage(res.Output)
	switch {
	case res.TimedOut:
		jerr.Cause, jerr.Timeout = event.ReasonHang, timeout
		jerr.Reason = fmt.Sprintf("%s hung: no end after %s (the job's timeout), killed", name, units.FormatDuration(timeout))
		if strings.HasPrefix(last, "**") {
			jerr.Message = last // an error it printed before it hung; its banner or progress says nothing
		}
		return res, jerr
	case ctx.Err() != nil:
		return res, ctx.Err()
	case err != nil && !errors.Is(err, execx.ErrExit):
		jerr.Cause = event.ReasonCouldNotRun
		jerr.Reason = fmt.Sprintf("%s could not run: %v", prog, err)
		return res, jerr
	case res.Signal != 0:
		jerr.Cause, jerr.Signal = event.ReasonSignal, execx.SignalName(res.Signal)
		jerr.Reason = fmt.Sprintf("%s was killed by signal %d (%s)", name, int(res.Signal), jerr.Signal)
		jerr.Message = last
		return res, jerr
	}
	code := res.ExitCode
	if slices.Contains(s.okExit, code) {
		code = 0
	}
	if cerr := openedge.CheckSuccess(utility, res.Output, code); cerr != nil {
		var ue *openedge.UtilityError
		switch {
		case diskFull(res.Output):
			jerr.Cause, jerr.ExitCode = event.ReasonDiskFull, res.ExitCode
			jerr.Reason = fmt.Sprintf("%s ran out of disk space (errno 28, exit code %d)", name, res.ExitCode)
			last = noSpaceLine(res.Output)
		case errors.As(cerr, &ue) && ue.ExitCode != 0:
			jerr.Cause, jerr.ExitCode = event.ReasonExit, ue.ExitCode
			jerr.Reason = fmt.Sprintf("%s exited with code %d", name, ue.ExitCode)
			if m, ok := openedge.Refusal(res.Output); ok {
				// Its reason, not its last line: the one the attempts
				// would all end on.
				jerr.Refusal, last = m.Num, strings.TrimSpace(strings.Split(res.Output, "\n")[m.Line-1])
			}
		case errors.As(cerr, &ue) && ue.Marker != 0:
			jerr.Cause = event.ReasonNoSuccess
			jerr.Reason = fmt.Sprintf("%s printed no success message (%d)", name, ue.Marker)
		default:
			jerr.Cause = event.ReasonError
			jerr.Reason = fmt.Sprintf("%s failed: %v", name, cerr)
		}
		jerr.Message = last
		return res, jerr
	}
	if s.save != "" {
		// Saved here, whatever host ran the call: its output came back.
		if err := atomicfile.WriteFile(s.save, []byte(res.Output)); err != nil {
			return res, fmt.Errorf("save %s output: %w", utility, err)
		}
	}
	return res, nil
}

// recordProc journals the utility process a job just started, so that a
// resume after kill -9 can find it and stop it before it repairs
// anything (stopOrphans). A journal that cannot take the record refuses
// the job's next record too, which fails the job.
func (e *Executor) recordProc(jobID string, pid int) {
	id, err := sysproc.Of(pid)
	if err != nil {
		id = sysproc.ID{PID: pid} // never taken for alive: WorkEnv finds it
	}
	_ = e.record(journal.Record{Job: jobID, State: journal.Running, Proc: &id})
}

// lastMessage is what a DBA reads first about a failed call: its last
// error message ("** ... (NNNN)"), and its last line when that is
// something else (a utility may end with an unnumbered complaint).
func lastMessage(out string) string {
	trimmed := strings.Split(strings.TrimSpace(out), "\n")
	last := strings.TrimSpace(trimmed[len(trimmed)-1])
	lines := strings.Split(out, "\n")
	var lastErr string
	for _, m := range openedge.ScanMessages(out) {
		if m.Line-1 < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[m.Line-1]), "**") {
			lastErr = strings.TrimSpace(lines[m.Line-1])
		}
	}
	switch {
	case lastErr == "" || lastErr == last:
		return last
	default:
		return lastErr + " / " + last
	}
}

// openLog opens the job's log for appending (a retried or resumed job
// keeps the earlier attempts above the new one).
func (e *Executor) openLog(jobID string, attempt int) (*os.File, error) {
	path := e.cfg.logPath(jobID)
	f, err := OpenWorkLog(path)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(f, "=== %s attempt %d at %s\n", jobID, attempt, time.Now().Format(time.RFC3339))
	return f, nil
}

// resumableError is a failure a resume repairs (see Run): a threaded dump
// that failed after some of its sections were queued for loading, or a
// section of one that could not be loaded. It is permanent for the job:
// dumping again would cut the records into other sections than those
// already loaded, and loading the section again would read the same file.
// why says what happened and next what the resume does, for the screen.
type resumableError struct {
	error
	why, next string
}

// redumpNext is what a resume does about a threaded table it cannot trust.
const redumpNext = "its area is repaired and the table dumped again"

func (r resumableError) Unwrap() error { return r.error }

// isPermanent: running the job again cannot fix err.
func isPermanent(err error) bool {
	var r resumableError
	var refused refusedError
	return errors.As(err, &r) || errors.As(err, &refused) || refusalOf(err) != 0
}
