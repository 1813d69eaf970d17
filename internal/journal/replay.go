package journal

import (
	"fmt"
	"os"
	"sort"

	"github.com/oedl/oedl/internal/sysproc"
)

// Job is the folded state of one job after replay.
type Job struct {
	ID       string
	Kind     string
	Table    string
	Area     string
	State    State // last state change: Started, Done or Failed
	Attempts int   // how many times it started, over every invocation
	Last     Record
	// Done is the last Done record, if the job's latest state is Done.
	Done *Record
	// Procs are the utility processes the job started (Running records),
	// over every invocation.
	Procs []sysproc.ID
}

// Replayed is a journal folded into per-job and per-area state.
type Replayed struct {
	Jobs map[string]*Job
	// Dirty maps a target area to the reason it needs a repair before any
	// more loads go into it: a load into it failed or never ended.
	Dirty map[string]string
	// Inflight maps a target area to the load into it that started and
	// has not ended. Such an area is in Dirty too: the journal alone cannot
	// tell a load still running from one whose oedl was killed. Only the
	// caller can: a resume holds the work directory's lock, so the run
	// that started the load is dead; `oedl status` asks the lock.
	Inflight map[string]string
	// onlyInflight: areas in Dirty for no reason but a load in flight.
	onlyInflight map[string]bool
	// Repairs counts completed repairs per area (the next repair's attempt
	// number is Repairs[area]+1).
	Repairs map[string]int
	// Loads is the state of every load, by table and section: a load may
	// run under several job IDs (a reload after a repair is a new job).
	Loads map[LoadKey]*Load
	// Runs are the RunJob records (one started record per invocation).
	Runs []Record
	// Last is the last record of the journal.
	Last Record
}

// LoadKey names what a load puts into the target: a table, or one .bd
// section of it (Section 0 = every file of the table's dump).
type LoadKey struct {
	Table   string
	Section int
}

// Load is the folded state of one LoadKey.
type Load struct {
	Area  string
	State State // "" after a repair undid it
	// Count is how many times it completed since the last repair of its
	// area: more than one means records were loaded twice.
	Count   int
	Records int64
	Job     string // the job ID of its latest record
}

// Replay folds records, in order, into per-job state.
func Replay(recs []Record) *Replayed {
	r := &Replayed{Jobs: map[string]*Job{}, Dirty: map[string]string{}, Inflight: map[string]string{},
		onlyInflight: map[string]bool{}, Repairs: map[string]int{}, Loads: map[LoadKey]*Load{}}
	// inflight: loads started and not ended.
	inflight := map[LoadKey]Record{}
	for _, rec := range recs {
		r.Last = rec
		if rec.Job == RunJob {
			r.Runs = append(r.Runs, rec)
			continue
		}
		j := r.Jobs[rec.Job]
		if j == nil {
			j = &Job{ID: rec.Job, Kind: rec.Kind, Table: rec.Table, Area: rec.Area}
			r.Jobs[rec.Job] = j
		}
		if rec.State == Running {
			if rec.Proc != nil {
				j.Procs = append(j.Procs, *rec.Proc)
			}
			continue
		}
		isLoad := rec.Kind == "load"
		isRepair := rec.Kind == "repair"
		if rec.Kind == "create-target" && rec.State == Done {
			// A target created (again): nothing is loaded into it.
			r.recreated(inflight)
		}
		key := LoadKey{rec.Table, rec.Section}
		var ld *Load
		if isLoad {
			if ld = r.Loads[key]; ld == nil {
				ld = &Load{Area: rec.Area}
				r.Loads[key] = ld
			}
			ld.Job = rec.Job
		}
		switch rec.State {
		case Started:
			j.State, j.Done = Started, nil
			j.Attempts++
			if isLoad {
				inflight[key] = rec
				ld.State = Started
			}
		case Done:
			j.State = Done
			rc := rec
			j.Done = &rc
			if isLoad {
				delete(inflight, key)
				ld.State = Done
				ld.Count++
				ld.Records = rec.Records
			}
			if isRepair {
				r.repaired(rec.Area, inflight)
			}
		case Failed:
			j.State, j.Done = Failed, nil
			if isLoad {
				delete(inflight, key)
				ld.State = Failed
				if rec.Interrupted() {
					r.Dirty[rec.Area] = fmt.Sprintf("%s was stopped half way by the interrupt", rec.Job)
				} else {
					r.Dirty[rec.Area] = fmt.Sprintf("%s failed: %s", rec.Job, rec.Err)
				}
			}
		case Repair:
			if rec.Area == "" {
				break // not an area's (a rebuild of the target: create-target does it)
			}
			// A decision, not an outcome: the area stays dirty until a
			// repair job records Done.
			if _, ok := r.Dirty[rec.Area]; !ok {
				r.Dirty[rec.Area] = rec.Message
			}
		}
		j.Last = rec
	}
	for _, rec := range inflight {
		r.Inflight[rec.Area] = rec.Job
		if _, ok := r.Dirty[rec.Area]; !ok || r.onlyInflight[rec.Area] {
			r.onlyInflight[rec.Area] = true
			r.Dirty[rec.Area] = fmt.Sprintf("%s started and never ended (the run was killed while it loaded)", rec.Job)
		}
	}
	return r
}

