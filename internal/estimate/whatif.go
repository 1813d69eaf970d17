package estimate

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/oedl/oedl/internal/units"
)

// Grid lists hardware values and job counts to try; every combination is
// estimated. An empty list keeps the base value.
type Grid struct {
	Cores    []int
	DiskMBps []float64
	DiskIOPS []float64
	Memory   []int64
	// Volumes and VolumeGiB try other kinds and sizes of volume; a class
	// switched to keeps the base disk's effective IOPS and MB/s where it
	// needs them (io1 needs its IOPS, a local disk both).
	Volumes   []string
	VolumeGiB []float64
	// Job counts, as oedl run's flags: 0 = the run's default for the
	// machine; LoadsPerArea 0 = by area type, negative = no cap.
	DumpJobs     []int
	LoadJobs     []int
	LoadsPerArea []int
}

// Jobs are the job counts of one point of the grid (0 = the default).
type Jobs struct {
	DumpJobs, LoadJobs, LoadsPerArea int
}

// Point is one combination of the grid.
type Point struct {
	Hardware Hardware
	Jobs     Jobs
}

// Size is the number of combinations.
func (g Grid) Size() int {
	n := 1
	for _, l := range []int{len(g.Cores), len(g.DiskMBps), len(g.DiskIOPS), len(g.Memory), len(g.Volumes), len(g.VolumeGiB),
		len(g.DumpJobs), len(g.LoadJobs), len(g.LoadsPerArea)} {
		n *= max(1, l)
	}
	return n
}

// Points expands the grid around base, in a fixed order (cores, MB/s,
// IOPS, memory, volume class and size, then dump jobs, load jobs, loads
// per area).
func (g Grid) Points(base Hardware) []Point {
	out := []Point{{Hardware: base}}
	expand := func(n int, set func(p *Point, i int)) {
		if n == 0 {
			return
		}
		var next []Point
		for _, p := range out {
			for i := range n {
				c := p
				set(&c, i)
				next = append(next, c)
			}
		}
		out = next
	}
	expand(len(g.Cores), func(p *Point, i int) { p.Hardware.Cores = g.Cores[i] })
	expand(len(g.DiskMBps), func(p *Point, i int) { p.Hardware.DiskMBps = g.DiskMBps[i] })
	expand(len(g.DiskIOPS), func(p *Point, i int) { p.Hardware.DiskIOPS = g.DiskIOPS[i] })
	expand(len(g.Memory), func(p *Point, i int) { p.Hardware.MemoryBytes = g.Memory[i] })
	expand(len(g.Volumes), func(p *Point, i int) { p.Hardware = switchVolume(p.Hardware, g.Volumes[i]) })
	expand(len(g.VolumeGiB), func(p *Point, i int) { p.Hardware.VolumeGiB = g.VolumeGiB[i] })
	for i := range out {
		// A gp2's IOPS and size are one figure: the one the grid varies wins.
		if h := &out[i].Hardware; h.Volume == VolumeGP2 {
			switch {
			case len(g.DiskIOPS) > 0 && len(g.VolumeGiB) == 0:
				h.VolumeGiB = 0
			case len(g.VolumeGiB) > 0 && len(g.DiskIOPS) == 0:
				h.DiskIOPS = 0
			}
		}
	}
	expand(len(g.DumpJobs), func(p *Point, i int) { p.Jobs.DumpJobs = g.DumpJobs[i] })
	expand(len(g.LoadJobs), func(p *Point, i int) { p.Jobs.LoadJobs = g.LoadJobs[i] })
	expand(len(g.LoadsPerArea), func(p *Point, i int) { p.Jobs.LoadsPerArea = g.LoadsPerArea[i] })
	return out
}

// switchVolume is h on a volume of another class, with the figures the
// class needs and cannot derive taken from h's effective disk.
func switchVolume(h Hardware, volume string) Hardware {
	if volume == h.Volume {
		return h
	}
	iops, mbps, baseIOPS, _ := h.Ceilings()
	h.Volume = volume
	switch volume {
	case VolumeIO1, VolumeIO2:
		if h.DiskIOPS == 0 {
			h.DiskIOPS = baseIOPS
		}
	case VolumeLocalNVMe, VolumeLocalSSD, VolumeHDD, "":
		if h.DiskIOPS == 0 {
			h.DiskIOPS = iops
		}
		if h.DiskMBps == 0 {
			h.DiskMBps = mbps
		}
	}
	return h
}

