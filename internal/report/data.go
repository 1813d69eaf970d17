package report

import (
	"github.com/oedl/oedl/internal/poststeps"
	"sort"
	"time"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/schedule"
	"github.com/oedl/oedl/internal/truebound"
)

// Data is everything a report shows. It is built from a work directory
// (FromWork) or by hand in tests; Write renders it.
type Data struct {
	Title          string
	Source, Target string
	Work           string
	Started, Ended time.Time
	Finished       bool   // the run recorded its end
	RunErr         string // the run's error, if it failed
	Interrupted    bool   // its last invocation ended by an interrupt

	Verdict Verdict

	// PostSteps are what the DBA does after the load that oedl does not
	// (after-imaging, replication, statistics), each with why it applies
	// or not: from post-load.json of the work directory (nil without it).
	PostSteps []poststeps.Step

	// Invocations are the `oedl run` of this work directory: the first,
	// then each resume; more than one means the run was interrupted (or
	// failed, or killed) and resumed. The outage is Started to Ended,
	// across all of them.
	Invocations []Invocation
	// Versions of the programs of the last invocation.
	OEDLVersion, OpenEdgeVersion string
	// The verification's checksums (sha256 of the sorted "table count"
	// lines of each side) and counts; empty when it did not run.
	ChecksumBefore, ChecksumAfter string
	RecordsBefore, RecordsAfter   int64

	TotalBytes   int64 // table data in the plan
	TotalRecords int64

	// Batches are the small tables loaded in batches (oedl run
	// --batch-loads): how many tables in how many utility calls.
	Batches Batches

	// Estimate is what the estimate of the run's own graph said when its
	// first invocation started (nil: the run made none): the phases carry
	// its figure beside theirs, the facts its window against the outage.
	Estimate *event.Estimate

	// TrueBound is the least time any schedule of the run's work could
	// take, from the costs the run measured (nil: nothing was loaded).
	TrueBound *truebound.Bound

	// Preparation is the `oedl prepare` whose target the run kept (nil:
	// the run created its own): done before the window, not in it.
	Preparation *Preparation

	Phases     []PhaseTiming
	Kinds      []KindTiming
	Tables     []TableRow // every table, largest first
	Slowest    []TableRow // the tables that took longest (dump + load)
	Critical   []Step     // the critical path of the run, in order
	Throughput []Rate     // dump and load throughput over time
	Failures   []FailureRow

	// Hosts are what each host did, on several hosts (none on one machine).
	Hosts []HostRow

	// Spans are the jobs as they ran, for the Gantt chart.
	Spans *schedule.Result
	Bars  []Bar
}

// Batches counts the load batches that went through: Tables loaded in
// Calls proutil -C load -dumplist calls.
type Batches struct{ Tables, Calls int }

// Verdict is the answer, in a plain sentence a manager can forward.
type Verdict struct {
	OK bool
	// State is one word for styling and scripts: verified, failed,
	// mismatch, interrupted, incomplete, unverified.
	State    string
	Headline string   // "Verified: all 34 tables and their 1,234,567 records arrived; every count matches."
	Details  []string // mismatched tables, failed jobs
}

// Invocation is one `oedl run` of the work directory.
type Invocation struct {
	Start, End time.Time // End zero: it never recorded its end (killed)
	Outcome    string    // "verified", "failed", "interrupted", "killed (no end recorded)"
	Message    string    // its start ("started", "resumed: 12 job(s) already done ...")
	// InPlace: the same oedl process started again after the attempt
	// before it failed in a way only a resume repairs (run.Run): not an
	// interruption, and not a `oedl run --resume` of the DBA's.
	InPlace bool
}

// resumes counts the invocations the DBA started (interrupted and resumed)
// and the resumes in place among them.
func resumes(invs []Invocation) (invocations, inPlace int) {
	for _, inv := range invs {
		if inv.InPlace {
			inPlace++
		} else {
			invocations++
		}
	}
	return invocations, inPlace
}

// PhaseTiming is one phase of the outage on the run's clock.
type PhaseTiming struct {
	Name       string
	Start, End time.Duration
	Jobs       int
	// Estimated is the phase's duration in the estimate before the run
	// (EstimatedOK: the estimate had the phase).
	Estimated   time.Duration
	EstimatedOK bool
}

// Duration is the wall time of the phase.
func (p PhaseTiming) Duration() time.Duration { return p.End - p.Start }

// KindTiming sums the jobs of one kind.
type KindTiming struct {
	Kind       string
	Jobs       int
	Failed     int
	Busy       time.Duration // sum of the jobs' durations
	Start, End time.Duration // first start, last end
	Bytes      int64
}

// TableRow is one table, before and after.
type TableRow struct {
	Table         string
	Area          string
	Bytes         int64
	RecordsBefore int64 // -1 when unknown (no verification)
	RecordsAfter  int64
	Status        string // match, mismatch, missing, extra; "" when not verified
	Dump, Load    time.Duration
	Attempts      int // load attempts (1 when it went through first time)
}

// Total is dump plus load time.
func (t TableRow) Total() time.Duration { return t.Dump + t.Load }

// Step is one job of the critical path, or a run of consecutive jobs of
// the same kind (Jobs > 1: "9 loads, PUB.Bin … PUB.Vacation").
type Step struct {
	Label      string
	Kind       string
	Start, End time.Duration
	Jobs       int
}

