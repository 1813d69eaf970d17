package schedule

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/oedl/oedl/internal/event"
)

// Executor runs jobs for the dispatcher. `oedl run` runs real utilities on
// the wall clock; `oedl estimate` advances a simulated clock by a cost model.
type Executor interface {
	// Start begins j and returns at once. Every started job must later be
	// reported exactly once by Next with Done set, also after ctx is
	// cancelled (then usually with ctx's error).
	Start(ctx context.Context, j *Job)
	// Next blocks until something happens to a started job: it ended
	// (Done), or it found new work (Add) while it goes on. An empty
	// Outcome is a wake-up (the run's tuner interval): the dispatcher
	// applies its rules again, a raised limit may start jobs.
	Next() Outcome
	// Now is the executor's clock.
	Now() time.Time
}

// Outcome is what Next reports.
type Outcome struct {
	Job  *Job
	Done bool // the job ended; Err says how
	Err  error
	Add  []*Job // jobs discovered by Job, queued at once (see Job.Before)
}

// Options are the queue rules.
type Options struct {
	// Slots is the number of jobs that may run at once per slot class.
	// A class missing from the map gets one slot.
	Slots map[Slot]int
	// LoadsPerArea caps concurrent loads into one target area (0 = no cap).
	// A repair of an area always runs alone in that area, and once one is
	// queued no new load starts in the area: its truncate would wipe it.
	LoadsPerArea int
	// AreaLoads caps the areas it names, in place of LoadsPerArea (0 = no
	// cap): AreaLoadCaps gives one load at a time to Type I areas only.
	AreaLoads map[string]int
	// Tuner re-sizes the slot classes while the graph runs (nil: Slots
	// hold throughout).
	Tuner Tuner
	// Skip reports jobs already done by an earlier run (resume). They are
	// counted done without running and reported as JobSkipped.
	Skip func(*Job) bool
	// Events receives queued / started / finished / failed / skipped events,
	// stamped with the executor's clock. May be nil.
	Events event.Sink
}

// Span is one job's run on the executor's clock, for reports and Gantt charts.
type Span struct {
	Job   *Job
	Start time.Time
	End   time.Time
	Err   error
}

// Result is the outcome of a whole dispatch.
type Result struct {
	Start, End time.Time
	Spans      []Span           // in the order the jobs ended
	Skipped    []string         // done before this run (resume)
	Failed     map[string]error // jobs that failed
	Blocked    []string         // jobs not run because a dependency failed
	Cancelled  []string         // jobs not started because the context ended
}

// Elapsed is the makespan.
func (r *Result) Elapsed() time.Duration { return r.End.Sub(r.Start) }

