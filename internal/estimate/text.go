package estimate

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/oedl/oedl/internal/units"
)

// WriteText prints the estimate for a DBA: the window and its range, the
// phases, the critical path, the tables that dominate with advice, and the
// longest maxTables tables (0 = all).
func (e *Estimate) WriteText(w io.Writer, maxTables int) error {
	ew := &errWriter{w: w}
	ew.printf("Estimated outage window: %s", units.FormatDuration(e.Window.D()))
	if e.Range != nil {
		// The window is the range's P50 (monteCarlo), said once.
		ew.printf("  (the P50; P90 %s over %d samples)", units.FormatDuration(e.Range.P90.D()), e.Range.Samples)
	}
	if e.Preparation > 0 {
		ew.printf("\n  preparation: %s before the window (oedl prepare: create-target), not in it", units.FormatDuration(e.Preparation.D()))
	}
	ew.printf("\n  hardware: %s\n  strategy: %s\n  model:    %s\n", e.Hardware, e.Strategy.Describe(), e.ModelOrigin)
	if e.Integrity != nil {
		ew.printf("  loads:    %s\n", e.Integrity.Line())
	}
	ew.printf("\n")

	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "phase\tstarts\tends\tduration\tjobs\t")
	for _, p := range e.Phases {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t\n", p.Name, units.FormatDuration(p.Start.D()), units.FormatDuration(p.End.D()), units.FormatDuration(p.Duration.D()), p.Jobs)
	}
	tw.Flush()
	if e.Overlap.Duration > 0 {
		ew.printf("dump and load overlap for %s (overlap efficiency ε = %.2f)\n", units.FormatDuration(e.Overlap.Duration.D()), e.Overlap.Efficiency)
	}

	ew.printf("\nCritical path:\n")
	for _, s := range e.CriticalPath {
		wait := ""
		if s.Waited > 0 {
			wait = fmt.Sprintf("  (queued %s for a slot or its area)", units.FormatDuration(s.Waited.D()))
		}
		ew.printf("  %8s  %-40s %8s%s\n", units.FormatDuration(s.Start.D()), s.Job, units.FormatDuration((s.End - s.Start).D()), wait)
	}

	e.Hosts.write(ew)
	if e.Bottleneck != "" {
		ew.printf("\nBottleneck: %s\n", e.Bottleneck)
	}
	if len(e.Dominant) > 0 {
		ew.printf("\nTables that dominate:\n")
		for _, a := range e.Dominant {
			ew.printf("  %s %s\n", a.Table, a.Advice)
		}
	}
	for _, s := range e.Warnings {
		ew.printf("\nwarning: %s\n", s)
	}

	n := len(e.Tables)
	if maxTables > 0 && n > maxTables {
		n = maxTables
	}
	ew.printf("\nPer table (longest dump+load first")
	if n < len(e.Tables) {
		ew.printf("; %d of %d, all of them with --json or --tables 0", n, len(e.Tables))
	}
	ew.printf("):\n")
	tw = tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "table\tsize\trecords\tdump starts\tdump\tload ends\tload\tsections\t")
	for _, t := range e.Tables[:n] {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t\n", t.Table, units.FormatIEC(t.Bytes), units.Thousands(t.Records),
			units.FormatDuration(t.DumpStart.D()), units.FormatDuration(t.Dump.D()), units.FormatDuration(t.LoadEnd.D()), units.FormatDuration(t.Load.D()), t.Sections)
	}
	tw.Flush()
	if tables, calls := e.batched(); calls > 0 {
		ew.printf("%d small tables load in batches: %d proutil calls for them (a table's load is its share of its call)\n", tables, calls)
	}
	return ew.err
}

// batched counts the tables loaded in batches and the batches.
func (e *Estimate) batched() (tables, calls int) {
	seen := map[string]bool{}
	for _, t := range e.Tables {
		if t.Batch != "" {
			tables++
			seen[t.Batch] = true
		}
	}
	return tables, len(seen)
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) printf(format string, a ...any) { fmt.Fprintf(e, format, a...) }