// WhatIfRow is the estimate at one point of the grid.
type WhatIfRow struct {
	Hardware Hardware `json:"hardware"`
	// Disk is the hardware's disk in effect: its ceilings by its class's
	// rules, with and without burst credits.
	Disk     DiskFigures `json:"disk"`
	Strategy Strategy    `json:"strategy"`
	Window   Seconds     `json:"window_s"`
	DumpLoad Seconds     `json:"dump_load_s"`
	Idxbuild Seconds     `json:"idxbuild_s"`
}

// WhatIf estimates the plan at every point of the grid. strategyFor gives
// the strategy for a machine and job counts (the run's defaults scale with
// the cores unless the user fixed them).
func WhatIf(ctx context.Context, in Input, g Grid, strategyFor func(Hardware, Jobs) Strategy) ([]WhatIfRow, error) {
	var rows []WhatIfRow
	for _, pt := range g.Points(in.Hardware) {
		c := in
		c.Hardware, c.Strategy, c.Samples = pt.Hardware, strategyFor(pt.Hardware, pt.Jobs), 0
		est, err := Run(ctx, c)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", pt.Hardware, err)
		}
		rows = append(rows, WhatIfRow{Hardware: pt.Hardware, Disk: pt.Hardware.Figures(), Strategy: c.Strategy, Window: est.Window,
			DumpLoad: est.dumpLoadSpan(), Idxbuild: est.phase("idxbuild").Duration})
	}
	return rows, nil
}

// WriteWhatIf prints the rows as a table.
func WriteWhatIf(w io.Writer, rows []WhatIfRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "cores\tvolume\tdisk\tIOPS\tmemory\tdump jobs\tload jobs\tloads/area\tdump+load\tidxbuild\twindow\t")
	for _, r := range rows {
		c := r.whatIfCells()
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\t\n", r.Hardware.Cores, c.Volume, c.MBps, c.IOPS,
			units.FormatIEC(r.Hardware.MemoryBytes), r.Strategy.DumpJobs, r.Strategy.LoadJobs, c.PerArea,
			units.FormatDuration(r.DumpLoad.D()), units.FormatDuration(r.Idxbuild.D()), units.FormatDuration(r.Window.D()))
	}
	return tw.Flush()
}

// whatIfCells are the cells of a row that need words: the volume, the
// ceilings (a bursting one as "baseline↑burst"), the per-area cap.
type whatIfCells struct{ Volume, MBps, IOPS, PerArea string }

func (r WhatIfRow) whatIfCells() whatIfCells {
	c := whatIfCells{Volume: r.Hardware.Volume, PerArea: "any"}
	if c.Volume == "" {
		c.Volume = "generic"
	}
	if r.Hardware.Volume == VolumeGP2 || r.Hardware.Volume == VolumeST1 || r.Hardware.Volume == VolumeSC1 {
		c.Volume += fmt.Sprintf(" %.0f GiB", r.Hardware.VolumeGiB)
		if r.Hardware.VolumeGiB == 0 {
			c.Volume = r.Hardware.Volume
		}
	}
	d := r.Disk
	c.MBps, c.IOPS = rate(d.MBps), fmt.Sprintf("%.0f", d.IOPS)
	if d.MBps > d.BaseMBps {
		c.MBps = rate(d.BaseMBps) + "↑" + rate(d.MBps)
	}
	switch {
	case d.IOPS <= 0:
		c.IOPS = "no ceiling" // as Hardware.String says it
	case d.IOPS > d.BaseIOPS:
		c.IOPS = fmt.Sprintf("%.0f↑%.0f", d.BaseIOPS, d.IOPS)
	}
	switch {
	case r.Strategy.LoadsPerArea > 0:
		c.PerArea = strconv.Itoa(r.Strategy.LoadsPerArea)
	case r.Strategy.LoadsPerArea == 0:
		c.PerArea = "1 in Type I"
	}
	return c
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