// Err summarises failures: nil when every job ran and succeeded.
func (r *Result) Err() error {
	if len(r.Failed) == 0 && len(r.Blocked) == 0 && len(r.Cancelled) == 0 {
		return nil
	}
	ids := make([]string, 0, len(r.Failed))
	for id := range r.Failed {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var errs []error
	for _, id := range ids {
		errs = append(errs, fmt.Errorf("%s: %w", id, r.Failed[id]))
	}
	if n := len(r.Blocked); n > 0 {
		errs = append(errs, fmt.Errorf("%d job(s) not run because a job they need failed", n))
	}
	if n := len(r.Cancelled); n > 0 {
		errs = append(errs, fmt.Errorf("%d job(s) not started: interrupted", n))
	}
	return errors.Join(errs...)
}

type dispatcher struct {
	g    *Graph
	ex   Executor
	o    Options
	rank map[string]int64

	depsLeft  map[string]int
	done      map[string]bool
	started   map[string]time.Time
	ready     *readyQueue
	running   int
	bySlot    map[Slot]int
	ended     map[Slot]int // jobs ended per class (the tuner's throughput)
	limits    map[Slot]int // the tuner's limits, over Options.Slots
	byArea    map[string]int
	repairing map[string]bool
	repairDue map[string]int // repairs queued and not ended, per area
	exclusive bool           // an exclusive job runs
	onTarget  int            // running jobs that are not SourceSide
	res       *Result
}

// Dispatch runs the graph on ex under the rules in o and returns what
// happened. It returns an error only for a broken graph; job failures are in
// Result (see Result.Err). When ctx ends, no new job starts and Dispatch
// waits for the running ones to report.
func Dispatch(ctx context.Context, g *Graph, ex Executor, o Options) (*Result, error) {
	rank := g.Ranks()
	d := &dispatcher{
		g: g, ex: ex, o: o, rank: rank, ready: newReadyQueue(rank),
		depsLeft: map[string]int{}, done: map[string]bool{}, started: map[string]time.Time{},
		bySlot: map[Slot]int{}, ended: map[Slot]int{}, byArea: map[string]int{}, repairing: map[string]bool{},
		repairDue: map[string]int{}, res: &Result{Failed: map[string]error{}},
	}
	d.res.Start = ex.Now()
	for _, j := range g.topo() {
		if o.Skip != nil && o.Skip(j) {
			d.done[j.ID] = true
			d.res.Skipped = append(d.res.Skipped, j.ID)
			d.emit(event.JobSkipped, j, nil)
		}
	}
	for _, j := range g.jobs {
		if d.done[j.ID] {
			continue
		}
		d.emit(event.JobQueued, j, nil)
		d.noteRepair(j)
		d.countDeps(j)
	}
	for {
		if ctx.Err() == nil {
			d.startReady(ctx)
		}
		if d.running == 0 {
			break
		}
		out := ex.Next()
		if err := d.addJobs(out); err != nil {
			return d.res, err
		}
		if out.Done {
			d.finish(out.Job, out.Err)
		}
	}
	d.res.End = ex.Now()
	d.collectLeftovers(ctx)
	return d.res, nil
}

func (d *dispatcher) countDeps(j *Job) {
	n := 0
	for _, dep := range j.Deps {
		if !d.done[dep] {
			n++
		}
	}
	d.depsLeft[j.ID] = n
	if n == 0 {
		d.ready.push(j)
	}
}

// startReady starts, in queue order, every ready job the rules allow.
// Starting a job only ever tightens the rules (a slot, an area or the
// whole machine fills up), so a job that cannot start now cannot start
// later in the same pass either; a raise of a limit by the tuner loosens
// them, and the slots are filled again.
func (d *dispatcher) startReady(ctx context.Context) {
	d.fill(ctx)
	// The tuner sees the queue with the slots filled: a class that is
	// full with jobs waiting is what it raises for.
	if d.tune() {
		d.fill(ctx)
	}
}

func (d *dispatcher) fill(ctx context.Context) {
	open := func(s Slot) bool { return s == SlotNone || d.bySlot[s] < d.slots(s) }
	live := d.waitingLive()
	// Held back: exclusive jobs waiting for the target's jobs to end, and
	// the target's jobs while an exclusive one runs.
	var later []*Job
	for {
		j := d.ready.best(open, live)
		if j == nil {
			break
		}
		d.ready.pop(j)
		switch {
		case j.Kind == KindBarrier:
			d.pass(j)
		case d.exclusive && !SourceSide(j), j.Exclusive && d.onTarget > 0:
			later = append(later, j)
		case !d.areaAllows(j):
			d.ready.park(j)
		default:
			d.start(ctx, j)
		}
	}
	for _, j := range later {
		d.ready.push(j)
	}
}

// waitingLive says whether a queued job still waits to start (the queue
// drops the others lazily).
func (d *dispatcher) waitingLive() func(*Job) bool {
	return func(j *Job) bool {
		_, started := d.started[j.ID]
		return !started && !d.done[j.ID] && d.depsLeft[j.ID] == 0
	}
}

// areaAllows applies the storage-area rules: nothing starts in an area
// being repaired, a repair waits for the area to be idle, no load starts
// in an area with a repair due (the truncate would wipe what it loads, and
// with several loads per area a stream of them could hold the repair off),
// and loads are capped per area.
func (d *dispatcher) areaAllows(j *Job) bool {
	if j.Area == "" {
		return true
	}
	if d.repairing[j.Area] {
		return false
	}
	switch j.Kind {
	case KindRepair:
		return d.byArea[j.Area] == 0
	case KindLoad, KindLoadBatch:
		per := d.loadCap(j.Area)
		return d.repairDue[j.Area] == 0 && (per <= 0 || d.byArea[j.Area] < per)
	}
	return true
}

// loadCap is the number of loads area may take at once (0 = no cap).
func (d *dispatcher) loadCap(area string) int {
	if n, ok := d.o.AreaLoads[area]; ok {
		return n
	}
	return d.o.LoadsPerArea
}

// noteRepair counts a queued repair against its area (see areaAllows).
func (d *dispatcher) noteRepair(j *Job) {
	if j.Kind == KindRepair && j.Area != "" {
		d.repairDue[j.Area]++
	}
}

func (d *dispatcher) slots(s Slot) int {
	if n := d.limits[s]; n > 0 {
		return n
	}
	if n := d.o.Slots[s]; n > 0 {
		return n
	}
	return 1
}

func (d *dispatcher) start(ctx context.Context, j *Job) {
	d.running++
	d.bySlot[j.Slot]++
	if j.Area != "" {
		d.byArea[j.Area]++
		if j.Kind == KindRepair {
			d.repairing[j.Area] = true
		}
	}
	if j.Exclusive {
		d.exclusive = true
	}
	if !SourceSide(j) {
		d.onTarget++
	}
	d.started[j.ID] = d.ex.Now()
	d.emit(event.JobStarted, j, nil)
	d.ex.Start(ctx, j)
}

// pass completes a barrier at once: it holds no slot and runs nothing.
func (d *dispatcher) pass(j *Job) {
	d.started[j.ID] = d.ex.Now()
	d.complete(j)
}

func (d *dispatcher) finish(j *Job, err error) {
	d.running--
	d.bySlot[j.Slot]--
	d.ended[j.Slot]++
	if j.Area != "" {
		d.byArea[j.Area]--
		free := 1 // a load or repair can now take the place this job held
		switch {
		case j.Kind == KindRepair:
			delete(d.repairing, j.Area)
			d.repairDue[j.Area]--
			free = -1 // everything the repair held back
		case d.byArea[j.Area] == 0:
			free = -1 // an idle area: a repair waiting for it among the loads it holds back
		case d.loadCap(j.Area) > 0:
			free = max(1, d.loadCap(j.Area)-d.byArea[j.Area])
		}
		d.ready.unpark(j.Area, free)
	}
	if j.Exclusive {
		d.exclusive = false
	}
	if !SourceSide(j) {
		d.onTarget--
	}
	d.res.Spans = append(d.res.Spans, Span{Job: j, Start: d.started[j.ID], End: d.ex.Now(), Err: err})
	if err != nil {
		d.res.Failed[j.ID] = err
		d.emit(event.JobFailed, j, err)
		return
	}
	d.emit(event.JobFinished, j, nil)
	d.complete(j)
}

// complete marks j done and readies the jobs that were waiting only for it.
func (d *dispatcher) complete(j *Job) {
	d.done[j.ID] = true
	for _, s := range d.g.succs[j.ID] {
		if d.done[s] {
			continue
		}
		d.depsLeft[s]--
		if d.depsLeft[s] == 0 {
			d.ready.push(d.g.byID[s])
		}
	}
}

// addJobs queues jobs discovered while the graph runs.
func (d *dispatcher) addJobs(out Outcome) error {
	for _, nj := range out.Add {
		for _, b := range nj.NotDuring {
			_, started := d.started[b]
			switch {
			case d.g.byID[b] == nil:
				return fmt.Errorf("job %s must not run beside unknown job %s", nj.ID, b)
			case d.done[b]:
			case started:
				nj.Deps = append(nj.Deps, b)
			default:
				nj.Before = append(nj.Before, b)
			}
		}
		if err := d.g.add(nj); err != nil {
			return err
		}
		var best int64
		for _, b := range nj.Before {
			bj := d.g.byID[b]
			if bj == nil {
				return fmt.Errorf("job %s must come before unknown job %s", nj.ID, b)
			}
			if _, ok := d.started[b]; ok || d.done[b] {
				return fmt.Errorf("job %s must come before %s, which already started", nj.ID, b)
			}
			bj.Deps = append(bj.Deps, nj.ID)
			d.g.succs[nj.ID] = append(d.g.succs[nj.ID], b)
			d.depsLeft[b]++ // if b was ready, the queue drops it when it meets it
			if d.rank[b] > best {
				best = d.rank[b]
			}
		}
		d.rank[nj.ID] = int64(nj.Cost) + best
		d.emit(event.JobQueued, nj, nil)
		d.noteRepair(nj)
		d.countDeps(nj)
	}
	return nil
}

// collectLeftovers sorts the jobs that never ran into blocked (a
// dependency failed) and cancelled (the context ended first).
func (d *dispatcher) collectLeftovers(ctx context.Context) {
	for _, j := range d.g.jobs {
		if d.done[j.ID] {
			continue
		}
		if _, ran := d.started[j.ID]; ran {
			continue
		}
		if ctx.Err() != nil {
			d.res.Cancelled = append(d.res.Cancelled, j.ID)
		} else {
			d.res.Blocked = append(d.res.Blocked, j.ID)
		}
	}
}

func (d *dispatcher) emit(k event.Kind, j *Job, err error) {
	if d.o.Events == nil {
		return
	}
	e := event.Event{
		V: event.SchemaVersion, Time: d.ex.Now(), Kind: k,
		Job: j.ID, JobKind: string(j.Kind), Table: j.Table, Area: j.Area, Host: j.Host,
		TotalRecords: j.Records, TotalBytes: j.Bytes,
	}
	if t, ok := d.started[j.ID]; ok && (k == event.JobFinished || k == event.JobFailed) {
		e.Elapsed = e.Time.Sub(t)
	}
	if err != nil {
		e.Err = err.Error()
	}
	d.o.Events.Emit(e)
}
