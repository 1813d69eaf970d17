package estimate

import (
	"context"
	"fmt"
	"time"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/schedule"
	"github.com/oedl/oedl/internal/units"
)

// The price of loading without crash protection (-i, oedl run's default:
// docs/decisions.md "Loading without crash protection"), said before the
// outage. A load that fails under -i leaves a target Progress cannot
// repair (509)(510): the resume creates the target again and loads every
// table again from the dumps already made. That is priced as its own
// simulation of the same plan: the target created alone (as oedl prepare
// creates it, and a prepared target is rebuilt so too: docs/decisions.md),
// then every load with every dump done (a staged run's load phase: no load
// waits for a dump). It is what the rebuild takes, not a bound on what a
// failure costs: the loads done before the failure are lost besides, and
// the failed load's tables are dumped again (beside the creation).

// IntegrityPrice is what -i gives and what a failed load then costs.
type IntegrityPrice struct {
	// CrashSafeWindow is the window with crash-safe loads; Faster what -i
	// saves on it (negative: -i is slower here). Zero when not priced (the
	// run's own line).
	CrashSafeWindow Seconds `json:"crash_safe_window_s,omitempty"`
	Faster          Seconds `json:"faster_s,omitempty"`
	// FailureCost is what a failed load adds to the window: the target
	// created again (Recreate) and every table loaded again (Reload, for
	// Tables tables).
	FailureCost Seconds `json:"failure_cost_s"`
	Recreate    Seconds `json:"recreate_s"`
	Reload      Seconds `json:"reload_s"`
	Tables      int     `json:"tables"`
}

// PriceIntegrity sets est.Integrity when in loads without crash
// protection: the same run simulated crash-safe (no samples), and the
// rebuild a failed load makes. est is Run(ctx, in)'s.
func PriceIntegrity(ctx context.Context, in Input, est *Estimate) error {
	if !in.Strategy.NoIntegrity {
		return nil
	}
	p, err := RebuildPrice(ctx, in)
	if err != nil {
		return err
	}
	safe := in
	safe.Strategy.NoIntegrity, safe.Samples = false, 0
	sim, err := safe.simulate(ctx, safe.model(), nil)
	if err != nil {
		return fmt.Errorf("the crash-safe alternative: %w", err)
	}
	p.CrashSafeWindow = Seconds(sim.result.Elapsed())
	p.Faster = p.CrashSafeWindow - est.Window
	est.Integrity = &p
	return nil
}

// RebuildPrice simulates the rebuild after a failed -i load of in.
func RebuildPrice(ctx context.Context, in Input) (IntegrityPrice, error) {
	rebuild := in
	rebuild.Strategy.Staged, rebuild.Strategy.Prepared, rebuild.Samples = true, true, 0
	sim, err := rebuild.simulate(ctx, rebuild.model(), nil)
	if err != nil {
		return IntegrityPrice{}, fmt.Errorf("the rebuild after a failed load: %w", err)
	}
	p := IntegrityPrice{Recreate: Seconds(sim.preparation)}
	var first, last time.Time
	tables := map[string]bool{}
	for _, sp := range sim.result.Spans {
		name, side := phaseOf(sp.Job)
		if name != "load" {
			continue
		}
		if !side && (first.IsZero() || sp.Start.Before(first)) {
			first = sp.Start
		}
		if sp.End.After(last) {
			last = sp.End
		}
		switch sp.Job.Kind {
		case schedule.KindLoad:
			tables[sp.Job.Table] = true // a table's sections count once
		case schedule.KindLoadBatch:
			for _, m := range sp.Job.Members {
				tables[m.Table] = true
			}
		}
	}
	p.Tables = len(tables)
	p.Reload = Seconds(last.Sub(first))
	p.FailureCost = p.Recreate + p.Reload
	return p, nil
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
// rebuild's price by the run's own estimate (RebuildPrice; nil: none, the
// rule alone). priors: the estimate's model is the built-in priors, which
// the line says as the report does: uncalibrated, a trial's price was 11 s
// where the failure it measured cost 39.5 s.
func FailureLine(p *IntegrityPrice, priors bool) string {
	line := "loads without crash protection (-i): a load that fails makes the run create the target again and load every table again"
	if p != nil {
		line += ": " + p.failure() + " by the estimate"
		if priors {
			line += ", " + event.PriorsOnly
		}
	}
	return line + "; --no-integrity=false loads crash-safe"
}
