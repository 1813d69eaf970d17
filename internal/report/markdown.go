package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/poststeps"
	"github.com/oedl/oedl/internal/units"
)

// WriteMarkdown writes the report as Markdown: for the change ticket, a
// wiki page or a terminal. The order is what a reader asks in turn: did
// it work (the verdict, in a sentence), what ran and with what, how long
// each phase took, what failed, then the detail. The Gantt chart is in
// the HTML report.
func WriteMarkdown(w io.Writer, d Data) error {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p("# %s\n\n", mdEsc(d.Title))
	p("**%s**\n", mdEsc(d.Verdict.Headline))
	for _, x := range d.Verdict.Details {
		p("\n- %s", mdEsc(x))
	}
	if len(d.Verdict.Details) > 0 {
		p("\n")
	}
	p("\n| | |\n|---|---|\n")
	for _, f := range facts(d) {
		p("| %s | %s |\n", f[0], mdEsc(f[1]))
	}
	if len(d.Invocations) > 1 {
		p("\n## %s\n\nThe outage counts from the first start to the last end, across every invocation.\n\n", resumedHeading(d.Invocations))
		for i, inv := range d.Invocations {
			p("%d. %s\n", i+1, mdEsc(inv.String()))
		}
	}
	if len(d.Phases) > 0 {
		p("\n## Phases\n\n")
		cols := phaseColumnsOf(d)
		writeMDTable(&b, cols, len(d.Phases), func(row, col int) string { return cols[col].cell(d.Phases[row]) })
	}
	if len(d.Failures) > 0 {
		p("\n## Failures\n\nEvery failed attempt, and how its job ended.\n\n| Job | Attempt | At | Outcome | Error | Log |\n|---|--:|--:|---|---|---|\n")
		for _, f := range d.Failures {
			p("| %s | %d | %s | %s | %s | %s |\n", mdEsc(f.Job), f.Attempt, units.FormatDuration(f.At), f.Outcome, mdEsc(firstLine(f.Err)), mdEsc(f.Log))
		}
	}
	p("\nThe Gantt chart of every job is in report.html.\n")
	if len(d.Critical) > 0 {
		p("\n## Critical path\n\nThe chain of jobs that held the finish back: each waited for the one before it.\n\n")
		for i, s := range d.Critical {
			p("%d. %s: %s → %s (%s)\n", i+1, mdEsc(s.Label), units.FormatDuration(s.Start), units.FormatDuration(s.End), units.FormatDuration(s.End-s.Start))
		}
	}
	if len(d.Hosts) > 0 {
		p("\n## Hosts\n\nWhere the work ran: each dump on a host holding the data, its files moved to the target's machine and checked there, the loads on the target.\n\n| Host | Role | Reached | Jobs | Failed | Dumps | Dumped | Moves | Moved | Loads | First start | Last end |\n|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
		for _, h := range d.Hosts {
			p("| %s | %s | %s | %d | %d | %d | %s | %d | %s | %d | %s | %s |\n", mdEsc(h.Name), h.Role, mdEsc(h.SSH), h.Jobs, h.Failed,
				h.Dumps, bytesOrDash(h.DumpBytes), h.Moves, bytesOrDash(h.MovedBytes), h.Loads, units.FormatDuration(h.Start), units.FormatDuration(h.End))
		}
	}
	if len(d.Kinds) > 0 {
		p("\n## Jobs by kind\n\n| Kind | Jobs | Failed | Busy (sum) | First start | Last end | Data |\n|---|--:|--:|--:|--:|--:|--:|\n")
		for _, k := range d.Kinds {
			p("| %s | %s | %d | %s | %s | %s | %s |\n", k.Kind, units.Thousands(int64(k.Jobs)), k.Failed, units.FormatDuration(k.Busy),
				units.FormatDuration(k.Start), units.FormatDuration(k.End), bytesOrDash(k.Bytes))
		}
	}
	if len(d.Slowest) > 0 {
		p("\n## Slowest tables\n\n| Table | Area | Size | Dump | Load | Total |\n|---|---|--:|--:|--:|--:|\n")
		for _, t := range d.Slowest {
			p("| %s | %s | %s | %s | %s | %s |\n", mdEsc(t.Table), mdEsc(t.Area), bytesOrDash(t.Bytes),
				units.FormatDuration(t.Dump), units.FormatDuration(t.Load), units.FormatDuration(t.Total()))
		}
	}
	if rates := rebucket(d.Throughput, 12); len(rates) > 0 {
		p("\n## Throughput\n\n| From | To | Dump | Load |\n|--:|--:|--:|--:|\n")
		for _, r := range rates {
			p("| %s | %s | %s | %s |\n", units.FormatDuration(r.At), units.FormatDuration(r.At+r.Width), rateText(r.DumpPerSec), rateText(r.LoadPerSec))
		}
	}
	if len(d.PostSteps) > 0 {
		p("\n## After the load\n\nWhat oedl leaves to the DBA, in %s (it runs none of it).\n\n| Step | Applies | Why | Commands |\n|---|---|---|---|\n", poststeps.ScriptFile)
		for _, s := range d.PostSteps {
			var cmds []string
			for _, argv := range s.Commands {
				cmds = append(cmds, "`"+poststeps.Quote(argv)+"`")
			}
			p("| %s | %s | %s | %s |\n", s.Name, yesNo(s.Applies), mdEsc(s.Why), strings.Join(cmds, "<br>"))
		}
	}
	if len(d.Tables) > 0 {
		p("\n## Tables\n\n| Table | Area | Size | Records before | Records after | Status | Dump | Load | Load attempts |\n|---|---|--:|--:|--:|---|--:|--:|--:|\n")
		for _, t := range d.Tables {
			p("| %s | %s | %s | %s | %s | %s | %s | %s | %d |\n", mdEsc(t.Table), mdEsc(t.Area), bytesOrDash(t.Bytes),
				countOrDash(t.RecordsBefore), countOrDash(t.RecordsAfter), cmpOr(t.Status, "not verified"),
				units.FormatDuration(t.Dump), units.FormatDuration(t.Load), t.Attempts)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// column is one column of a report table, the same for Markdown and
// HTML: the phases table grows by a column here (an estimate beside each
// actual duration) without touching either writer.
type column[T any] struct {
	head    string
	numeric bool
	cell    func(T) string
}

var phaseColumns = []column[PhaseTiming]{
	{"Phase", false, func(p PhaseTiming) string { return p.Name }},
	{"Start", true, func(p PhaseTiming) string { return units.FormatDuration(p.Start) }},
	{"End", true, func(p PhaseTiming) string { return units.FormatDuration(p.End) }},
	{"Duration", true, func(p PhaseTiming) string { return units.FormatDuration(p.Duration()) }},
	{"Jobs", true, func(p PhaseTiming) string { return units.Thousands(int64(p.Jobs)) }},
}

// estimateColumns follow when the run made an estimate before it started:
// each phase's estimated duration and how far it was from the actual one
// (errorText), against the run's window. An estimate from the built-in
// priors alone says so in its heading: nothing of this machine is in it.
func estimateColumns(est *event.Estimate, window time.Duration) []column[PhaseTiming] {
	head := "Estimated"
	if est.Priors {
		head = "Estimated (priors only)"
	}
	return []column[PhaseTiming]{
		{head, true, func(p PhaseTiming) string {
			if !p.EstimatedOK {
				return "—"
			}
			return units.FormatDuration(p.Estimated)
		}},
		{"Estimate error", true, func(p PhaseTiming) string {
			if !p.EstimatedOK {
				return "—"
			}
			return errorText(p.Estimated, p.Duration(), window)
		}},
	}
}

// phaseColumnsOf is the phases table's columns for d.
func phaseColumnsOf(d Data) []column[PhaseTiming] {
	if d.Estimate == nil {
		return phaseColumns
	}
	return append(append([]column[PhaseTiming](nil), phaseColumns...), estimateColumns(d.Estimate, d.Ended.Sub(d.Started))...)
}

// Below errorMinActual, or errorMinShare of the window, an actual figure
// is too short for a percentage to mean anything (a 50 ms phase estimated
// at 0.1 s is "+100%" and costs nothing): the error is given in seconds.
const (
	errorMinActual = time.Second
	errorMinShare  = 0.02
)

// errorText is an estimate's error against the actual figure: "+12%"
// (the estimate was longer), "−8%"; "+0.3s" for an actual figure too
// short for a percentage (against window; 0: no window); "—" when
// nothing happened.
func errorText(estimated, actual, window time.Duration) string {
	if actual <= 0 {
		return "—"
	}
	if actual < errorMinActual || actual.Seconds() < errorMinShare*window.Seconds() {
		d := estimated - actual
		switch abs := units.FormatDuration(max(d, -d)); {
		case abs == "0s":
			return "0s" // off by less than the tenth shown: no sign, not "−0s"
		case d < 0:
			return "−" + abs
		default:
			return "+" + abs
		}
	}
	e := 100 * (estimated - actual).Seconds() / actual.Seconds()
	if e < 0 {
		return fmt.Sprintf("−%.0f%%", -e)
	}
	return fmt.Sprintf("+%.0f%%", e)
}

// writeMDTable writes a Markdown table of rows rows.
func writeMDTable[T any](b *strings.Builder, cols []column[T], rows int, cell func(row, col int) string) {
	var head, rule strings.Builder
	for _, c := range cols {
		head.WriteString("| " + c.head + " ")
		if c.numeric {
			rule.WriteString("|--:")
		} else {
			rule.WriteString("|---")
		}
	}
	b.WriteString(head.String() + "|\n" + rule.String() + "|\n")
	for r := range rows {
		for c := range cols {
			b.WriteString("| " + mdEsc(cell(r, c)) + " ")
		}
		b.WriteString("|\n")
	}
}

// facts are the key facts of the run, in the order both writers show them.
func facts(d Data) [][2]string {
	var out [][2]string
	add := func(k, v string) {
		if v != "" {
			out = append(out, [2]string{k, v})
		}
	}
	add("Source", d.Source)
	add("Target", d.Target)
	add("Work directory", d.Work)
	add("Started", stampOf(d.Started))
	add("Ended", stampOf(d.Ended))
	outage := units.FormatDuration(d.Ended.Sub(d.Started))
	switch n, inPlace := resumes(d.Invocations); {
	case n > 1 && inPlace > 0:
		outage += fmt.Sprintf(" over %d invocations (interrupted and resumed), resumed in place %s", n, units.Times(inPlace))
	case n > 1:
		outage += fmt.Sprintf(" over %d invocations (interrupted and resumed)", n)
	case inPlace > 0:
		outage += fmt.Sprintf(", resumed in place %s", units.Times(inPlace))
	}
	if d.Preparation != nil {
		outage += ", from the source freeze: the target was prepared before it"
	}
	add("Outage", outage)
	if pr := d.Preparation; pr != nil {
		add("Preparation", fmt.Sprintf("oedl prepare %s to %s (%s; create-target %s), before the window and not in it",
			stampOf(pr.Start), stampOf(pr.End), units.FormatDuration(pr.End.Sub(pr.Start)), units.FormatDuration(pr.CreateTarget)))
	}
	if e := d.Estimate; e != nil && d.Finished {
		s := "estimated " + units.FormatDuration(e.Window)
		if e.P90 > e.P50 {
			s += " (P50–P90 " + units.FormatDuration(e.P50) + "–" + units.FormatDuration(e.P90) + ")"
		}
		s += " before the run"
		if e.Priors {
			s += ", " + event.PriorsOnly
		}
		took := d.Ended.Sub(d.Started)
		if a := againstEstimate(e, took); a != "" {
			s += "; the outage: " + a + " (error " + errorText(e.Window, took, 0) + ")"
		} else {
			s += "; error " + errorText(e.Window, took, 0)
		}
		if e.Model != "" {
			s += "; model: " + e.Model
		}
		add("Estimate", s)
	}
	add("True lower bound", trueBoundFact(d))
	if d.TotalBytes > 0 {
		add("Data", fmt.Sprintf("%s, %s records in %s tables", units.FormatIEC(d.TotalBytes), units.Thousands(d.TotalRecords), units.Thousands(int64(len(d.Tables)))))
	}
	if b := d.Batches; b.Calls > 0 {
		add("Load batches", fmt.Sprintf("%s small tables loaded in %s (proutil -C load -dumplist, one start-up each; a table's load time is its call's)",
			units.Thousands(int64(b.Tables)), plural(b.Calls, "call")))
	}
	if d.ChecksumBefore != "" {
		add("Records", fmt.Sprintf("%s before, %s after", units.Thousands(d.RecordsBefore), units.Thousands(d.RecordsAfter)))
		add("Checksum before", "sha256 "+d.ChecksumBefore)
		add("Checksum after", "sha256 "+d.ChecksumAfter)
	}
	add("oedl", d.OEDLVersion)
	add("OpenEdge", d.OpenEdgeVersion)
	return out
}

// resumedHeading names the section listing the invocations: "Resumed in
// place" when oedl alone started again (a failure only a resume repairs,
// run.Run), not the DBA after an interruption.
func resumedHeading(invs []Invocation) string {
	if n, _ := resumes(invs); n == 1 {
		return "Resumed in place"
	}
	return "Interrupted and resumed"
}

// String is "started 21:29:18, interrupted at 21:29:22 after 4s"; a
// resume in place's "started again in place 21:29:22 (resumed: ...)".
func (inv Invocation) String() string {
	s := "started " + stampOf(inv.Start)
	if inv.InPlace {
		s = "started again in place by the same oedl " + stampOf(inv.Start)
	}
	if inv.Message != "" && inv.Message != "started" {
		s += " (" + inv.Message + ")"
	}
	if inv.End.IsZero() {
		return s + ": " + inv.Outcome
	}
	return s + fmt.Sprintf(": %s at %s after %s", inv.Outcome, inv.End.Format("15:04:05"), units.FormatDuration(inv.End.Sub(inv.Start)))
}

// rebucket merges rates into at most n rows (averages of equal-width
// groups), for the Markdown table.
func rebucket(rs []Rate, n int) []Rate {
	if len(rs) <= n {
		return rs
	}
	per := (len(rs) + n - 1) / n
	var out []Rate
	for i := 0; i < len(rs); i += per {
		g := rs[i:min(i+per, len(rs))]
		r := Rate{At: g[0].At}
		for _, x := range g {
			r.Width += x.Width
			r.DumpPerSec += x.DumpPerSec * x.Width.Seconds()
			r.LoadPerSec += x.LoadPerSec * x.Width.Seconds()
		}
		r.DumpPerSec /= r.Width.Seconds()
		r.LoadPerSec /= r.Width.Seconds()
		out = append(out, r)
	}
	return out
}

func rateText(r float64) string {
	if r <= 0 {
		return "—"
	}
	return units.FormatIEC(int64(r)) + "/s"
}

func bytesOrDash(n int64) string {
	if n <= 0 {
		return "—"
	}
	return units.FormatIEC(n)
}

func countOrDash(n int64) string {
	if n < 0 {
		return "—"
	}
	return units.Thousands(n)
}

func stampOf(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format("2006-01-02 15:04:05 MST")
}

var mdEscaper = strings.NewReplacer("|", `\|`, "\n", " ", "*", `\*`, "_", `\_`, "<", "&lt;", ">", "&gt;")

func mdEsc(s string) string { return mdEscaper.Replace(s) }

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
