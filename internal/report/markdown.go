package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/oedl/oedl/internal/units"
)

// WriteMarkdown writes the report as Markdown: for the change ticket, a
// wiki page or a terminal. The Gantt chart is in the HTML report.
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
	fact := func(k, v string) {
		if v != "" {
			p("| %s | %s |\n", k, mdEsc(v))
		}
	}
	fact("Source", d.Source)
	fact("Target", d.Target)
	fact("Work directory", d.Work)
	fact("Started", stampOf(d.Started))
	fact("Ended", stampOf(d.Ended))
	fact("Elapsed", units.FormatDuration(d.Ended.Sub(d.Started)))
	if d.TotalBytes > 0 {
		fact("Data", fmt.Sprintf("%s, %s records in %d tables", units.FormatIEC(d.TotalBytes), units.Thousands(d.TotalRecords), len(d.Tables)))
	}

	if len(d.Phases) > 0 {
		p("\n## Timings per phase\n\n| Phase | Start | End | Duration | Jobs |\n|---|--:|--:|--:|--:|\n")
		for _, ph := range d.Phases {
			p("| %s | %s | %s | %s | %d |\n", ph.Name, units.FormatDuration(ph.Start), units.FormatDuration(ph.End), units.FormatDuration(ph.Duration()), ph.Jobs)
		}
	}
	if len(d.Kinds) > 0 {
		p("\n## Jobs by kind\n\n| Kind | Jobs | Failed | Busy (sum) | First start | Last end | Data |\n|---|--:|--:|--:|--:|--:|--:|\n")
		for _, k := range d.Kinds {
			p("| %s | %d | %d | %s | %s | %s | %s |\n", k.Kind, k.Jobs, k.Failed, units.FormatDuration(k.Busy),
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
	if len(d.Critical) > 0 {
		p("\n## Critical path\n\nThe chain of jobs that held the finish back: each waited for the one before it.\n\n")
		for i, s := range d.Critical {
			p("%d. %s: %s → %s (%s)\n", i+1, mdEsc(s.Label), units.FormatDuration(s.Start), units.FormatDuration(s.End), units.FormatDuration(s.End-s.Start))
		}
	}
	if rates := rebucket(d.Throughput, 12); len(rates) > 0 {
		p("\n## Throughput\n\n| From | To | Dump | Load |\n|--:|--:|--:|--:|\n")
		for _, r := range rates {
			p("| %s | %s | %s | %s |\n", units.FormatDuration(r.At), units.FormatDuration(r.At+r.Width), rateText(r.DumpPerSec), rateText(r.LoadPerSec))
		}
	}
	if len(d.Failures) > 0 {
		p("\n## Failures\n\n| Job | Attempt | At | Error | Log |\n|---|--:|--:|---|---|\n")
		for _, f := range d.Failures {
			p("| %s | %d | %s | %s | %s |\n", mdEsc(f.Job), f.Attempt, units.FormatDuration(f.At), mdEsc(firstLine(f.Err)), mdEsc(f.Log))
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
	p("\nThe Gantt chart of every job is in report.html.\n")
	_, err := io.WriteString(w, b.String())
	return err
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
