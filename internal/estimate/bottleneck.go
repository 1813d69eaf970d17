package estimate

// The bottleneck line: a dump+load span held by the queue, and what
// shortens it. The critical path waiting for slots says the queue holds
// the span, not that more slots free it: on 2 cores seed003's dumps waited
// 9.5 s of 9.6 s for a dump slot while 8 and 16 dump jobs ran no faster
// than 4, the cores already full (nu-trial10). So the line says more jobs
// shorten it only when the estimate at more jobs (the what-if table's, the
// same scheduler) is shorter; else it names what binds, from the same
// what-if with more cores, more disk bandwidth or more IOPS.

import (
	"context"
	"fmt"
	"strings"

	"github.com/oedl/oedl/internal/schedule"
	"github.com/oedl/oedl/internal/units"
)

// shorterShare is how much shorter a what-if's dump+load span must be to
// count as shortening it: less is the model's rounding, not a change a
// DBA would make a plan for.
const shorterShare = 0.1

// jobsTry is one job count of the what-if the line tries, and its words.
type jobsTry struct {
	strategy Strategy
	label    string // "10 dump jobs"
}

// Advise sets est.Bottleneck, the line `oedl estimate` prints, for est made
// by Run from in. It is apart from Run because it estimates again (2 to 5
// what-ifs when the span is queue-bound), which only the printed estimate
// reads: the run's own estimate, the what-if table's and --compare's
// candidates never print it.
func Advise(ctx context.Context, in Input, est *Estimate) error {
	line, err := bottleneck(ctx, &in, est)
	est.Bottleneck = line
	return err
}

// bottleneck is the line for a queue-bound dump+load span ("" when the
// critical path spent less than half the span waiting for slots).
func bottleneck(ctx context.Context, in *Input, est *Estimate) (string, error) {
	span := est.dumpLoadSpan()
	dump, load := slotWaits(est.CriticalPath)
	if span <= 0 || float64(dump+load) < 0.5*float64(span) {
		return "", nil
	}
	st := in.Strategy
	if dump > load {
		head := fmt.Sprintf("the dump+load span is queue-bound: its critical path waits %s of its %s for a dump slot (%d dumps, %d at a time)",
			units.FormatDuration(dump.D()), units.FormatDuration(span.D()), est.phase("dump").Jobs, st.DumpJobs)
		var tries []jobsTry
		for _, n := range []int{2 * st.DumpJobs, 4 * st.DumpJobs} {
			s := st
			s.DumpJobs = n
			tries = append(tries, jobsTry{s, fmt.Sprintf("%d dump jobs", n)})
		}
		flags := fmt.Sprintf("--dump-jobs %d,%d,%d", st.DumpJobs, st.DumpJobs*2, st.DumpJobs*4)
		return advise(ctx, in, span, head, "more dump jobs", tries, flags)
	}
	area, perArea, looser := "", "0,-1", -1 // the cap in force, the per-area values to try, a looser cap
	switch {
	case st.LoadsPerArea > 0:
		area, perArea, looser = fmt.Sprintf(", at most %d per area", st.LoadsPerArea), fmt.Sprintf("%d,%d", st.LoadsPerArea, st.LoadsPerArea*2), st.LoadsPerArea*2
	case st.LoadsPerArea == 0:
		area = ", at most 1 per Type I area"
	}
	head := fmt.Sprintf("the dump+load span is queue-bound: its critical path waits %s of its %s for a load slot or its area (%d loads, %d at a time%s)",
		units.FormatDuration(load.D()), units.FormatDuration(span.D()), est.phase("load").Jobs, st.LoadJobs, area)
	var tries []jobsTry
	for _, n := range []int{2 * st.LoadJobs, 4 * st.LoadJobs} {
		s := st
		s.LoadJobs = n
		tries = append(tries, jobsTry{s, fmt.Sprintf("%d load jobs", n)})
	}
	if st.LoadsPerArea >= 0 {
		s := st
		s.LoadJobs, s.LoadsPerArea = 4*st.LoadJobs, looser
		label := fmt.Sprintf("%d load jobs and %d per area", s.LoadJobs, looser)
		if looser < 0 {
			label = fmt.Sprintf("%d load jobs and no cap per area", s.LoadJobs)
		}
		tries = append(tries, jobsTry{s, label})
	}
	flags := fmt.Sprintf("--load-jobs %d,%d,%d --loads-per-area %s", st.LoadJobs, st.LoadJobs*2, st.LoadJobs*4, perArea)
	return advise(ctx, in, span, head, "more load jobs, or more loads per area,", tries, flags)
}

