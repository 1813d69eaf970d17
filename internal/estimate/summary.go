package estimate

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/schedule"
)

// Estimate is the predicted outage window and how it breaks down. Times
// are offsets from the start of the run; JSON carries them as seconds.
type Estimate struct {
	Hardware    Hardware `json:"hardware"`
	Strategy    Strategy `json:"strategy"`
	ModelOrigin string   `json:"model_origin"`
	// Priors: the model is the built-in priors, no calibration.
	Priors bool `json:"priors,omitempty"`

	Window Seconds `json:"window_s"`
	// Preparation is what is done before the window when the strategy
	// prepares the target (oedl prepare): create-target, not in Window.
	Preparation Seconds       `json:"preparation_s,omitempty"`
	Range       *Range        `json:"range,omitempty"`
	Phases      []Phase       `json:"phases"`
	Overlap     OverlapFigure `json:"overlap"`

	CriticalPath []PathStep `json:"critical_path"`
	// Bottleneck says when the dump+load span is held by the queue's
	// slots rather than by any table ("" when it is not).
	Bottleneck string      `json:"bottleneck,omitempty"`
	Dominant   []Advice    `json:"dominant"`
	Tables     []TableTime `json:"tables"` // longest dump+load first
	Warnings   []string    `json:"warnings,omitempty"`
	// Hosts is what each host does on several hosts (docs/hosts.md).
	Hosts *HostsSummary `json:"hosts,omitempty"`
	// Integrity is what loading without crash protection (-i) gives and
	// what a failed load then costs (PriceIntegrity; nil: crash-safe loads,
	// or not priced).
	Integrity *IntegrityPrice `json:"no_integrity,omitempty"`

	sim *simulation
}

// Seconds is a duration that JSON writes as seconds.
type Seconds time.Duration

// MarshalJSON writes seconds with millisecond precision.
func (s Seconds) MarshalJSON() ([]byte, error) {
	return []byte(fmt.Sprintf("%.3f", time.Duration(s).Seconds())), nil
}

// D is the duration.
func (s Seconds) D() time.Duration { return time.Duration(s) }

// Phase is a part of the window: from the first of its jobs starting to
// the last one ending.
type Phase struct {
	Name     string  `json:"name"`
	Start    Seconds `json:"start_s"`
	End      Seconds `json:"end_s"`
	Duration Seconds `json:"duration_s"`
	Jobs     int     `json:"jobs"`
}

// OverlapFigure is how much dump and load ran at the same time.
type OverlapFigure struct {
	Duration Seconds `json:"duration_s"`
	// Efficiency ε = (T_D + T_L − T_DL)/min(T_D, T_L) with T_D and T_L the
	// busy time of each phase in this run (performance-model.md §4).
	Efficiency float64 `json:"efficiency"`
}

// PathStep is one job on the critical path.
type PathStep struct {
	Job   string  `json:"job"`
	Kind  string  `json:"kind"`
	Table string  `json:"table,omitempty"`
	Start Seconds `json:"start_s"`
	End   Seconds `json:"end_s"`
	// Waited is how long the job was ready but queued for a slot, an area
	// or the exclusive idxbuild.
	Waited Seconds `json:"waited_s,omitempty"`
}

// TableTime is one table's predicted dump and load.
type TableTime struct {
	Table     string  `json:"table"`
	Bytes     int64   `json:"bytes"`
	Records   int64   `json:"records"`
	Threads   int     `json:"threads,omitempty"`
	Sections  int     `json:"sections"`
	DumpStart Seconds `json:"dump_start_s"`
	DumpEnd   Seconds `json:"dump_end_s"`
	LoadStart Seconds `json:"load_start_s"`
	LoadEnd   Seconds `json:"load_end_s"`
	Dump      Seconds `json:"dump_s"` // busy time of the dump
	Load      Seconds `json:"load_s"` // busy time of its loads, summed
	// Batch is the load batch that loads the table (schedule/batch.go);
	// its Load is then its share of the batch's call (batchShares).
	Batch string `json:"batch,omitempty"`
}

// Advice is a table that dominates the window and what to do about it.
type Advice struct {
	Table  string  `json:"table"`
	Share  float64 `json:"share"` // of the dump+load span, or of idxbuild
	Advice string  `json:"advice"`
}

// Range is the Monte Carlo spread of the window, centred on it: P50 is
// Window, P90 Window stretched by the samples' P90 over their median
// (monteCarlo).
type Range struct {
	P50     Seconds `json:"p50_s"`
	P90     Seconds `json:"p90_s"`
	Samples int     `json:"samples"`
	Seed    uint64  `json:"seed"`
}

// Result is the simulated dispatch, for Gantt charts.
func (e *Estimate) Result() *schedule.Result { return e.sim.result }

// startRecorder keeps the order in which the queue started jobs.
type startRecorder struct {
	sim *simulation
	g   *schedule.Graph
}

