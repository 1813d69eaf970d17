package run

import (
	"context"
	"fmt"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/schedule"
)

// JobEnv is the variable oedl puts beside WorkEnv in the environment of
// every utility it starts, set to the job it belongs to. On another host
// a job's utility can outlive its attempt: when the connection drops
// mid-run the attempt fails at once, but the utility notices its session
// ended only when it writes to it, and a dump or a load writes to files.
// Before that job runs again on that host, or a repair touches its
// files, every process carrying both the run's and the job's mark is
// stopped there (stopEarlierAttempts): two dumps of one table writing
// one .bd, or a stale load beside its reload, never run together.
//
// The job alone, not the attempt: the stop runs before the next attempt
// starts, so whatever carries the mark then is an earlier attempt's.
//
// On this machine an attempt cannot outlive itself: execx waits for the
// utility it started (and kills its process group on a timeout or a
// cancel), so a local retry starts only once the earlier one has ended.
const JobEnv = "OEDL_JOB"

// jobMarker is the environment line that marks job id's utilities.
func jobMarker(id string) string { return JobEnv + "=" + id }

// stopEarlierAttempts stops, on j's host when it is another machine,
// every process an earlier attempt of j left running there. One that
// cannot be stopped refuses the next attempt: the job fails, named with
// its host, and a resume stops it (stopRemoteOrphans) before anything is
// redone. Jobs that start a broker (serve, repair) are left out: a broker
// is never killed, it is shut down with proshut (stopKilledRun).
func (e *Executor) stopEarlierAttempts(ctx context.Context, j *schedule.Job) error {
	m := e.cfg.machine(j.Host)
	if !m.remote || j.Kind == schedule.KindServe || j.Kind == schedule.KindRepair {
		return nil
	}
	stopped, err := stopMarked(ctx, m, nil, e.cfg.runMarker(), jobMarker(j.ID))
	if err != nil {
		return refusedError{fmt.Errorf("host %s: %s is not retried nor repaired: its failed attempt could not be stopped there (%v); a resume stops it first", m.name, j.ID, err)}
	}
	if stopped != "" {
		e.emit(event.Event{Kind: event.Warning, Job: j.ID, JobKind: string(j.Kind), Host: j.Host,
			Message: fmt.Sprintf("host %s: the earlier attempt of %s was still running there, %s (SIGTERM, then SIGKILL), before it runs again", m.name, j.ID, stopped)})
	}
	return nil
}