// slotWaits sums what the critical path's jobs waited for a dump slot and
// for a load slot (or a load's area).
func slotWaits(path []PathStep) (dump, load Seconds) {
	for _, s := range path {
		switch schedule.Kind(s.Kind) {
		case schedule.KindDump, schedule.KindAnalyzeSource, schedule.KindDumpDF, schedule.KindDumpSeq, schedule.KindDumpSecurity: // the dump slots' jobs
			dump += s.Waited
		case schedule.KindLoad, schedule.KindLoadBatch, schedule.KindLoadSeq, schedule.KindLoadSecurity:
			load += s.Waited
		}
	}
	return dump, load
}

// advise estimates the tries; when the best is shorter by shorterShare it
// says the jobs shorten the span, else it tries the machine at the last
// (largest) try, slots out of the way, with twice the cores, the disk
// bandwidth and the IOPS, and names those that shorten it.
func advise(ctx context.Context, in *Input, span Seconds, head, more string, tries []jobsTry, flags string) (string, error) {
	var best, at Seconds // the shortest try's span, the last one's
	var bestLabel string
	var got []string
	for i, t := range tries {
		s, err := whatIfSpan(ctx, in, in.Hardware, t.strategy)
		if err != nil {
			return "", err
		}
		got = append(got, fmt.Sprintf("%s %s", t.label, units.FormatDuration(s.D())))
		if i == 0 || s < best {
			best, bestLabel = s, t.label
		}
		at = s
	}
	if shorter(best, span) {
		return fmt.Sprintf("%s; %s shorten it: %s at %s: oedl estimate %s gives the table",
			head, more, units.FormatDuration(best.D()), bestLabel, flags), nil
	}
	last := tries[len(tries)-1]
	var binds []string
	for _, m := range machineTries(in.Hardware) {
		s, err := whatIfSpan(ctx, in, m.hw, last.strategy)
		if err != nil {
			continue // a what-if the volume's class refuses (a ceiling past its maximum) tells nothing
		}
		if shorter(s, at) {
			binds = append(binds, fmt.Sprintf("%s (%s: %s)", m.binds, m.label, units.FormatDuration(s.D())))
			flags += " " + m.flag
		}
	}
	none := strings.TrimSuffix(more, ",")
	if len(binds) == 0 {
		return fmt.Sprintf("%s; %s do not shorten it (%s), nor do twice the cores or the disk at %s: oedl estimate %s gives the table",
			head, none, strings.Join(got, ", "), last.label, flags), nil
	}
	return fmt.Sprintf("%s; %s do not shorten it (%s): %s: oedl estimate %s gives the table",
		head, none, strings.Join(got, ", "), strings.Join(binds, ", "), flags), nil
}

// shorter reports whether s is shorter than base by shorterShare at least.
func shorter(s, base Seconds) bool {
	return float64(s) <= (1-shorterShare)*float64(base)
}

// machineTry is the machine with one resource doubled.
type machineTry struct {
	hw    Hardware
	binds string // "the cores bind"
	label string // "4 cores"
	flag  string // the what-if flag that shows it
}

// machineTries are hw with twice its cores, twice its disk bandwidth,
// twice its IOPS (the ceilings in effect; none doubled when hw has none).
func machineTries(hw Hardware) []machineTry {
	cores := hw
	cores.Cores = 2 * hw.Cores
	out := []machineTry{{cores, "the cores bind", fmt.Sprintf("%d cores", cores.Cores), fmt.Sprintf("--cores %d,%d", hw.Cores, cores.Cores)}}
	iops, mbps, _, _ := hw.Ceilings()
	if mbps > 0 {
		d := hw
		d.DiskMBps = 2 * mbps
		out = append(out, machineTry{d, "the disk's bandwidth binds", rate(d.DiskMBps), fmt.Sprintf("--disk-mbps %.0f,%.0f", mbps, d.DiskMBps)})
	}
	if iops > 0 {
		d := hw
		d.DiskIOPS = 2 * iops
		out = append(out, machineTry{d, "the disk's IOPS bind", fmt.Sprintf("%.0f IOPS", d.DiskIOPS), fmt.Sprintf("--iops %.0f,%.0f", iops, d.DiskIOPS)})
	}
	return out
}

// whatIfSpan is the dump+load span of in on hw with s, as the what-if
// table estimates it.
func whatIfSpan(ctx context.Context, in *Input, hw Hardware, s Strategy) (Seconds, error) {
	c := *in
	c.Hardware, c.Strategy, c.Samples = hw, s, 0
	est, err := Run(ctx, c)
	if err != nil {
		return 0, err
	}
	return est.dumpLoadSpan(), nil
}
