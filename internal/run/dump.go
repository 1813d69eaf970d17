package run

import (
	"context"
	"fmt"
	"os"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/schedule"
)

// dumpJob dumps one table into its own directory (WORK/dump/<table>/, so
// that the directory's .bd files are exactly this dump's output and a
// retry starts from an empty directory). A threaded dump reports each
// section as it lands, and its load is queued at once.
func (e *Executor) dumpJob(ctx context.Context, j *schedule.Job, log *os.File) (schedule.Outcome, journal.Record, error) {
	var rec journal.Record
	dir := e.cfg.dumpDir(j.Table)
	if err := os.RemoveAll(dir); err != nil {
		return schedule.Outcome{}, rec, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return schedule.Outcome{}, rec, err
	}
	queued := map[int]bool{}
	var pending []*schedule.Job
	counter := &recordCounter{}
	rep := &progressReporter{e: e, j: j}
	// watch measures the .bd files as they grow (the bytes so far) and
	// takes the record counts the dump prints (threads as they finish).
	watch := func(final bool) {
		secs, err := sections(dir, j.Table)
		if err != nil {
			return
		}
		var bytes int64
		for _, f := range secs {
			if st, err := os.Stat(f); err == nil {
				bytes += st.Size()
			}
		}
		rep.report(counter.Records(), bytes)
		if j.Threads <= 1 {
			return
		}
		for n := range secs {
			// Section N>1 lands under its final name only once complete
			// (it is written as table.bN.bd and renamed). Section 1 may be
			// written in place, so it is taken when the dump ends.
			if queued[n] || (n == 1 && !final) {
				continue
			}
			queued[n] = true
			l := e.built.SectionLoad(j, n, 0, sizeOf(secs[n]))
			e.mu.Lock()
			k := journal.LoadKey{Table: j.Table, Section: n}
			e.loadJobs[k] = append(e.loadJobs[k], l.ID)
			e.mu.Unlock()
			pending = append(pending, l)
		}
	}
	stop := poll(func() {
		watch(false)
		if len(pending) > 0 {
			e.outcomes <- schedule.Outcome{Job: j, Add: pending}
			pending = nil
		}
	})
	res, err := e.runStep(ctx, j.ID, e.cfg.dumpStep(j), e.cfg.timeout(j), log, counter)
	stop()
	if err != nil {
		if len(queued) > 0 {
			// Its first sections are queued (maybe loaded): a new dump
			// would cut the records into other sections. The area is
			// repaired on --resume instead (see planResume).
			err = permanentError{err}
		}
		return schedule.Outcome{Add: pending}, rec, err
	}
	dr, err := openedge.ParseDumpOutput(res.Output)
	if err != nil {
		return schedule.Outcome{}, rec, &JobError{Job: j.ID, Reason: "dump output not understood: " + err.Error(), Log: e.cfg.logPath(j.ID)}
	}
	watch(true)
	secs, err := sections(dir, j.Table)
	if err != nil {
		return schedule.Outcome{}, rec, err
	}
	if len(secs) == 0 {
		return schedule.Outcome{}, rec, &JobError{Job: j.ID, Log: e.cfg.logPath(j.ID),
			Reason: fmt.Sprintf("dump reported %d records but wrote no %s.bd in %s", dr.Records, dumpBase(j.Table), dir)}
	}
	for _, f := range sortedFiles(secs) {
		pf, err := proof(f)
		if err != nil {
			return schedule.Outcome{}, rec, err
		}
		rec.Files = append(rec.Files, pf)
	}
	rec.Records, rec.CountKnown, rec.Marker = dr.Records, true, openedge.MsgDumpComplete
	if dr.Threads > 1 {
		rec.Message = fmt.Sprintf("%d threads, %d sections", dr.Threads, len(secs))
	}
	return schedule.Outcome{Add: pending}, rec, nil
}

func sizeOf(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}