// Rate is the throughput of one time bucket.
type Rate struct {
	At         time.Duration // start of the bucket
	Width      time.Duration
	DumpPerSec float64 // bytes per second
	LoadPerSec float64
}

// FailureRow is one failed attempt.
type FailureRow struct {
	Job     string // stable job ID: every attempt of a table's load is "load:PUB.x"
	Attempt int
	At      time.Duration
	Reason  string // event.Reason*, when the journal has it
	Err     string
	Log     string
	Outcome string // "recovered on attempt 2", "failed", "stopped by the interrupt"
}

// phaseOf maps a job kind to the phase of the outage it belongs to, as a
// manager reads it; the phases are schedule's, as on the live screen.
func phaseOf(kind string) string {
	return phaseLabel[schedule.PhaseOf(schedule.Kind(kind))] // "" for the brokers
}

var phaseLabel = map[schedule.Phase]string{
	schedule.PhasePreflight: "preflight", schedule.PhaseDumpLoad: "dump and load", schedule.PhaseIdxbuild: "index rebuild",
	schedule.PhaseVerify: "verify", schedule.PhasePost: "post steps",
}

var phaseOrder = []string{"preflight", "dump and load", "index rebuild", "verify", "post steps"}

// withEstimate puts the estimate's duration of each phase beside the
// actual one (the estimate names its phases as the run does,
// schedule.PhaseOf).
func withEstimate(ps []PhaseTiming, est *event.Estimate) {
	if est == nil {
		return
	}
	for _, e := range est.Phases {
		name := phaseLabel[schedule.Phase(e.Phase)]
		for i := range ps {
			if ps[i].Name == name {
				ps[i].Estimated, ps[i].EstimatedOK = e.End-e.Start, true
			}
		}
	}
}

// timings computes the phases, the kinds and the throughput from spans.
func timings(res *schedule.Result, bytesOf func(*schedule.Job) int64) ([]PhaseTiming, []KindTiming, []Rate) {
	phases := map[string]*PhaseTiming{}
	kinds := map[string]*KindTiming{}
	for _, s := range res.Spans {
		start, end := s.Start.Sub(res.Start), s.End.Sub(res.Start)
		k := string(s.Job.Kind)
		kt := kinds[k]
		if kt == nil {
			kt = &KindTiming{Kind: k, Start: start, End: end}
			kinds[k] = kt
		}
		kt.Jobs++
		kt.Busy += end - start
		kt.Start, kt.End = min(kt.Start, start), max(kt.End, end)
		if s.Err != nil {
			kt.Failed++
		} else {
			kt.Bytes += bytesOf(s.Job)
		}
		name := phaseOf(k)
		if name == "" {
			continue
		}
		p := phases[name]
		if p == nil {
			p = &PhaseTiming{Name: name, Start: start, End: end}
			phases[name] = p
		}
		p.Jobs++
		p.Start, p.End = min(p.Start, start), max(p.End, end)
	}
	var ps []PhaseTiming
	for _, n := range phaseOrder {
		if p := phases[n]; p != nil {
			ps = append(ps, *p)
		}
	}
	var ks []KindTiming
	for _, k := range kinds {
		ks = append(ks, *k)
	}
	sort.Slice(ks, func(a, b int) bool {
		if ks[a].Start != ks[b].Start {
			return ks[a].Start < ks[b].Start
		}
		return ks[a].Kind < ks[b].Kind
	})
	return ps, ks, throughput(res, bytesOf)
}

// throughputBuckets is how many points the throughput chart has at most.
const throughputBuckets = 60

// throughput spreads each successful dump and load's bytes evenly over its
// span and sums them per time bucket.
func throughput(res *schedule.Result, bytesOf func(*schedule.Job) int64) []Rate {
	total := res.End.Sub(res.Start)
	if total <= 0 {
		return nil
	}
	width := max(time.Second, (total / throughputBuckets).Round(time.Second))
	if width < 0 { // Round overflowed: a journal spanning centuries (a clock gone wrong)
		width = total / throughputBuckets
	}
	n := int(total / width)
	if total%width != 0 {
		n++
	}
	out := make([]Rate, n)
	for i := range out {
		out[i] = Rate{At: time.Duration(i) * width, Width: width}
	}
	for _, s := range res.Spans {
		if s.Err != nil || (s.Job.Kind != schedule.KindDump && s.Job.Kind != schedule.KindLoad) {
			continue
		}
		b := bytesOf(s.Job)
		start, end := s.Start.Sub(res.Start), s.End.Sub(res.Start)
		if b <= 0 || end <= start {
			continue
		}
		perSec := float64(b) / (end - start).Seconds()
		for i := int(start / width); i < n && out[i].At < end; i++ {
			lo, hi := max(start, out[i].At), min(end, out[i].At+width)
			share := perSec * (hi - lo).Seconds() / width.Seconds()
			if s.Job.Kind == schedule.KindDump {
				out[i].DumpPerSec += share
			} else {
				out[i].LoadPerSec += share
			}
		}
	}
	return out
}

// Preparation is what `oedl prepare` did before the window: when it
// started and ended (over all its invocations) and its create-target.
type Preparation struct {
	Start, End   time.Time
	CreateTarget time.Duration
}
