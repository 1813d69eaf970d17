package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/oedl/oedl/internal/atomicfile"
	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/schedule"
)

// A load batch (schedule/batch.go) loads several small tables of one area
// through one proutil -C load -dumplist call, and is journalled as the
// loads of its tables: one `started` record per table before the utility
// starts, one `done` per table with the count of its own (15167) after it
// ends well. The journal's replay, the repair and --resume therefore see
// exactly the per-table loads they see without batches. A table whose
// `started` has no end (the run killed anywhere in the batch) dirties its
// area, which a resume repairs; a batch that fails is handed to the area's
// repair as a failed load is, and its tables loaded again one by one.
// What a partial batch left in the area is never trusted
// (docs/decisions.md): the real proutil does not document it.

// batchList is where batch j's -dumplist is written.
func (c *Config) batchList(j *schedule.Job) string {
	return c.work(filepath.Join("batches", safeName(j.ID)+".lst"))
}

// memberJob is the load of one table of batch j, as the journal and the
// events name it.
func memberJob(j *schedule.Job, m schedule.Member) *schedule.Job {
	return &schedule.Job{ID: schedule.LoadID(m.Table, 0), Kind: schedule.KindLoad, Table: m.Table, Area: j.Area,
		Host: j.Host, Records: m.Records, Bytes: m.Bytes, Slot: j.Slot}
}

// loadBatchJob runs batch j and journals each table's load.
func (e *Executor) loadBatchJob(ctx context.Context, j *schedule.Job, log *os.File) (journal.Record, error) {
	var rec journal.Record
	var all []string // the -dumplist, each table's files next to each other
	sizes := make([]int64, len(j.Members))
	names := make([][]string, len(j.Members))
	for i, m := range j.Members {
		files, err := e.loadFiles(ctx, memberJob(j, m))
		if err != nil {
			return rec, err
		}
		for _, f := range files {
			sizes[i] += e.sizeOn(ctx, j.Host, f)
			names[i] = append(names[i], filepath.Base(f))
		}
		all = append(all, files...)
	}
	list := e.cfg.batchList(j)
	if err := os.MkdirAll(filepath.Dir(list), 0o755); err != nil {
		return rec, err
	}
	if err := atomicfile.WriteFile(list, []byte(strings.Join(all, "\n")+"\n")); err != nil {
		return rec, fmt.Errorf("dump list of %s: %w", j.ID, err)
	}
	if err := e.recordMembers(j, func(mj *schedule.Job, _ int) journal.Record {
		return journal.Record{State: journal.Started, Attempt: e.attempt(mj.ID)}
	}); err != nil {
		return rec, err
	}
	call := e.cfg.steps(j, all)[0]
	res, err := e.runStep(ctx, j.ID, call, e.cfg.timeout(j), log, nil)
	if err != nil {
		return rec, err
	}
	lrs, err := openedge.ParseLoadBatchOutput(res.Output, len(j.Members))
	if err != nil {
		return rec, err
	}
	rec.Marker, rec.CountKnown = openedge.MsgLoadComplete, true
	err = e.recordMembers(j, func(mj *schedule.Job, i int) journal.Record {
		r := journal.Record{State: journal.Done, Attempt: e.starts1(mj.ID), Marker: openedge.MsgLoadComplete,
			Records: lrs[i].Records, CountKnown: lrs[i].CountKnown, Bytes: sizes[i],
			Message: fmt.Sprintf("loaded %s (batch %s)", strings.Join(names[i], " "), j.ID)}
		rec.Records += r.Records
		rec.CountKnown = rec.CountKnown && r.CountKnown
		rec.Bytes += r.Bytes
		return r
	})
	rec.Message = fmt.Sprintf("loaded %d tables through %s", len(j.Members), filepath.Base(list))
	return rec, err
}

// recordMembers journals one record per table of batch j, in list order;
// the events keep each done table's record for its job_finished. A
// member's record has no Elapsed: the batch's own record holds the time
// of the call, and a table's share of it is not known.
func (e *Executor) recordMembers(j *schedule.Job, fill func(mj *schedule.Job, i int) journal.Record) error {
	for i, m := range j.Members {
		mj := memberJob(j, m)
		r := fill(mj, i)
		r.Job, r.Kind, r.Table, r.Area, r.Host, r.Log = mj.ID, string(mj.Kind), mj.Table, mj.Area, mj.Host, e.cfg.logPath(j.ID)
		r.Batch = j.ID // as the batch's own records name it (a batch run again after a repair: load-batch:A:1@r1)
		if err := e.record(r); err != nil {
			return err
		}
		e.mu.Lock()
		switch r.State {
		case journal.Started:
			e.batchStarted[j.ID] = true
		case journal.Done:
			e.finals[mj.ID] = r
		}
		e.mu.Unlock()
	}
	return nil
}

// starts1 is the attempt a job's latest `started` record counted (the
// attempt now running).
func (e *Executor) starts1(id string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.starts[event.StableID(id)]
}

// membersFailed journals the tables of a failed batch as failed loads,
// when their loads were journalled as started.
func (e *Executor) membersFailed(j *schedule.Job, f failure) error {
	e.mu.Lock()
	started := e.batchStarted[j.ID]
	e.mu.Unlock()
	if !started {
		return nil
	}
	return e.recordMembers(j, func(mj *schedule.Job, _ int) journal.Record {
		r := journal.Record{State: journal.Failed, Attempt: e.starts1(mj.ID)}
		f.toRecord(&r)
		return r
	})
}

// memberEvents tells an event of batch j as the same event of each of its
// tables' loads: the screen, the report and --json consumers see loads of
// tables, as without batches (docs/events.md), each naming the batch. A
// job_finished keeps the batch's elapsed_ns: the table was loaded by that
// call, and its own part of it is not measured (the utility prints no
// time per table); a share of it would be a guess dressed as a figure.
func memberEvents(j *schedule.Job, ev event.Event) []event.Event {
	out := make([]event.Event, 0, len(j.Members))
	for _, m := range j.Members {
		me := ev
		mj := memberJob(j, m)
		me.Job, me.JobKind, me.Table, me.Area = mj.ID, string(mj.Kind), mj.Table, mj.Area
		me.TotalRecords, me.TotalBytes = m.Records, m.Bytes
		me.Batch = event.StableID(j.ID)
		out = append(out, me)
	}
	return out
}
