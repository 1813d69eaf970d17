package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

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
		rep.report(counter.Records(), dumpedBytes(dir, j.Table))
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
			// repaired by a resume instead (planResume), which Run does
			// in place.
			err = resumableError{err, "failed after sections of it were queued", redumpNext}
		}
		return schedule.Outcome{Add: pending}, rec, err
	}
	if why := e.badDump(j.Table); why != "" {
		// A section it wrote already failed to load: these files are not
		// to be loaded again (sectionFailed).
		return schedule.Outcome{Add: pending}, rec, resumableError{errors.New(why), "wrote a section that could not be loaded", redumpNext}
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

// dumpedBytes is what a running dump has written so far: its .bd files,
// finished sections and sections still being written under their
// temporary name (a threaded dump writes section N as table.bN.bd and
// renames it table.bdN when done), from one directory read.
func dumpedBytes(dir, table string) int64 {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	base := dumpBase(table)
	var n int64
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasPrefix(name, base+".b") || !isDumpFileName(name[len(base):]) {
			continue
		}
		if info, err := e.Info(); err == nil {
			n += info.Size()
		}
	}
	return n
}

// isDumpFileName tells whether rest (the name after the table's base) is
// ".bd", ".bdN" or the in-progress ".bN.bd".
func isDumpFileName(rest string) bool {
	digits := func(s string) bool {
		if s == "" {
			return false
		}
		for _, c := range s {
			if c < '0' || c > '9' {
				return false
			}
		}
		return true
	}
	switch {
	case rest == ".bd":
		return true
	case strings.HasPrefix(rest, ".bd"):
		return digits(rest[3:])
	case strings.HasSuffix(rest, ".bd"):
		return digits(rest[2 : len(rest)-3])
	}
	return false
}
