package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/schedule"
)

// loadFiles are the .bd files a load job reads: one section, or every
// section of the table's dump in order.
func (e *Executor) loadFiles(ctx context.Context, j *schedule.Job) ([]string, error) {
	// The files on the load's host: the dump's own, or the copies a move
	// put there (only a checked copy has a section's name).
	if files := e.movedFiles(j); files != nil {
		return files, nil
	}
	m := e.cfg.machine(j.Host)
	dir := e.cfg.at(j.Host).dumpDir(j.Table)
	list, err := m.fs.List(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("dump of %s is gone: %w", j.Table, err)
	}
	secs := sectionsOf(dir, j.Table, fileNames(list))
	if j.Section > 0 {
		f, ok := secs[j.Section]
		if !ok {
			return nil, fmt.Errorf("dump of %s has no section %d in %s", j.Table, j.Section, dir)
		}
		return []string{f}, nil
	}
	if len(secs) == 0 {
		return nil, fmt.Errorf("no %s.bd in %s", dumpBase(j.Table), dir)
	}
	return sortedFiles(secs), nil
}

// loadJob binary-loads a table (or one section) and journals the proof:
// the files, the (6256) marker and the records loaded.
func (e *Executor) loadJob(ctx context.Context, j *schedule.Job, log *os.File) (journal.Record, error) {
	rec := journal.Record{Marker: openedge.MsgLoadComplete, CountKnown: true}
	files, err := e.loadFiles(ctx, j)
	if err != nil {
		return rec, err
	}
	// Progress: the bytes of the .bd files read so far (the loading
	// process's file offset, where the system shows it) and the records
	// the utility prints.
	rep := &progressReporter{e: e, j: j}
	var done, records int64 // bytes of the files already loaded, records they held
	for i, s := range e.cfg.steps(j, files) {
		counter := &recordCounter{}
		probe := newOffsetProbe(files[i])
		s.started = probe.setRoot
		stop := poll(func() {
			pos, _ := probe.Offset()
			rep.report(records+counter.Records(), done+pos)
		})
		res, err := e.runStep(ctx, j.ID, s, e.cfg.timeout(j), log, counter)
		stop()
		if err != nil {
			return rec, err
		}
		lr, err := openedge.ParseLoadOutput(res.Output)
		if err != nil {
			return rec, err
		}
		rec.Records += lr.Records
		rec.CountKnown = rec.CountKnown && lr.CountKnown
		done += e.sizeOn(ctx, j.Host, files[i])
		records = rec.Records
		rep.report(records, done)
	}
	// The files are named, not listed as proof: they are the dump's
	// output, and a later re-dump must not make a done load look unproven.
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = filepath.Base(f)
	}
	rec.Message = "loaded " + strings.Join(names, " ")
	rec.Bytes = done
	return rec, nil
}