// OnlyInflight reports whether area is dirty for no reason but a load in
// flight: while the run that started the load lives, the area needs no
// repair.
func (r *Replayed) OnlyInflight(area string) bool { return r.onlyInflight[area] }

// Procs returns every utility process the journal recorded, by job, in
// journal order: those of a killed run may still be running.
func (r *Replayed) Procs() []JobProc {
	var out []JobProc
	for _, j := range r.Jobs {
		for _, p := range j.Procs {
			out = append(out, JobProc{Job: j.ID, Proc: p})
		}
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].Job != out[b].Job {
			return out[a].Job < out[b].Job
		}
		return out[a].Proc.PID < out[b].Proc.PID
	})
	return out
}

// JobProc is one utility process and the job that started it.
type JobProc struct {
	Job  string
	Proc sysproc.ID
}

// targetKinds are the jobs that work on the target after it is created:
// a target created again undoes them all.
var targetKinds = map[string]bool{"load": true, "load-batch": true, "load-sequences": true, "load-security": true, "repair": true,
	"idxbuild": true, "analyze-target": true, "post": true}

// recreated applies a target created again: every load and repair of the
// one before is undone, and no area is dirty.
func (r *Replayed) recreated(inflight map[LoadKey]Record) {
	clear(r.Dirty)
	clear(r.onlyInflight)
	clear(inflight)
	clear(r.Loads)
	for _, j := range r.Jobs {
		if targetKinds[j.Kind] {
			j.State, j.Done = "", nil
		}
	}
}

// repaired applies a completed truncate of area: every load done into it
// is undone (its records are gone), and the area is clean again.
func (r *Replayed) repaired(area string, inflight map[LoadKey]Record) {
	r.Repairs[area]++
	delete(r.Dirty, area)
	for _, j := range r.Jobs {
		if j.Kind == "load" && j.Area == area && j.State == Done {
			j.State, j.Done = "", nil
		}
	}
	for k, ld := range r.Loads {
		if ld.Area == area {
			ld.State, ld.Count, ld.Records = "", 0, 0
			delete(inflight, k)
		}
	}
}

// LoadDone reports whether table (section) is loaded: its latest load
// completed and no repair of its area undid it since.
func (r *Replayed) LoadDone(table string, section int) bool {
	ld := r.Loads[LoadKey{table, section}]
	return ld != nil && ld.State == Done && r.Dirty[ld.Area] == ""
}

// AreaLoads returns the loads into area that the journal knows of and that
// are not done: after a repair, every one of them must run again.
func (r *Replayed) AreaLoads(area string) []LoadKey {
	var out []LoadKey
	for k, ld := range r.Loads {
		if ld.Area == area && ld.State != Done {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Table != out[j].Table {
			return out[i].Table < out[j].Table
		}
		return out[i].Section < out[j].Section
	})
	return out
}

// IsDone reports whether the job's latest state is a Done record.
func (r *Replayed) IsDone(id string) bool {
	j := r.Jobs[id]
	return j != nil && j.State == Done
}

// Proven reports whether job id is done and its recorded output files are
// still there with the sizes recorded: the test for skipping a job on
// resume. A job whose Done record lists no files is proven by the record
// alone (a load: (6256) was seen and journalled before it was claimed).
func (r *Replayed) Proven(id string) (bool, string) {
	return r.ProvenBy(id, func(f File) (int64, error) {
		st, err := os.Stat(f.Path)
		if err != nil {
			return 0, err
		}
		return st.Size(), nil
	})
}

// ProvenBy is Proven with the size of each file asked of size (which
// knows the file's host: a file on another machine is asked there).
func (r *Replayed) ProvenBy(id string, size func(File) (int64, error)) (bool, string) {
	j := r.Jobs[id]
	if j == nil || j.State != Done || j.Done == nil {
		return false, "not done"
	}
	for _, f := range j.Done.Files {
		n, err := size(f)
		where := f.Path
		if f.Host != "" {
			where = f.Host + ":" + f.Path
		}
		if err != nil {
			return false, fmt.Sprintf("%s: %v", where, err)
		}
		if n != f.Size {
			return false, fmt.Sprintf("%s is %d bytes, the journal recorded %d", where, n, f.Size)
		}
	}
	return true, ""
}

// DirtyAreas returns the areas that need a repair, sorted.
func (r *Replayed) DirtyAreas() []string {
	out := make([]string, 0, len(r.Dirty))
	for a := range r.Dirty {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

// LoadedTwice returns the loads completed more than once since the last
// repair of their area, as "table" or "table section N": the invariant
// every run and resume must keep is that this is empty.
func (r *Replayed) LoadedTwice() []string {
	var out []string
	for k, ld := range r.Loads {
		if ld.Count > 1 {
			if k.Section > 0 {
				out = append(out, fmt.Sprintf("%s section %d", k.Table, k.Section))
			} else {
				out = append(out, k.Table)
			}
		}
	}
	sort.Strings(out)
	return out
}
