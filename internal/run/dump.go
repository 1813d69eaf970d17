package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/oedl/oedl/internal/hostfs"
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
	m := e.cfg.machine(j.Host)
	dir := e.cfg.at(j.Host).dumpDir(j.Table)
	if err := m.fs.Fresh(ctx, dir); err != nil {
		return schedule.Outcome{}, rec, err
	}
	queued := map[int]bool{}
	var pending []*schedule.Job
	counter := &recordCounter{}
	rep := &progressReporter{e: e, j: j}
	every := measureEvery(m)
	// watch measures the .bd files as they grow (the bytes so far) and
	// takes the record counts the dump prints (threads as they finish).
	watch := func(final bool) {
		list, err := m.fs.List(ctx, dir)
		if err != nil {
			return
		}
		secs := sectionsOf(dir, j.Table, fileNames(list))
		rep.report(counter.Records(), dumpedBytesOf(list, j.Table))
		if j.Threads <= 1 {
			return
		}
		size := map[string]int64{}
		for _, i := range list {
			size[i.Path] = i.Size
		}
		for n := range secs {
			// Section N>1 lands under its final name only once complete
			// (it is written as table.bN.bd and renamed). Section 1 may be
			// written in place, so it is taken when the dump ends.
			if queued[n] || (n == 1 && !final) {
				continue
			}
			queued[n] = true
			for _, x := range e.built.SectionJobs(j, n, 0, size[secs[n]]) {
				if x.Kind == schedule.KindLoad {
					e.mu.Lock()
					k := journal.LoadKey{Table: j.Table, Section: n}
					e.loadJobs[k] = append(e.loadJobs[k], x.ID)
					e.mu.Unlock()
				}
				pending = append(pending, x)
			}
		}
	}
	tick := 0
	stop := poll(func() {
		if tick++; tick%every != 0 {
			return
		}
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
	if rec.Files, err = e.proveDump(ctx, m, dir, j.Table, e.movesFrom(j.Host)); err != nil {
		return schedule.Outcome{}, rec, err
	}
	if len(rec.Files) == 0 {
		return schedule.Outcome{}, rec, &JobError{Job: j.ID, Log: e.cfg.logPath(j.ID),
			Reason: fmt.Sprintf("dump reported %d records but wrote no %s.bd in %s", dr.Records, dumpBase(j.Table), dir)}
	}
	secs := map[int]bool{}
	for _, f := range rec.Files {
		secs[sectionOf(f.Path, j.Table)] = true
	}
	rec.Records, rec.CountKnown, rec.Marker = dr.Records, true, openedge.MsgDumpComplete
	if dr.Threads > 1 {
		rec.Message = fmt.Sprintf("%d threads, %d sections", dr.Threads, len(secs))
	}
	return schedule.Outcome{Add: pending}, rec, nil
}

// measureEvery is how many progress ticks pass between two measures of a
// host's files: every tick here, every eighth (2 s) over ssh, where each
// measure is a call.
func measureEvery(m *machine) int {
	if m.remote {
		return 8
	}
	return 1
}

// proveDump is the journal's proof of a dump's files on its host: their
// sizes, and their SHA-256 when they are to move to another machine (the
// move and the load check the copy against it), in section order.
func (e *Executor) proveDump(ctx context.Context, m *machine, dir, table string, sums bool) ([]journal.File, error) {
	var files []journal.File
	if sums {
		ss, err := m.fs.SumsIn(ctx, dir)
		if err != nil {
			return nil, err
		}
		for _, s := range ss {
			files = append(files, journal.File{Path: s.Path, Size: s.Size, Host: m.name, SHA256: s.SHA256})
		}
	} else {
		list, err := m.fs.List(ctx, dir)
		if err != nil {
			return nil, err
		}
		for _, i := range list {
			if i.Mode.IsRegular() {
				files = append(files, journal.File{Path: i.Path, Size: i.Size, Host: m.name})
			}
		}
	}
	var out []journal.File
	for _, f := range files {
		if sectionOf(f.Path, table) > 0 {
			out = append(out, f)
		}
	}
	sort.Slice(out, func(a, b int) bool { return sectionOf(out[a].Path, table) < sectionOf(out[b].Path, table) })
	return out, nil
}

func fileNames(list []hostfs.Info) []string {
	out := make([]string, 0, len(list))
	for _, i := range list {
		if !i.IsDir() {
			out = append(out, i.Name())
		}
	}
	return out
}

func sizeOf(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

// dumpedBytesOf is what a running dump has written so far: its .bd
// files, finished sections and sections still being written under their
// temporary name (a threaded dump writes section N as table.bN.bd and
// renames it table.bdN when done), from one directory listing.
func dumpedBytesOf(list []hostfs.Info, table string) int64 {
	base := dumpBase(table)
	var n int64
	for _, i := range list {
		name := i.Name()
		if i.IsDir() || !strings.HasPrefix(name, base+".b") || !isDumpFileName(name[len(base):]) {
			continue
		}
		n += i.Size
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