func (r startRecorder) Emit(e event.Event) {
	if e.Kind == event.JobStarted {
		r.sim.starts = append(r.sim.starts, r.g.Job(e.Job))
	}
}

// phaseOf names the part of the window a job belongs to. Side jobs (the
// .df and sequence dumps, loading the sequences, shutting the source down)
// run whenever their few dependencies allow; they extend their phase's end
// but do not set its start, so a staged load phase starts with its first
// table.
func phaseOf(j *schedule.Job) (name string, side bool) {
	switch j.Kind {
	case schedule.KindPreflight, schedule.KindCreateTarget, schedule.KindServe:
		return "preflight", false
	case schedule.KindAnalyzeSource:
		return "analyze-source", false
	case schedule.KindDump:
		return "dump", false
	case schedule.KindDumpDF, schedule.KindDumpSeq, schedule.KindDumpSecurity:
		return "dump", true
	case schedule.KindLoad, schedule.KindLoadBatch, schedule.KindRepair:
		return "load", false
	case schedule.KindLoadSeq, schedule.KindLoadSecurity:
		return "load", true
	case schedule.KindIdxbuild:
		return "idxbuild", false
	case schedule.KindShutdown:
		if j.DB == schedule.DBTarget {
			return "idxbuild", false // the target goes offline for idxbuild
		}
		return "post", true
	case schedule.KindAnalyzeTarget, schedule.KindVerify:
		return "verify", false
	}
	return "post", false
}

var phaseOrder = []string{"preflight", "analyze-source", "dump", "load", "idxbuild", "verify", "post"}

func summarise(in *Input, m *Model, sim *simulation) *Estimate {
	res := sim.result
	at := func(t time.Time) Seconds { return Seconds(t.Sub(res.Start)) }
	est := &Estimate{Hardware: in.Hardware, Strategy: in.Strategy, ModelOrigin: m.Origin, Priors: !m.Calibrated(),
		Window: Seconds(res.Elapsed()), Preparation: Seconds(sim.preparation), sim: sim}

	byPhase := map[string]*Phase{}
	busy := map[string][]interval{}
	tables := map[string]*TableTime{}
	started := map[string]bool{}
	// One cost context for every batch's shares: building it indexes every
	// table of the plan, so building it per batch span made the summary
	// quadratic in the tables (a 20,000-table estimate spent 1.7 s of its
	// 2.2 s here).
	cc := in.context()
	for _, sp := range res.Spans {
		name, side := phaseOf(sp.Job)
		p := byPhase[name]
		if p == nil {
			p = &Phase{Name: name, Start: at(sp.Start), End: at(sp.End)}
			byPhase[name] = p
		}
		if !side && (!started[name] || at(sp.Start) < p.Start) {
			p.Start, started[name] = at(sp.Start), true
		}
		p.End = max(p.End, at(sp.End))
		p.Jobs++
		if !side {
			busy[name] = append(busy[name], interval{at(sp.Start), at(sp.End)})
		}
		table := func(name string) *TableTime {
			t := tables[name]
			if t == nil {
				t = &TableTime{Table: name}
				tables[name] = t
			}
			return t
		}
		load := func(t *TableTime, busy Seconds) {
			if t.Sections == 0 || at(sp.Start) < t.LoadStart {
				t.LoadStart = at(sp.Start)
			}
			t.LoadEnd = max(t.LoadEnd, at(sp.End))
			t.Load += busy
			t.Sections++
		}
		switch sp.Job.Kind {
		case schedule.KindDump:
			t := table(sp.Job.Table)
			t.Bytes, t.Records, t.Threads = sp.Job.Bytes, sp.Job.Records, sp.Job.Threads
			t.DumpStart, t.DumpEnd, t.Dump = at(sp.Start), at(sp.End), Seconds(sp.End.Sub(sp.Start))
		case schedule.KindLoad:
			load(table(sp.Job.Table), Seconds(sp.End.Sub(sp.Start)))
		case schedule.KindLoadBatch:
			for i, share := range batchShares(sp.Job, m, cc) {
				t := table(sp.Job.Members[i].Table)
				t.Batch = sp.Job.ID
				load(t, Seconds(float64(sp.End.Sub(sp.Start))*share))
			}
		}
	}
	for _, name := range phaseOrder {
		if p := byPhase[name]; p != nil {
			p.Start = min(p.Start, p.End)
			p.Duration = p.End - p.Start
			est.Phases = append(est.Phases, *p)
		}
	}
	est.Overlap = overlapOf(busy["dump"], busy["load"])
	for _, t := range tables {
		est.Tables = append(est.Tables, *t)
	}
	sort.Slice(est.Tables, func(a, b int) bool {
		ta, tb := est.Tables[a], est.Tables[b]
		if ta.Dump+ta.Load != tb.Dump+tb.Load {
			return ta.Dump+ta.Load > tb.Dump+tb.Load
		}
		return ta.Table < tb.Table
	})
	est.CriticalPath = criticalPath(sim)
	est.Dominant = dominant(in, m, est)
	est.Warnings = warnings(in, m)
	return est
}

