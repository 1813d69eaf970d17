package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/schedule"
	"github.com/oedl/oedl/internal/sysproc"
)

// Exit codes of proutil -C holder (the only documented ones besides busy).
const (
	holderFree   = 0
	holderSingle = 14 // a single-user utility (proutil, rfutil) holds it
	holderMulti  = 16 // a broker serves it
)

func (c *Config) holderStep(which string) step {
	c = c.atDB(which)
	return step{argv: c.proutil(c.db(which), "holder"), okExit: []int{holderSingle, holderMulti}, host: c.host}
}

// holder asks who holds database which: holderFree, holderSingle or holderMulti.
func (e *Executor) holder(ctx context.Context, jobID, which string, log *os.File) (int, error) {
	db := e.cfg.db(which)
	res, err := e.runStep(ctx, jobID, e.cfg.holderStep(which), time.Minute, log, nil)
	if err != nil {
		return -1, err
	}
	switch res.ExitCode {
	case holderFree, holderSingle, holderMulti:
		return res.ExitCode, nil
	}
	return -1, fmt.Errorf("proutil -C holder on %s exited %d", db, res.ExitCode)
}

// serveJob starts a broker unless one already serves it (a resume after
// kill -9 finds the broker of the killed run still up). proserve is tried
// first and proutil -C holder asked only when it refuses: proserve starts
// nothing on a database someone holds (it says so and exits non-zero), so
// the holder's answer up front was a utility start-up on the window's
// first step (the dumps wait for the source's broker) that a fresh run
// never needed; its preflight has just proven the database free.
func (e *Executor) serveJob(ctx context.Context, j *schedule.Job, log *os.File) (journal.Record, error) {
	db := e.cfg.db(j.DB)
	steps := e.cfg.serveSteps(j.DB)
	res, err := e.runStep(ctx, j.ID, steps[0], e.cfg.timeout(j), log, nil)
	if err != nil {
		var jerr *JobError
		if !errors.As(err, &jerr) || jerr.Timeout > 0 {
			return journal.Record{}, err
		}
		switch h, herr := e.holder(ctx, j.ID, j.DB, log); {
		case herr != nil:
			return journal.Record{}, err
		case h == holderMulti:
			// Already served: by this run's own broker (a resume in place
			// keeps it), or by one someone started since the preflight
			// found the database free, which is not this run's to use
			// nor, at its shutdown, to stop (safety trial 13).
			if ours, oerr := e.cfg.servesOurs(ctx, j.DB, log); oerr == nil && ours {
				return journal.Record{Message: "already served"}, nil
			}
			if e.isExternallyServed(j.DB) && e.cfg.notOursServes(ctx, j.DB, log) == nil {
				// the DBA's broker the preflight found (--online-source)
				return journal.Record{Message: "already served"}, nil
			}
			return journal.Record{}, e.servedByOther(ctx, j, log)
		case h == holderSingle:
			return journal.Record{}, &JobError{Job: j.ID, Log: e.cfg.logPath(j.ID),
				Reason: fmt.Sprintf("cannot serve %s: a single-user utility holds it (263)", db)}
		}
		return journal.Record{}, err
	}
	rec, err := e.runSteps(ctx, j, steps[1:], log) // the broker's helpers
	rec.Message = brokerStarted
	rec.Broker = e.startedBroker(ctx, steps[0], res.Output)
	return rec, err
}

// servedByOther is serve's refusal of a database a broker this run did
// not start serves since the preflight found it free: another oedl run's
// (named), the DBA's, or one whose starter cannot be told. Not tried again
// (276 says so) and the run ends as its preflight would have (exit 3).
func (e *Executor) servedByOther(ctx context.Context, j *schedule.Job, log *os.File) error {
	reason := fmt.Sprintf("cannot serve %s: a broker oedl did not start serves it since the preflight found it free (276), and this run neither uses nor stops it", e.cfg.db(j.DB))
	if err := e.cfg.notOursServes(ctx, j.DB, log); err != nil {
		reason = "cannot serve it: " + err.Error()
	}
	return &PreconditionError{Err: &JobError{Job: j.ID, Log: e.cfg.logPath(j.ID), Reason: reason, Refusal: 276}}
}

// brokerStarted is the message of a serve whose proserve started the
// broker.
const brokerStarted = "broker started"

// startedHere says whether this invocation's serve of db started its
// broker (its done record; a resume's skipped serve is not).
func (e *Executor) startedHere(db string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	rec, ok := e.finals[schedule.ServeID(db)]
	return ok && rec.Message == brokerStarted
}

// startedBroker identifies the broker proserve started, by the PID its
// (5644) gives and the process's start time, read on the broker's host
// (over ssh for a remote one); nil when that cannot be told (no PID in
// the output, the broker already gone, a host without /proc).
func (e *Executor) startedBroker(ctx context.Context, proserve step, out string) *sysproc.ID {
	pid, ok := openedge.BrokerPID(out)
	if !ok {
		return nil
	}
	id, running, err := e.cfg.procOn(ctx, proserve.host, pid)
	if err != nil || !running {
		return nil
	}
	return &id
}

