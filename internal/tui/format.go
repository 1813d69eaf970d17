package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/units"
)

// formatDuration is a live clock: whole seconds, "42s", "3m05s", "1h02m".
func formatDuration(d time.Duration) string { return units.FormatClock(d) }

// cut shortens s to n display cells with an ellipsis.
func cut(s string, n int) string {
	if n <= 0 {
		return ""
	}
	return ansi.Truncate(s, n, "…")
}

// trendArrow is the trend as a glyph and a word.
func trendWord(t Trend) string {
	switch t {
	case TrendRising:
		return "↑ later"
	case TrendFalling:
		return "↓ sooner"
	case TrendSteady:
		return "→ steady"
	}
	return ""
}

// timeText is the ETA, or how the run ended, for a header line.
func timeText(s *State) string {
	switch {
	case s.Finished && s.Status == event.StatusInterrupted:
		return "cancelled after " + formatDuration(s.Elapsed())
	case s.Finished && s.Err != "":
		return "failed after " + formatDuration(s.Elapsed())
	case s.Finished:
		return "finished in " + formatDuration(s.Elapsed())
	}
	return etaText(s.ETA())
}

// etaText is the ETA as shown in a header line: "ETA 3m10s (P90 3m50s)
// at 01:14 → steady" (the run's range is centred on its ETA: P50 is the
// ETA, estimate.Live.Forecast), or "ETA 3m10s (P50–P90 2m55s–3m50s)" for
// the events of an older oedl, whose median was the samples' own.
func etaText(e ETA) string {
	if !e.Known {
		if e.Reason == "" {
			return "ETA —"
		}
		return "ETA — (" + e.Reason + ")"
	}
	if e.Overdue {
		// A job that reports nothing ran past its predicted duration: say
		// which, rather than promise a few seconds again and again.
		return "ETA unknown: " + overdueName(e.OverdueJob) + " is running longer than predicted"
	}
	s := "ETA " + formatDuration(e.Remaining)
	switch {
	case e.P90 > e.P50 && formatDuration(e.P50) == formatDuration(e.Remaining):
		s += " (P90 " + formatDuration(e.P90) + ")"
	case e.P90 > e.P50:
		s += " (P50–P90 " + formatDuration(e.P50) + "–" + formatDuration(e.P90) + ")"
	}
	if !e.Finish.IsZero() {
		s += " at " + e.Finish.Local().Format("15:04")
	}
	if w := trendWord(e.Trend); w != "" {
		s += " " + w
	}
	return s
}

// overdueName names the overdue job in words a DBA reads: the index
// rebuild by what it is, any other by its job ID (analyze-source,
// load-batch:Small32_Data:1).
func overdueName(id string) string {
	if id == "idxbuild" {
		return "the index rebuild"
	}
	return id
}

// beforeText is what the estimate said before the run, against where the
// run stands: "estimated 12m05s before the run; now 9m40s + ETA 3m10s".
func beforeText(s *State, e ETA) string {
	if e.Before <= 0 {
		return ""
	}
	t := "estimated " + formatDuration(e.Before) + " before the run"
	if e.Known && !e.Overdue {
		t += "; now " + formatDuration(s.Elapsed()+e.Remaining)
	}
	return t
}

// boundText says what the finish waits for, or "".
func boundText(e ETA) string {
	switch {
	case e.BoundBy != "":
		return "waiting on " + e.BoundBy
	case e.QueueBound:
		return "queue-bound"
	}
	return ""
}

// asciiBar draws a bar of width cells for f in [0,1].
func asciiBar(f float64, width int) string {
	if width < 1 {
		return ""
	}
	n := int(clamp01(f)*float64(width) + 0.5)
	return "[" + strings.Repeat("#", n) + strings.Repeat("-", width-n) + "]"
}

// progressDetail is "60/120 tables  620 MiB of 1.2 GiB"; for an index
// rebuild that reports nothing while it runs, how long it has run against
// what was expected.
func progressDetail(p Progress, s *State) string {
	if p.Kind == "idxbuild" && p.BytesDone == 0 && p.JobsDone == 0 {
		if e := s.ETA(); e.IdxbuildExpected > 0 {
			ran := s.Now.Sub(s.tally["idxbuild"].since)
			return fmt.Sprintf("running %s, expected about %s", formatDuration(ran), formatDuration(e.IdxbuildExpected))
		}
	}
	var parts []string
	switch {
	case p.Tables > 0:
		parts = append(parts, fmt.Sprintf("%d/%d tables", p.TablesDone, p.Tables))
	case p.Jobs > 0 && p.Bytes == 0:
		parts = append(parts, fmt.Sprintf("%d/%d jobs", p.JobsDone, p.Jobs))
	}
	if p.Bytes > 0 {
		parts = append(parts, units.FormatIEC(p.BytesDone)+" of "+units.FormatIEC(p.Bytes))
	}
	return strings.Join(parts, "  ")
}

// jobName is how a job is shown: its table, or its ID for whole-database
// steps.
func jobName(j Job) string {
	if j.Table != "" {
		return j.Table
	}
	return j.ID
}

// oneLine folds a multi-line message (errors.Join) into one line, for
// printers that promise one line per event.
func oneLine(s string) string {
	return strings.ReplaceAll(strings.TrimSpace(s), "\n", " ; ")
}

// percent is f in whole percent, rounded down: a bar shows 100 % only when
// the work is done, never at 99.6 %.
func percent(f float64) int { return int(clamp01(f) * 100) }

// doneAgainText is what a done job's line adds when it ran once more:
// recovered from its own failure, or done again after the stop (a resume)
// or after a repair (which undid it): a resume's run of a cancelled job is
// not a repair. Nothing when why is not known: a step every invocation
// runs (preflight, serve), or a job of a killed run; its start line has
// the attempt. The attempt is e's, the history j's.
func doneAgainText(j Job, attempt int) string {
	switch {
	case j.Failures > 0:
		return fmt.Sprintf(" (recovered on attempt %d)", attempt)
	case j.Again == AgainStop:
		return fmt.Sprintf(" (attempt %d: done again after the stop)", attempt)
	case j.Again == AgainRepair:
		return fmt.Sprintf(" (attempt %d: done again after a repair)", attempt)
	}
	return ""
}
