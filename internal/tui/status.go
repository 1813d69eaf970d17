package tui

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

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
	if snap.Finished {
		fmt.Fprintf(&b, "run %s\n", timeText(s)) // "run finished in 1h02m", "run failed after 12m"
	} else {
		fmt.Fprintf(&b, "phase %s   elapsed %s   %s\n", snap.Phase, formatDuration(snap.Elapsed), timeText(s))
	}
	if snap.Finished && snap.Err != "" {
		fmt.Fprintf(&b, "run failed: %s\n", oneLine(snap.Err))
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
	fmt.Fprintf(&b, "jobs: %d done, %d running, %d queued, %d failed, %d skipped\n", c.Done, c.Running, c.Queued, c.Failed, c.Skipped)
	if len(snap.Running) > 0 {
		b.WriteString("running:\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  KIND\tTABLE\tAREA\tELAPSED\tRECORDS\tBYTES\tRATE")
		for _, j := range snap.Running {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\n", j.Kind, cut(jobName(j), 32), cut(j.Area, 16),
				formatDuration(snap.Now.Sub(j.Started)), units.Thousands(j.Records), units.FormatIEC(j.Bytes), units.FormatRate(j.Rate))
		}
		tw.Flush()
	}
	if len(snap.Failures) > 0 {
		b.WriteString("last failures:\n")
		for _, f := range snap.Failures {
			fmt.Fprintf(&b, "  %s", f.Job)
			if f.Attempt > 0 {
				fmt.Fprintf(&b, " (attempt %d)", f.Attempt)
			}
			fmt.Fprintf(&b, ": %s\n", cut(oneLine(f.Err), width-6))
			if f.Log != "" {
				fmt.Fprintf(&b, "    log: %s\n", f.Log)
			}
		}
	}
	for _, m := range snap.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", cut(m, width-9))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
