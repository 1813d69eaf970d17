package tui

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/units"
)

// RenderStatus writes the picture as plain text, width columns wide (80
// when width <= 0): what `oedl status` prints. No colour, no cursor
// movement, so it can go to a file or a ticket.
func RenderStatus(w io.Writer, s *State, width int) error {
	if width <= 0 {
		width = 80
	}
	var b strings.Builder
	snap := s.Snapshot()
	switch {
	case snap.Finished && snap.Status == event.StatusInterrupted:
		fmt.Fprintf(&b, "run cancelled after %s: oedl run --resume continues\n", formatDuration(snap.Elapsed))
	case snap.Finished:
		fmt.Fprintf(&b, "run %s\n", timeText(s)) // "run finished in 1h02m", "run failed after 12m"
	default:
		fmt.Fprintf(&b, "phase %s   elapsed %s   %s\n", snap.Phase, formatDuration(snap.Elapsed), timeText(s))
		if t := strings.TrimSpace(boundText(snap.ETA) + "  " + beforeText(s, snap.ETA)); t != "" {
			fmt.Fprintf(&b, "%s\n", t)
		}
	}
	// A resume in place is not an invocation of the DBA's: said as what it
	// was, once (the strip marks the phase it happened in).
	if n := s.Invocation - s.inPlace; n > 1 || s.inPlace > 0 {
		fmt.Fprintf(&b, "outage %s since %s", formatDuration(s.Outage()), s.Since.Local().Format("2006-01-02 15:04"))
		if n > 1 {
			fmt.Fprintf(&b, ", over %s", plural(n, "invocation"))
		}
		if s.inPlace > 0 {
			fmt.Fprintf(&b, ", resumed in place %s", units.Times(s.inPlace))
		}
		b.WriteString("\n")
	}
	if snap.Finished && snap.Err != "" && snap.Status != event.StatusInterrupted {
		for _, l := range wrap("run failed: "+snap.Err, width, "  ", 4) {
			b.WriteString(l + "\n")
		}
	}
	if ps := s.Phases(); len(ps) > 0 {
		parts := make([]string, len(ps))
		for i, p := range ps {
			end := p.End
			if end.IsZero() {
				end = s.Now
			}
			parts[i] = p.Name + " " + units.FormatDuration(end.Sub(p.Start))
			if p.State == PhaseStopped || p.State == PhaseFailed {
				parts[i] += " (" + p.State + ")"
			}
			parts[i] += restartedText(p)
		}
		fmt.Fprintf(&b, "phases: %s\n", strings.Join(parts, " › "))
	}
	barW := max(10, min(40, width-52))
	line := func(name string, f float64, detail string) {
		fmt.Fprintf(&b, "%s\n", strings.TrimRight(fmt.Sprintf("%-9s %s %3d%%  %s", name, asciiBar(f, barW), percent(f), detail), " "))
	}
	line("overall", snap.Overall, "")
	for _, p := range snap.Progress {
		line(p.Kind, p.Fraction(), progressDetail(p, s))
	}
	c := snap.Counts
	fmt.Fprintf(&b, "jobs: %s done, %s running, %s queued, %d failed (%s), %s skipped", units.Thousands(int64(c.Done)),
		units.Thousands(int64(c.Running)), units.Thousands(int64(c.Queued)), c.Failed, plural(c.FailedTables, "table"), units.Thousands(int64(c.Skipped)))
	if c.Recovered > 0 {
		fmt.Fprintf(&b, ", %d recovered", c.Recovered)
	}
	if c.Cancelled > 0 {
		fmt.Fprintf(&b, ", %d stopped by the interrupt", c.Cancelled)
	}
	if c.Stalled > 0 {
		fmt.Fprintf(&b, ", %d stalled", c.Stalled)
	}
	b.WriteString("\n")
	for _, wt := range snap.Waiting {
		fmt.Fprintf(&b, "  %s\n", cut(wt.String(), width-2))
	}
	if len(snap.Running) > 0 {
		b.WriteString("running:\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  KIND\tTABLE\tAREA\tELAPSED\tRECORDS\tBYTES\tRATE")
		for _, j := range snap.Running {
			rate := units.FormatRate(j.Rate)
			if j.Stalled > 0 {
				rate = "stalled " + formatDuration(j.Stalled)
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\n", j.Kind, cut(jobName(j), 32), cut(j.Area, 16),
				formatDuration(snap.Now.Sub(j.Started)), units.Thousands(j.Records), units.FormatIEC(j.Bytes), rate)
		}
		tw.Flush()
	}
	if len(snap.Failures) > 0 {
		b.WriteString("last failures:\n")
		for _, f := range snap.Failures {
			head := "  " + f.Job
			if f.Attempt > 0 {
				head += fmt.Sprintf(" (attempt %d)", f.Attempt)
			}
			switch {
			case f.Recovered:
				head += fmt.Sprintf(", recovered on attempt %d", f.RecoveredOn)
			case f.Retrying:
				head += ", retried"
			}
			for _, l := range wrap(head+": "+f.Err, width, "      ", 3) {
				b.WriteString(l + "\n")
			}
			if f.Log != "" {
				b.WriteString(pathLine("    log: ", f.Log, width) + "\n")
			}
		}
	}
	for _, m := range snap.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", cut(m, width-9))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
