package estimate

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
)

// Grid lists hardware values to try; every combination is estimated.
// An empty list keeps the base hardware's value.
type Grid struct {
	Cores    []int
	DiskMBps []float64
	DiskIOPS []float64
	Memory   []int64
}

// Size is the number of combinations.
func (g Grid) Size() int {
	n := 1
	for _, l := range []int{len(g.Cores), len(g.DiskMBps), len(g.DiskIOPS), len(g.Memory)} {
		n *= max(1, l)
	}
	return n
}

// Hardware expands the grid around base, in a fixed order (cores, then
// MB/s, then IOPS, then memory).
func (g Grid) Hardware(base Hardware) []Hardware {
	out := []Hardware{base}
	expand := func(n int, set func(h *Hardware, i int)) {
		if n == 0 {
			return
		}
		var next []Hardware
		for _, h := range out {
			for i := range n {
				c := h
				set(&c, i)
				next = append(next, c)
			}
		}
		out = next
	}
	expand(len(g.Cores), func(h *Hardware, i int) { h.Cores = g.Cores[i] })
	expand(len(g.DiskMBps), func(h *Hardware, i int) { h.DiskMBps = g.DiskMBps[i] })
	expand(len(g.DiskIOPS), func(h *Hardware, i int) { h.DiskIOPS = g.DiskIOPS[i] })
	expand(len(g.Memory), func(h *Hardware, i int) { h.MemoryBytes = g.Memory[i] })
	return out
}

// WhatIfRow is the estimate on one machine of the grid.
type WhatIfRow struct {
	Hardware Hardware `json:"hardware"`
	Strategy Strategy `json:"strategy"`
	Window   Seconds  `json:"window_s"`
	DumpLoad Seconds  `json:"dump_load_s"`
	Idxbuild Seconds  `json:"idxbuild_s"`
}

// WhatIf estimates the plan on every machine of the grid. strategyFor
// gives the strategy for a machine (the run's defaults scale with the
// cores unless the user fixed them).
func WhatIf(ctx context.Context, in Input, g Grid, strategyFor func(Hardware) Strategy) ([]WhatIfRow, error) {
	var rows []WhatIfRow
	for _, hw := range g.Hardware(in.Hardware) {
		c := in
		c.Hardware, c.Strategy, c.Samples = hw, strategyFor(hw), 0
		est, err := Run(ctx, c)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", hw, err)
		}
		rows = append(rows, WhatIfRow{Hardware: hw, Strategy: c.Strategy, Window: est.Window,
			DumpLoad: est.dumpLoadSpan(), Idxbuild: est.phase("idxbuild").Duration})
	}
	return rows, nil
}

// WriteWhatIf prints the rows as a table.
func WriteWhatIf(w io.Writer, rows []WhatIfRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "cores\tdisk MB/s\tIOPS\tmemory\tdump+load\tidxbuild\twindow\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%d\t%.0f\t%.0f\t%s\t%s\t%s\t%s\t\n", r.Hardware.Cores, r.Hardware.DiskMBps, r.Hardware.DiskIOPS,
			formatBytes(r.Hardware.MemoryBytes), formatDuration(r.DumpLoad.D()), formatDuration(r.Idxbuild.D()), formatDuration(r.Window.D()))
	}
	return tw.Flush()
}

// phase returns the named phase, zero when the run had none.
func (e *Estimate) phase(name string) Phase {
	for _, p := range e.Phases {
		if p.Name == name {
			return p
		}
	}
	return Phase{Name: name}
}

// dumpLoadSpan is from the first dump starting to the last load ending.
func (e *Estimate) dumpLoadSpan() Seconds {
	d, l := e.phase("dump"), e.phase("load")
	return max(d.End, l.End) - d.Start
}
