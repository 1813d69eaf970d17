package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/poststeps"
	"github.com/oedl/oedl/internal/schedule"
	"github.com/oedl/oedl/internal/units"
	"github.com/oedl/oedl/internal/verify"
)

// PlanFile is where the run keeps its plan in the work directory (the run
// package's PlanFile; repeated here because run calls this package).
const PlanFile = "plan.json"

// FromWork reads a run's work directory: journal.jsonl (required),
// plan.json and verify.json (each optional: the report says what it could
// not know). Errors name the file.
func FromWork(dir string) (Data, error) {
	jpath := filepath.Join(dir, journal.FileName)
	recs, err := journal.Read(jpath)
	if err != nil {
		return Data{}, err
	}
	if len(recs) == 0 {
		return Data{}, fmt.Errorf("%s: the journal is empty: no run has started in %s", jpath, dir)
	}
	var p *plan.Plan
	if pp, err := plan.ReadJSON(filepath.Join(dir, PlanFile)); err == nil {
		p = pp
	} else if !errors.Is(err, fs.ErrNotExist) {
		return Data{}, err
	}
	var v *verify.Result
	vpath := filepath.Join(dir, verify.JSONFile)
	if b, err := os.ReadFile(vpath); err == nil {
		v = &verify.Result{}
		if err := json.Unmarshal(b, v); err != nil {
			return Data{}, fmt.Errorf("%s: %w", vpath, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return Data{}, err
	}
	d := Build(recs, p, v)
	if d.PostSteps, err = poststeps.Read(dir); err != nil {
		return Data{}, err
	}
	d.TrueBound = trueBoundOf(recs, p, dir) // with the utilities' CPU time, which only the work directory has
	if recs[0].Job == journal.RunJob && recs[0].Prepared != nil {
		prep, err := journal.Read(filepath.Join(dir, journal.PrepareFileName))
		if err != nil {
			return Data{}, err
		}
		d.Preparation = preparationOf(prep)
	}
	if abs, err := filepath.Abs(dir); err == nil {
		d.Work = abs
	}
	return d, nil
}

// preparationOf folds the preparation's journal (nil when it holds no
// finished preparation).
func preparationOf(recs []journal.Record) *Preparation {
	var p Preparation
	done := false
	for _, r := range recs {
		switch {
		case r.Job == journal.PrepareJob && r.State == journal.Started && p.Start.IsZero():
			p.Start = r.Time
		case r.Job == journal.PrepareJob && r.State == journal.Done:
			p.End, done = r.Time, true
		case r.Job == string(schedule.KindCreateTarget) && r.State == journal.Done:
			p.CreateTarget = r.Elapsed
		}
	}
	if !done {
		return nil
	}
	return &p
}

// Build makes the report of a run from its journal records, its plan and
// its verification (p and v may be nil).
func Build(recs []journal.Record, p *plan.Plan, v *verify.Result) Data {
	d := Data{Title: "oedl run report"}
	var warnings []string
	res := spansFromJournal(recs, p)
	d.Spans = res
	d.Started, d.Ended = res.Start, res.End
	d.Hosts = HostRows(recs, res.Start)
	inPlace := journal.ResumedInPlace(recs)
	for i, r := range recs {
		if r.Job != journal.RunJob {
			continue
		}
		if r.State == journal.Started {
			d.Source, d.Target = cmpOr(r.Source, d.Source), cmpOr(r.Target, d.Target)
			for _, w := range r.Warnings {
				if !slices.Contains(warnings, w) {
					warnings = append(warnings, w)
				}
			}
			d.OEDLVersion, d.OpenEdgeVersion = cmpOr(r.OEDLVersion, d.OEDLVersion), cmpOr(r.OpenEdgeVersion, d.OpenEdgeVersion)
			if d.Estimate == nil {
				d.Estimate = r.Estimate // the first invocation's: what was said before the outage
			}
			d.Finished, d.RunErr, d.Interrupted = false, "", false
			d.Invocations = append(d.Invocations, Invocation{Start: r.Time, Outcome: "killed (no end recorded)", Message: r.Message, InPlace: inPlace[i]})
			continue
		}
		d.Finished, d.RunErr, d.Interrupted = true, r.Err, r.Interrupted()
		outcome := "failed"
		switch {
		case r.State == journal.Done:
			d.RunErr, outcome = "", "verified"
		case r.Interrupted():
			outcome = "interrupted"
		}
		if n := len(d.Invocations); n > 0 {
			d.Invocations[n-1].End, d.Invocations[n-1].Outcome = r.Time, outcome
		}
	}
	if v != nil {
		d.ChecksumBefore, d.ChecksumAfter = v.Before.Checksum, v.After.Checksum
		d.RecordsBefore, d.RecordsAfter = v.Before.Records, v.After.Records
	}
	if d.Source != "" {
		d.Title = "oedl run report: " + d.Source + " → " + d.Target
	}

	sizes := map[string]plan.Placement{}
	if p != nil {
		for _, t := range p.Tables {
			sizes[strings.ToLower(t.Table)] = t
			d.TotalBytes += t.Bytes
			d.TotalRecords += t.Records
		}
	}
	fileBytes := map[string]int64{}
	for _, r := range recs {
		if r.State == journal.Done && len(r.Files) > 0 {
			var n int64
			for _, f := range r.Files {
				n += f.Size
			}
			fileBytes[r.Job] = n
		}
	}
	bytesOf := func(j *schedule.Job) int64 {
		if n, ok := fileBytes[j.ID]; ok && j.Kind == schedule.KindDump {
			return n
		}
		if j.Bytes > 0 {
			return j.Bytes
		}
		return sizes[strings.ToLower(j.Table)].Bytes
	}

	crit := CriticalSpans(res)
	d.Bars = BarsFromSpans(res, crit)
	d.Phases, d.Kinds, d.Throughput = timings(res, bytesOf)
	withEstimate(d.Phases, d.Estimate)
	d.Critical = criticalSteps(res, crit)
	d.Failures = failureRows(recs, res.Start)
	markOutcomes(d.Failures, recs)
	d.Tables = tableRows(res, p, v)
	d.Slowest = slowest(d.Tables, 10)
	d.TrueBound = trueBoundOf(recs, p, "")
	d.Batches = batchesOf(recs)
	d.Verdict = verdict(d, res, v)
	// What the preflight let pass on the DBA's word (a source dumped
	// online) stays beside the verdict, whatever the verdict is.
	for _, w := range warnings {
		d.Verdict.Details = append(d.Verdict.Details, "warning: "+w)
	}
	return d
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// spansFromJournal pairs every started record with the done or failed
// record of the same job, and gives the jobs the dependencies of the graph
// the plan builds (so the critical path follows real dependencies). A job
// still running at the end of the journal gets a span to the last record.
func spansFromJournal(recs []journal.Record, p *plan.Plan) *schedule.Result {
	res := &schedule.Result{Failed: map[string]error{}}
	var graph *schedule.Built
	if p != nil {
		var o schedule.BuildOptions
		for _, r := range recs {
			if r.Job == journal.RunJob && r.Settings != nil {
				s := r.Settings
				o = schedule.BuildOptions{ServeSource: schedule.Served(int(s["dump_jobs"])), ServeTarget: schedule.Served(int(s["load_jobs"])),
					ThreadedDumpMin: s["threaded_dump_min"], DumpThreads: int(s["dump_threads"]), DumpsAfterCreate: s["dumps_after_create"] == 1}
				break
			}
		}
		graph, _ = schedule.Build(p, o) // a plan that does not build leaves the deps to the fallback
	}
	jobs := map[string]*schedule.Job{}
	job := func(r journal.Record) *schedule.Job {
		if j := jobs[r.Job]; j != nil {
			return j
		}
		j := &schedule.Job{ID: r.Job, Kind: schedule.Kind(r.Kind), Table: r.Table, Area: r.Area, Section: r.Section}
		if graph != nil {
			if g := graph.Job(r.Job); g != nil {
				j.Deps, j.Bytes, j.Records, j.Slot, j.Exclusive = g.Deps, g.Bytes, g.Records, g.Slot, g.Exclusive
			}
		}
		switch {
		case j.Kind == schedule.KindLoad && j.Deps == nil && j.Table != "":
			j.Deps = []string{schedule.DumpID(j.Table)} // a section load, added while the run went
		case j.Kind == schedule.KindIdxbuild:
			j.Exclusive = true
		}
		if j.Slot == schedule.SlotNone {
			switch j.Kind {
			case schedule.KindDump, schedule.KindAnalyzeSource, schedule.KindDumpDF, schedule.KindDumpSeq, schedule.KindDumpSecurity:
				j.Slot = schedule.SlotDump
			case schedule.KindLoad:
				j.Slot = schedule.SlotLoad
			}
		}
		jobs[r.Job] = j
		return j
	}
	open := map[string]journal.Record{}
	for i, r := range recs {
		if i == 0 || r.Time.Before(res.Start) {
			res.Start = r.Time
		}
		if r.Time.After(res.End) {
			res.End = r.Time
		}
		if r.Job == journal.RunJob {
			continue
		}
		switch r.State {
		case journal.Started:
			open[r.Job] = r
		case journal.Done, journal.Failed:
			st, ok := open[r.Job]
			if !ok {
				continue
			}
			delete(open, r.Job)
			span := schedule.Span{Job: job(r), Start: st.Time, End: r.Time}
			if r.State == journal.Failed {
				span.Err = errors.New(cmpOr(r.Err, "failed"))
				res.Failed[r.Job] = span.Err
			} else {
				delete(res.Failed, r.Job) // a retry that went through
			}
			res.Spans = append(res.Spans, span)
		}
	}
	for id, st := range open {
		res.Spans = append(res.Spans, schedule.Span{Job: job(st), Start: st.Time, End: res.End, Err: errors.New("never ended (still running, or the run was killed)")})
		res.Failed[id] = res.Spans[len(res.Spans)-1].Err
	}
	sort.SliceStable(res.Spans, func(a, b int) bool {
		if !res.Spans[a].Start.Equal(res.Spans[b].Start) {
			return res.Spans[a].Start.Before(res.Spans[b].Start)
		}
		return res.Spans[a].Job.ID < res.Spans[b].Job.ID
	})
	return res
}

func criticalSteps(res *schedule.Result, crit map[string]bool) []Step {
	var out []Step
	seen := map[string]bool{}
	for i := len(res.Spans) - 1; i >= 0; i-- {
		s := res.Spans[i]
		if !crit[s.Job.ID] || seen[s.Job.ID] {
			continue
		}
		seen[s.Job.ID] = true
		out = append(out, Step{Label: JobLabel(s.Job), Kind: string(s.Job.Kind), Start: s.Start.Sub(res.Start), End: s.End.Sub(res.Start)})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Start < out[b].Start })
	return compactSteps(out)
}

// compactSteps folds runs of three or more consecutive steps of the same
// kind into one ("14 dumps, PUB.Bin … PUB.Feedback"): on a run of a
// thousand small tables the slot chain is long, and a list of a thousand
// lines hides the few long steps that matter.
func compactSteps(steps []Step) []Step {
	var out []Step
	for i := 0; i < len(steps); {
		j := i
		for j < len(steps) && steps[j].Kind == steps[i].Kind {
			j++
		}
		if j-i < 3 {
			out = append(out, steps[i:j]...)
			i = j
			continue
		}
		first, last := steps[i].Label, steps[j-1].Label
		if t := strings.TrimPrefix(first, steps[i].Kind+" "); t != first {
			first, last = t, strings.TrimPrefix(last, steps[i].Kind+" ")
		}
		out = append(out, Step{Label: fmt.Sprintf("%d %ss, %s … %s", j-i, steps[i].Kind, first, last),
			Kind: steps[i].Kind, Start: steps[i].Start, End: steps[j-1].End, Jobs: j - i})
		i = j
	}
	for i := range out {
		out[i].Jobs = max(out[i].Jobs, 1)
	}
	return out
}

func failureRows(recs []journal.Record, start time.Time) []FailureRow {
	var out []FailureRow
	for _, r := range recs {
		if r.State != journal.Failed || r.Job == journal.RunJob {
			continue
		}
		out = append(out, FailureRow{Job: event.StableID(r.Job), Attempt: r.Attempt, At: r.Time.Sub(start), Reason: r.Reason,
			Err: r.Err, Log: r.Log})
	}
	return out
}

// markOutcomes says of each failed attempt how its job ended: a later
// attempt went through (recovered), it was stopped by an interrupt, or it
// failed for good. A load-batch call is never run again as itself: its
// area is repaired and its tables loaded again one by one, so it
// recovered when each of them was.
func markOutcomes(rows []FailureRow, recs []journal.Record) {
	last := map[string]journal.Record{} // stable ID -> its last end
	members := map[string][]string{}    // batch call -> its tables' load jobs (stable IDs)
	for _, r := range recs {
		if r.Job != journal.RunJob && (r.State == journal.Done || r.State == journal.Failed) {
			last[event.StableID(r.Job)] = r
		}
		if r.Batch != "" && r.State == journal.Started {
			id := event.StableID(r.Job)
			if call := event.StableID(r.Batch); !slices.Contains(members[call], id) {
				members[call] = append(members[call], id)
			}
		}
	}
	reloaded := func(call string) bool {
		ms := members[call]
		return len(ms) > 0 && !slices.ContainsFunc(ms, func(m string) bool { return last[m].State != journal.Done })
	}
	for i := range rows {
		f := &rows[i]
		end := last[f.Job]
		cancelled := f.Reason == event.ReasonCancelled || (f.Reason == "" && f.Err == "interrupted")
		switch {
		case end.State != journal.Done && reloaded(f.Job):
			f.Outcome = "recovered: each of its tables loaded again"
			if cancelled {
				f.Outcome = "stopped by the interrupt; each of its tables loaded again"
			}
		case cancelled && end.State == journal.Done:
			f.Outcome = fmt.Sprintf("stopped by the interrupt; done on attempt %d", end.Attempt)
		case cancelled:
			f.Outcome = "stopped by the interrupt"
		case end.State == journal.Done:
			f.Outcome = "recovered"
			if end.Attempt > 0 {
				f.Outcome = fmt.Sprintf("recovered on attempt %d", end.Attempt)
			}
		case end.Attempt == f.Attempt:
			f.Outcome = "failed"
		default:
			f.Outcome = "retried"
		}
	}
}

// tableRows joins the plan, the spans and the verification per table.
func tableRows(res *schedule.Result, p *plan.Plan, v *verify.Result) []TableRow {
	rows := map[string]*TableRow{}
	var order []string
	row := func(table string) *TableRow {
		k := strings.ToLower(table)
		if r := rows[k]; r != nil {
			return r
		}
		r := &TableRow{Table: table, RecordsBefore: -1, RecordsAfter: -1}
		rows[k] = r
		order = append(order, k)
		return r
	}
	if p != nil {
		for _, t := range p.Tables {
			r := row(t.Table)
			r.Area, r.Bytes = t.DataArea, t.Bytes
		}
	}
	for _, s := range res.Spans {
		if s.Job.Table == "" {
			continue
		}
		r := row(s.Job.Table)
		d := s.End.Sub(s.Start)
		switch s.Job.Kind {
		case schedule.KindDump:
			r.Dump += d
		case schedule.KindLoad:
			r.Load += d
			if s.Job.Section <= 1 {
				r.Attempts++
			}
		}
	}
	if v != nil {
		for _, vr := range v.Rows {
			r := row(vr.Table)
			r.RecordsBefore, r.RecordsAfter, r.Status = vr.Before, vr.After, string(vr.Status)
			switch vr.Status {
			case verify.Missing:
				r.RecordsAfter = -1
			case verify.Extra:
				r.RecordsBefore = -1
			}
		}
	}
	out := make([]TableRow, 0, len(order))
	for _, k := range order {
		out = append(out, *rows[k])
	}
	sort.SliceStable(out, func(a, b int) bool {
		if out[a].Bytes != out[b].Bytes {
			return out[a].Bytes > out[b].Bytes
		}
		return out[a].Table < out[b].Table
	})
	return out
}

func slowest(rows []TableRow, n int) []TableRow {
	s := append([]TableRow(nil), rows...)
	sort.SliceStable(s, func(a, b int) bool { return s[a].Total() > s[b].Total() })
	for len(s) > 0 && s[len(s)-1].Total() == 0 {
		s = s[:len(s)-1]
	}
	return s[:min(n, len(s))]
}

// verdict is the answer in a sentence a manager can forward, the jobs or
// tables behind it as details. A job is failed only when its last attempt
// failed: one that recovered is not in it.
func verdict(d Data, res *schedule.Result, v *verify.Result) Verdict {
	var failed []string
	for _, f := range d.Failures {
		if f.Outcome == "failed" && !slices.Contains(failed, f.Job) {
			failed = append(failed, f.Job)
		}
	}
	var unended []string
	for id, err := range res.Failed {
		if strings.HasPrefix(err.Error(), "never ended") {
			unended = append(unended, event.StableID(id))
		}
	}
	sort.Strings(unended)
	outage := units.FormatDuration(res.Elapsed())
	resume := "Continue it with oedl run --resume (same --work, --source, --target and --plan)."
	switch {
	case !d.Finished:
		return Verdict{State: "incomplete", Headline: "The run has not ended: it is still running, or it was killed. " + resume,
			Details: prefix("never ended: ", unended)}
	case d.Interrupted:
		return Verdict{State: "interrupted", Headline: fmt.Sprintf("The run was interrupted after %s and has not finished; its journal is consistent. %s", outage, resume)}
	case v != nil && !v.OK:
		var det []string
		for _, r := range v.Bad {
			det = append(det, fmt.Sprintf("%s: %s (before %s, after %s)", r.Table, r.Status, units.Thousands(r.Before), units.Thousands(r.After)))
		}
		h := fmt.Sprintf("The copy does not match: %d of %d tables hold another number of records than the source.", len(v.Bad), len(v.Rows))
		if s := v.Security; s != nil && !s.OK {
			for _, b := range s.Bad {
				det = append(det, fmt.Sprintf("%s %s: %s (before %q, after %q)", b.Kind, b.Name, b.Status, b.Before, b.After))
			}
			if len(v.Bad) == 0 {
				h = fmt.Sprintf("The copy does not match: every table arrived, but %d user(s), SQL grant(s) or view(s) differ from the source.", len(s.Bad))
			}
		}
		return Verdict{State: "mismatch", Headline: h, Details: det}
	case d.RunErr != "" || len(failed) > 0:
		var det []string
		for _, id := range failed {
			for i := len(d.Failures) - 1; i >= 0; i-- {
				if f := d.Failures[i]; f.Job == id {
					det = append(det, fmt.Sprintf("%s, attempt %d: %s", id, f.Attempt, firstLine(f.Err)))
					break
				}
			}
		}
		what := "a step of the run failed"
		if len(failed) == 1 {
			what = failedWhat(failed[0])
		} else if len(failed) > 1 {
			what = fmt.Sprintf("%d jobs failed", len(failed))
		}
		h := fmt.Sprintf("The migration failed after %s: %s. Fix the cause, then continue with oedl run --resume.", outage, what)
		if len(det) == 0 && d.RunErr != "" {
			det = []string{firstLine(d.RunErr)}
		}
		return Verdict{State: "failed", Headline: h, Details: det}
	case v == nil:
		return Verdict{State: "unverified", Headline: "The run ended, but its verification (verify.json) is missing: nothing proves the counts match."}
	}
	took := outage
	if a := againstEstimate(d.Estimate, res.Elapsed()); a != "" {
		took += ", " + a
		if d.Estimate.Priors {
			// Not the window a calibrated estimate promised: say so where
			// the comparison is read.
			took += " (from the built-in priors, not a calibration of this machine)"
		}
	}
	h := fmt.Sprintf("Verified: all %s tables and their %s records arrived, and every count matches. The outage took %s.",
		units.Thousands(int64(len(v.Rows))), units.Thousands(v.After.Records), took)
	if len(v.Rows) == 1 {
		h = fmt.Sprintf("Verified: the table and its %s records arrived, and the count matches. The outage took %s.", units.Thousands(v.After.Records), took)
	}
	var det []string
	if s := v.Security; s != nil {
		det = append(det, "users, SQL grants and views: "+s.After+", the same as the source")
	}
	return Verdict{OK: true, State: "verified", Headline: h, Details: det}
}

// failedWhat names a failed job for a sentence: "table PUB.customer
// could not be loaded".
func failedWhat(id string) string {
	kind, rest, _ := strings.Cut(id, ":")
	table, _, _ := strings.Cut(rest, ":")
	switch kind {
	case "load":
		return "table " + table + " could not be loaded"
	case "dump":
		return "table " + table + " could not be dumped"
	case "idxbuild":
		return "the index rebuild failed"
	case "verify":
		return "the verification failed"
	}
	return id + " failed"
}

func prefix(p string, xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = p + x
	}
	return out
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// batchesOf counts, from the journal, the load batches that ended well and
// the tables they loaded (each once, whatever the repairs: a table's load
// record names its batch).
func batchesOf(recs []journal.Record) Batches {
	calls, tables := map[string]bool{}, map[string]bool{}
	for _, r := range recs {
		if r.State != journal.Done {
			continue
		}
		if r.Kind == string(schedule.KindLoadBatch) {
			calls[r.Job] = true
		}
		if r.Batch != "" {
			tables[r.Table] = true
		}
	}
	return Batches{Tables: len(tables), Calls: len(calls)}
}