// shutdownJob stops the broker this run started. A database nobody serves
// any more (a resume after the broker was stopped) is already where the
// job wants it; one served by the DBA before the run is left running.
func (e *Executor) shutdownJob(ctx context.Context, j *schedule.Job, log *os.File) (journal.Record, error) {
	if e.isExternallyServed(j.DB) {
		return journal.Record{Message: "served by someone else: left running"}, nil
	}
	// Only a broker carrying this run's mark is stopped: when this run's
	// is gone and another serves the database (the DBA's, another oedl
	// run's, one whose mark cannot be read), it is left running (safety
	// trial 13). Brokers that cannot be listed are not stopped either,
	// unless this invocation's own serve started the one serving it.
	ours, err := e.cfg.servesOurs(ctx, j.DB, log)
	switch {
	case err != nil && e.startedHere(j.DB):
		// A host whose brokers cannot be listed (no Linux /proc: AIX,
		// Solaris): this invocation's own proserve started the broker on a
		// database nobody held, and it is stopped as before the marks. The
		// residue: that broker dying and another starting in between.
		ours = true
	case err != nil:
		return journal.Record{}, &JobError{Job: j.ID, Log: e.cfg.logPath(j.ID),
			Reason: fmt.Sprintf("cannot tell who started the broker of %s, so it is not shut down: %v", e.cfg.db(j.DB), err)}
	}
	if !ours {
		if h, herr := e.holder(ctx, j.ID, j.DB, log); herr == nil && h == holderMulti {
			return journal.Record{Message: "served by a broker this run did not start: left running"}, nil
		}
	}
	// proshut first, the holder only when it refuses (as serveJob): the
	// target's shutdown is on the window's chain, between the last load
	// and idxbuild, and its broker is this run's.
	rec, err := e.runSteps(ctx, j, []step{e.cfg.shutdownStep(j.DB)}, log)
	if err == nil {
		return rec, nil
	}
	var jerr *JobError
	if !errors.As(err, &jerr) || jerr.Timeout > 0 {
		return rec, err
	}
	if h, herr := e.holder(ctx, j.ID, j.DB, log); herr == nil && h != holderMulti {
		return journal.Record{Message: "not served"}, nil
	}
	return rec, err
}

// readsServedSource: the job reads the source through the broker this run
// starts for it (serve:source runs before it, shutdown:source after).
func readsServedSource(k schedule.Kind) bool {
	switch k {
	case schedule.KindDump, schedule.KindDumpDF, schedule.KindDumpSeq, schedule.KindDumpSecurity, schedule.KindAnalyzeSource:
		return true
	}
	return false
}

// brokerGone says why job j, which failed, must not be tried again when
// the broker this run started on the source is gone (proshut by someone,
// or it died): a retry would open the source single-user, the other
// dumps' retries would be refused (263) and every attempt used up within
// a second, each failure naming (263) and not the broker. The resume
// serves the source again. "" when the broker still serves it, when it is
// not this run's to lose (--online-source, one dump job, several hosts),
// or when holder cannot tell.
func (e *Executor) brokerGone(ctx context.Context, j *schedule.Job) string {
	c := e.cfg
	if !readsServedSource(j.Kind) || !e.ownBrokerGone(ctx, j, schedule.DBSource) {
		return ""
	}
	return fmt.Sprintf("the broker this run started on the source %s is gone (shut down, or it died), so the dumps stop: find out why, then oedl run --resume serves it again", c.db(schedule.DBSource))
}

// writesServedTarget: the job writes the target through the broker this
// run starts for the loads (serve:target runs before it).
func writesServedTarget(k schedule.Kind) bool {
	switch k {
	case schedule.KindLoad, schedule.KindLoadBatch, schedule.KindLoadSeq, schedule.KindLoadSecurity:
		return true
	}
	return false
}

// targetBrokerGoneNext is what the resume in place does when the target's
// broker went.
const targetBrokerGoneNext = "the target is served again, the areas of the loads that failed repaired (or, under -i, the target created again), and those loads run again"

// targetBrokerGone says why load j, which failed, ends the attempt for a
// resume in place when the broker this run started on the target is gone
// (kill -9, a crash, proshut by someone): the failure is the broker's, not
// the table's or its dump's. Left to the load's own handling, each failed
// load was taken for a bad file (dumped again, its area truncated), the
// loads after it opened the target single-user and refused each other
// (263), each using up an attempt (lefts30). The target is the run's own,
// so the resume serves it again (the source is the DBA's: brokerGone
// stops the run). "" when the broker still serves it (a repair's
// truncate, which stops it, runs alone), when it is not this run's
// (served by the DBA), on several hosts, or when holder cannot tell.
func (e *Executor) targetBrokerGone(ctx context.Context, j *schedule.Job) string {
	c := e.cfg
	if !writesServedTarget(j.Kind) || !e.ownBrokerGone(ctx, j, schedule.DBTarget) {
		return ""
	}
	return fmt.Sprintf("failed: the broker this run started on the target %s is gone (killed, or shut down by someone)", c.db(schedule.DBTarget))
}

// ownBrokerGone: database which is served by a broker this run started
// (not the DBA's, on one machine), and proutil -C holder, asked in job j's
// log, says no broker serves it now. False when holder cannot tell.
func (e *Executor) ownBrokerGone(ctx context.Context, j *schedule.Job, which string) bool {
	c := e.cfg
	if c.Hosts != nil || !c.served(which) || e.isExternallyServed(which) {
		return false
	}
	log, err := OpenWorkLog(c.logPath(j.ID))
	if err != nil {
		return false
	}
	defer log.Close()
	h, err := e.holder(ctx, j.ID, which, log)
	return err == nil && h != holderMulti
}
