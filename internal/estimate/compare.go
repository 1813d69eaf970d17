package estimate

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/oedl/oedl/internal/units"
)

// Candidate is one strategy's estimate in a comparison.
type Candidate struct {
	Strategy Strategy `json:"strategy"`
	Window   Seconds  `json:"window_s"`
	DumpLoad Seconds  `json:"dump_load_s"`
	Idxbuild Seconds  `json:"idxbuild_s"`
	Overlap  float64  `json:"overlap_efficiency"`
}

// Comparison ranks strategies, fastest first, and says why the first wins.
type Comparison struct {
	Candidates []Candidate `json:"candidates"`
	Why        string      `json:"why"`
	// Hardware is the machine every candidate was simulated on, as the
	// estimate prints it: a comparison read without it promises nothing.
	Hardware string `json:"hardware"`
}

// comparisonIntro and comparisonLegend say what a comparison's rows and
// columns are, on the screen and on the page: it is read by whoever
// promises the window, who cannot guess ε or what "window" spans
// (nu-trial8).
const (
	comparisonIntro  = "Outage window by strategy on %s, fastest first (each strategy is one simulation with the model's mean costs; the plain estimate gives the P50/P90 range)"
	comparisonLegend = "window: the whole outage, from the source stopped to the target verified; " +
		"dump+load: from the first dump to the last load; idxbuild: the index rebuild after the loads; " +
		"ε: how far the loads overlap the dumps (0: each load waits for the last dump, 1: every load runs beside a dump)"
)

// Strategies are the alternatives `oedl estimate --compare` weighs against
// base: staged instead of overlapped, half and twice the job counts, and
// indexes built during the load instead of one idxbuild at the end, and
// the small tables loaded in batches or each alone, the loads with -i or
// crash-safe, and the target served tuned for loading or bare (biload.go).
func Strategies(base Strategy) []Strategy {
	named := func(name string, s Strategy) Strategy { s.Name = name; return s }
	staged := base
	staged.Staged = !base.Staged
	fewer, more := base, base
	fewer.DumpJobs, fewer.LoadJobs = max(1, base.DumpJobs/2), max(1, base.LoadJobs/2)
	more.DumpJobs, more.LoadJobs = base.DumpJobs*2, base.LoadJobs*2
	onLoad := base
	onLoad.BuildIndexes = !base.BuildIndexes
	batches := base
	batches.BatchLoads = !base.BatchLoads
	integrity, tuning := base, base
	integrity.NoIntegrity = !base.NoIntegrity
	tuning.UntunedTarget = !base.UntunedTarget
	name := map[bool]string{true: "staged", false: "overlapped"}
	idx := map[bool]string{true: "build indexes on load", false: "idxbuild all"}
	out := []Strategy{
		named("as planned", base),
		named(name[staged.Staged], staged),
		named(fmt.Sprintf("%d dump / %d load jobs", fewer.DumpJobs, fewer.LoadJobs), fewer),
		named(fmt.Sprintf("%d dump / %d load jobs", more.DumpJobs, more.LoadJobs), more),
		named(idx[onLoad.BuildIndexes], onLoad),
		named(map[bool]string{true: "small tables loaded in batches", false: "every table loaded alone"}[batches.BatchLoads], batches),
		named(map[bool]string{true: "loads without crash protection (-i)", false: "crash-safe loads"}[integrity.NoIntegrity], integrity),
		named(map[bool]string{true: "target served bare (default BI, no BIW/APW)", false: "target tuned for loading (BI cluster, BIW, APW)"}[tuning.UntunedTarget], tuning),
	}
	if !base.Prepared {
		// oedl prepare: the same run, its target made before the window.
		prepared := base
		prepared.Prepared = true
		out = append(out, named("target prepared before (oedl prepare)", prepared))
	}
	return out
}