// batchShares divides a load batch's call among its tables, in proportion
// to what the model prices each table's load at alone: the call's time
// belongs to the batch, a table's part of it is not measured (the run's
// events say the same, docs/events.md), and a share by the model keeps a
// table's load time comparable with an unbatched one's.
func batchShares(j *schedule.Job, m *Model, cc costContext) []float64 {
	out := make([]float64, len(j.Members))
	var sum float64
	for i, mb := range j.Members {
		w := m.work(&schedule.Job{Kind: schedule.KindLoad, Table: mb.Table, Area: j.Area, Records: mb.Records, Bytes: mb.Bytes}, cc)
		out[i] = aloneDuration(w, cc.hw).Seconds()
		sum += out[i]
	}
	for i := range out {
		if sum > 0 {
			out[i] /= sum
		} else {
			out[i] = 1 / float64(len(out))
		}
	}
	return out
}

type interval struct{ start, end Seconds }

// union merges intervals and returns the merged set, sorted.
func union(iv []interval) []interval {
	sort.Slice(iv, func(a, b int) bool { return iv[a].start < iv[b].start })
	var out []interval
	for _, x := range iv {
		if n := len(out); n > 0 && x.start <= out[n-1].end {
			out[n-1].end = max(out[n-1].end, x.end)
			continue
		}
		out = append(out, x)
	}
	return out
}

func length(iv []interval) Seconds {
	var s Seconds
	for _, x := range iv {
		s += x.end - x.start
	}
	return s
}

// overlapOf measures how long dumps and loads were both running, and the
// overlap efficiency ε of the run.
func overlapOf(dumps, loads []interval) OverlapFigure {
	d, l := union(dumps), union(loads)
	var both Seconds
	for i, j := 0, 0; i < len(d) && j < len(l); {
		lo, hi := max(d[i].start, l[j].start), min(d[i].end, l[j].end)
		if hi > lo {
			both += hi - lo
		}
		if d[i].end < l[j].end {
			i++
		} else {
			j++
		}
	}
	td, tl := length(d), length(l)
	all := length(union(append(append([]interval{}, d...), l...)))
	f := OverlapFigure{Duration: both}
	if m := min(td, tl); m > 0 {
		f.Efficiency = float64(td+tl-all) / float64(m)
	}
	return f
}

// criticalPath walks back from the job that ended last: each step goes to
// the dependency that ended last (for a load of a .bd section, the dump
// that produced it). A job that started later than that dependency ended
// was waiting for a slot, an area or the exclusive idxbuild.
func criticalPath(sim *simulation) []PathStep {
	res := sim.result
	spans := make(map[string]schedule.Span, len(res.Spans))
	var last *schedule.Span
	for i := range res.Spans {
		sp := res.Spans[i]
		spans[sp.Job.ID] = sp
		if last == nil || sp.End.After(last.End) || (sp.End.Equal(last.End) && sp.Job.ID < last.Job.ID) {
			last = &res.Spans[i]
		}
	}
	var path []PathStep
	for cur, ok := *last, last != nil; ok; {
		var prev schedule.Span
		found := false
		deps := cur.Job.Deps
		if cur.Job.Kind == schedule.KindLoad && cur.Job.Section > 0 {
			deps = append([]string{schedule.DumpID(cur.Job.Table)}, deps...)
		}
		for _, id := range deps {
			sp, in := spans[id]
			if !in || sp.Start.After(cur.Start) {
				continue
			}
			end := sp.End
			if end.After(cur.Start) { // a dump still running when its section landed
				end = cur.Start
			}
			if !found || end.After(prev.End) {
				prev, found = sp, true
				prev.End = end
			}
		}
		step := PathStep{Job: cur.Job.ID, Kind: string(cur.Job.Kind), Table: cur.Job.Table,
			Start: Seconds(cur.Start.Sub(res.Start)), End: Seconds(cur.End.Sub(res.Start))}
		switch {
		case found && cur.Start.After(prev.End):
			step.Waited = Seconds(cur.Start.Sub(prev.End))
		case !found:
			// Every job it needs was done before the start (a live
			// forecast of the work left): it was ready from the start.
			step.Waited = Seconds(cur.Start.Sub(res.Start))
		}
		path = append(path, step)
		if found {
			prev.End = spans[prev.Job.ID].End
		}
		cur, ok = prev, found
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return path
}

// Text renders the estimate for people.
func (e *Estimate) String() string {
	var b strings.Builder
	_ = e.WriteText(&b, 20)
	return b.String()
}
