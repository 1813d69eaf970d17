package estimate

import (
	"context"
	"fmt"

	"github.com/oedl/oedl/internal/schedule"
	"github.com/oedl/oedl/internal/units"
)

// The price of loading without crash protection (-i, oedl run's default:
// docs/decisions.md "Loading without crash protection"), said before the
// outage. A load that fails under -i leaves a target Progress cannot
// repair (509)(510): the run creates the target again and loads every
// table again from its dumps. What that costs is this estimate's own
// figures: create-target's time (a prepared target's too: the rebuild
// creates it inside the window, since a copy kept by oedl prepare would
// cost more than creating it, docs/decisions.md) and the load phase.

// IntegrityPrice is what -i gives and what a failed load then costs.
type IntegrityPrice struct {
	// CrashSafeWindow is the window with crash-safe loads; Faster what -i
	// saves on it (negative: -i is slower here).
	CrashSafeWindow Seconds `json:"crash_safe_window_s"`
	Faster          Seconds `json:"faster_s"`
	// FailureCost is what a failed load adds to the window: the target
	// created again (Recreate) and every table loaded again (Reload, the
	// load phase, for Tables tables).
	FailureCost Seconds `json:"failure_cost_s"`
	Recreate    Seconds `json:"recreate_s"`
	Reload      Seconds `json:"reload_s"`
	Tables      int     `json:"tables"`
}

// PriceIntegrity sets est.Integrity when in loads without crash
// protection: the same run simulated crash-safe (no samples) and the
// failure's cost from est. est is Run(ctx, in)'s.
func PriceIntegrity(ctx context.Context, in Input, est *Estimate) error {
	if !in.Strategy.NoIntegrity {
		return nil
	}
	safe := in
	safe.Strategy.NoIntegrity, safe.Samples = false, 0
	sim, err := safe.simulate(ctx, safe.model(), nil)
	if err != nil {
		return fmt.Errorf("the crash-safe alternative: %w", err)
	}
	p := failurePrice(est)
	p.CrashSafeWindow = Seconds(sim.result.Elapsed())
	p.Faster = p.CrashSafeWindow - est.Window
	est.Integrity = &p
	return nil
}

// failurePrice is what a failed -i load adds to est's window.
func failurePrice(est *Estimate) IntegrityPrice {
	p := IntegrityPrice{Recreate: est.Preparation, Reload: est.phase("load").Duration}
	if est.sim != nil {
		for _, sp := range est.sim.result.Spans {
			if sp.Job.Kind == schedule.KindCreateTarget {
				p.Recreate = Seconds(sp.End.Sub(sp.Start))
			}
		}
	}
	for _, t := range est.Tables {
		if t.Sections > 0 {
			p.Tables++
		}
	}
	p.FailureCost = p.Recreate + p.Reload
	return p
}

// Line is the estimate's one line on -i, in the style of its header.
func (p *IntegrityPrice) Line() string {
	gain := fmt.Sprintf("%s faster than crash-safe loads", units.FormatDuration(p.Faster.D()))
	if p.Faster <= 0 {
		gain = fmt.Sprintf("%s slower than crash-safe loads here", units.FormatDuration((-p.Faster).D()))
	}
	return fmt.Sprintf("without crash protection (-i), %s; %s; --no-integrity=false to load crash-safe", gain, p.failure())
}

func (p *IntegrityPrice) failure() string {
	return fmt.Sprintf("a failed load costs about %s (the target created again %s, %d tables loaded again %s)",
		units.FormatDuration(p.FailureCost.D()), units.FormatDuration(p.Recreate.D()), p.Tables, units.FormatDuration(p.Reload.D()))
}

// FailureLine is what a run loading with -i says at its start: the
// failure's price by the run's own estimate (nil: none, the rule alone).
func FailureLine(est *Estimate) string {
	line := "loads without crash protection (-i): a load that fails makes the run create the target again and load every table again"
	if est != nil {
		p := failurePrice(est)
		line += ": " + p.failure() + " by the estimate"
	}
	return line + "; --no-integrity=false loads crash-safe"
}