// Compare estimates every strategy on the same plan and hardware.
func Compare(ctx context.Context, in Input, strategies []Strategy) (*Comparison, error) {
	c := &Comparison{Hardware: in.Hardware.String()}
	for _, s := range strategies {
		x := in
		x.Strategy, x.Samples = s, 0
		est, err := Run(ctx, x)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Name, err)
		}
		c.Candidates = append(c.Candidates, Candidate{Strategy: s, Window: est.Window,
			DumpLoad: est.dumpLoadSpan(), Idxbuild: est.phase("idxbuild").Duration, Overlap: est.Overlap.Efficiency})
	}
	base := c.Candidates[0]
	sort.SliceStable(c.Candidates, func(a, b int) bool { return c.Candidates[a].Window < c.Candidates[b].Window })
	c.Why = why(c.Candidates[0], base, in.Hardware)
	return c, nil
}

// why explains the winner against the plan's own strategy by the phase
// that moved most.
func why(best, base Candidate, hw Hardware) string {
	if best.Strategy.Name == base.Strategy.Name {
		return fmt.Sprintf("%s is already the fastest of these on %s", base.Strategy.Name, hw)
	}
	if units.FormatDuration((base.Window - best.Window).D()) == "0s" {
		// A gain the table prints as nothing is a tie, not a verdict.
		return fmt.Sprintf("%s is as fast as any of these on %s (the fastest, %s, is less than 0.1s shorter)",
			base.Strategy.Name, hw, best.Strategy.Name)
	}
	dl, ix := base.DumpLoad-best.DumpLoad, base.Idxbuild-best.Idxbuild
	var reasons []string
	if dl > 0 {
		reasons = append(reasons, fmt.Sprintf("its dump+load span is %s shorter", units.FormatDuration(dl.D())))
	}
	if ix > 0 {
		reasons = append(reasons, fmt.Sprintf("its index rebuild is %s shorter", units.FormatDuration(ix.D())))
	}
	if dl < 0 {
		reasons = append(reasons, fmt.Sprintf("which outweighs a dump+load span %s longer", units.FormatDuration((-dl).D())))
	}
	if ix < 0 {
		reasons = append(reasons, fmt.Sprintf("which outweighs an index build %s longer", units.FormatDuration((-ix).D())))
	}
	out := fmt.Sprintf("%s saves %s over %s: %s", best.Strategy.Name, units.FormatDuration((base.Window - best.Window).D()),
		base.Strategy.Name, strings.Join(reasons, ", "))
	if saved := float64(base.Window-best.Window) / float64(base.Window); saved < closeCall {
		out += fmt.Sprintf("; that is %.0f%% of the window, within the estimate's accuracy: rehearse both before choosing", saved*100)
	}
	if best.Strategy.NoIntegrity && !base.Strategy.NoIntegrity {
		// Speed is not the whole of that choice (docs/run.md, "A no-integrity run").
		out += "; -i gives up crash protection: a load that fails makes the run create the target again and reload every table"
	}
	return out
}

// closeCall is the share of the window under which a strategy's gain is
// not told apart from the model's error: against real runs on oesim the
// window was off by 1–11% (docs/benchmarks/estimate.md), and a strategy
// the calibration measured less directly (build indexes on load) was off
// by 14%.
const closeCall = 0.10

// WriteComparison prints the candidates and the verdict.
func WriteComparison(w io.Writer, c *Comparison) error {
	if _, err := fmt.Fprintf(w, comparisonIntro+":\n\n", c.Hardware); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "strategy\tdump+load\tε\tidxbuild\twindow")
	for _, x := range c.Candidates {
		fmt.Fprintf(tw, "%s\t%s\t%.2f\t%s\t%s\n", x.Strategy.Name, units.FormatDuration(x.DumpLoad.D()), x.Overlap,
			units.FormatDuration(x.Idxbuild.D()), units.FormatDuration(x.Window.D()))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%s.\n\n%s.\n", comparisonLegend, c.Why)
	return err
}
