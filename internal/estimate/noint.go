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
// repair (509)(510), and the run starts again as --resume would
// (internal/run/noint.go): the target created again, every table loaded
// again from the dumps the journal proves, and the failed load's tables
// dumped again first (their file may have been the cause; the dumps are
// kept, never consumed by a load, so no other table's is redone). That
// attempt is simulated on the same scheduler, with the jobs the resume
// skips done. The load priced is the one whose dumps take the longest
// alone (the largest table's, usually): of the failures at the end of the
// load phase, the one that costs most (a batch's waits for the longest
// dump of its tables). A load that fails earlier loses fewer loads done
// before it.

// IntegrityPrice is what -i gives and what a failed load then costs.
type IntegrityPrice struct {
	// CrashSafeWindow is the window with crash-safe loads; Faster what -i
	// saves on it (negative: -i is slower here). Zero when not priced (the
	// run's own line).
	CrashSafeWindow Seconds `json:"crash_safe_window_s,omitempty"`
	Faster          Seconds `json:"faster_s,omitempty"`
	// FailureCost is what a failed load adds to the window: the attempt
	// after it, from its start to the end of its loads, in which the
	// target is created again (Recreate), the failed load's tables
	// (Redumped) dumped again (Redump) and every table loaded again
	// (Reload, for Tables tables). The three overlap (a dump does not
	// wait for the target), and the preflight and the brokers' start are
	// in it too: FailureCost is no sum of them.
	FailureCost Seconds  `json:"failure_cost_s"`
	Recreate    Seconds  `json:"recreate_s"`
	Reload      Seconds  `json:"reload_s"`
	Tables      int      `json:"tables"`
	Redump      Seconds  `json:"redump_s"`
	Redumped    []string `json:"redumped_tables"`
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

// RebuildPrice simulates the attempt after a failed -i load of in.
func RebuildPrice(ctx context.Context, in Input) (IntegrityPrice, error) {
	rebuild := in
	// A prepared target is created again inside the window, as the
	// resume's create-target (docs/decisions.md): no kept copy.
	rebuild.Strategy.Prepared, rebuild.Samples = false, 0
	m := rebuild.model()
	built, ccFor, err := rebuild.build(m, rebuild.context())
	if err != nil {
		return IntegrityPrice{}, fmt.Errorf("the rebuild after a failed load: %w", err)
	}
	failed := costliestRedump(built)
	sim, err := rebuild.simulateFrom(ctx, m, nil, resumeAfterFailedLoad(built, failed, m, ccFor))
	if err != nil {
		return IntegrityPrice{}, fmt.Errorf("the rebuild after a failed load: %w", err)
	}
	p := IntegrityPrice{Redumped: failed}
	var loadStart, loadEnd, dumpStart, dumpEnd time.Time
	tables := map[string]bool{}
	for _, sp := range sim.result.Spans {
		switch name, side := phaseOf(sp.Job); {
		case sp.Job.Kind == schedule.KindCreateTarget:
			p.Recreate = Seconds(sp.End.Sub(sp.Start))
		case sp.Job.Kind == schedule.KindDump:
			dumpStart, dumpEnd = earliest(dumpStart, sp.Start), latest(dumpEnd, sp.End)
		case name == "load":
			if !side {
				loadStart = earliest(loadStart, sp.Start)
			}
			loadEnd = latest(loadEnd, sp.End)
		}
		switch sp.Job.Kind {
		case schedule.KindLoad:
			tables[sp.Job.Table] = true // a table's sections count once
		case schedule.KindLoadBatch:
			for _, mb := range sp.Job.Members {
				tables[mb.Table] = true
			}
		}
	}
	p.Tables = len(tables)
	p.Reload = Seconds(loadEnd.Sub(loadStart))
	p.Redump = Seconds(dumpEnd.Sub(dumpStart))
	p.FailureCost = Seconds(loadEnd.Sub(sim.result.Start))
	return p, nil
}

// costliestRedump is the tables of the load whose failure waits longest
// for its dumps again: one table, or a batch's members (the run dumps
// again every table of a failed batch, side by side), by the queue's cost
// of the longest of them.
func costliestRedump(built *schedule.Built) []string {
	batchOf := map[string]*schedule.Job{}
	for _, j := range built.Jobs() {
		if j.Kind == schedule.KindLoadBatch {
			for _, mb := range j.Members {
				batchOf[mb.Table] = j
			}
		}
	}
	cost := map[string]time.Duration{} // by the load: a table or a batch
	for _, j := range built.Jobs() {
		if j.Kind != schedule.KindDump {
			continue
		}
		key := j.Table
		if b := batchOf[j.Table]; b != nil {
			key = b.ID
		}
		cost[key] = max(cost[key], j.Cost)
	}
	var worst string
	for key, c := range cost {
		if worst == "" || c > cost[worst] || (c == cost[worst] && key < worst) {
			worst = key
		}
	}
	if b := built.Job(worst); b != nil && b.Kind == schedule.KindLoadBatch {
		var tables []string
		for _, mb := range b.Members {
			tables = append(tables, mb.Table)
		}
		return tables
	}
	return []string{worst}
}

// resumeAfterFailedLoad is what the resume after a failed -i load skips
// (internal/run/resume.go planResume, with the target created again): the
// source's analysis, its .df, sequences and security, and every dump (with
// its moves) but the failed load's tables'; the sections of the threaded
// dumps it keeps go into the graph up front, as the resume puts them.
func resumeAfterFailedLoad(built *schedule.Built, failed []string, m *Model, ccFor func(string) costContext) *leftGraph {
	again := map[string]bool{}
	for _, t := range failed {
		again[t] = true
	}
	lg := &leftGraph{done: map[string]bool{}, landed: map[string]map[int]bool{}}
	for _, j := range built.Jobs() {
		switch j.Kind {
		case schedule.KindAnalyzeSource, schedule.KindDumpDF, schedule.KindDumpSeq, schedule.KindDumpSecurity,
			schedule.KindAnalyzeReplica, schedule.KindProveReplica:
			lg.done[j.ID] = true
		case schedule.KindDump, schedule.KindMove:
			lg.done[j.ID] = !again[j.Table]
		}
		if j.Kind != schedule.KindDump || again[j.Table] || j.Threads <= 1 {
			continue
		}
		for k, share := range bracketShares(dumpThreads(j, ccFor(j.Host)), m.BracketSkew) {
			lg.done[schedule.MoveID(j.Table, k+1)] = true // its sections' copies too
			lg.sections = append(lg.sections, Section{Table: j.Table, Section: k + 1,
				Records: int64(float64(j.Records) * share), Bytes: int64(float64(j.Bytes) * share)})
		}
	}
	return lg
}

func earliest(a, b time.Time) time.Time {
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
}

func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// Line is the estimate's one line on -i, in the style of its header.
func (p *IntegrityPrice) Line() string {
	gain := fmt.Sprintf("%s faster than crash-safe loads", units.FormatDuration(p.Faster.D()))
	switch {
	case units.FormatDuration(p.Faster.D().Abs()) == "0s":
		// Not "0s slower": what the line would print is no difference.
		gain = "the same window as crash-safe loads here"
	case p.Faster < 0:
		gain = fmt.Sprintf("%s slower than crash-safe loads here", units.FormatDuration((-p.Faster).D()))
	}
	return fmt.Sprintf("without crash protection (-i), %s; %s; --no-integrity=false to load crash-safe", gain, p.failure())
}

func (p *IntegrityPrice) failure() string {
	redumped := fmt.Sprintf("%d tables of a batch", len(p.Redumped))
	if len(p.Redumped) == 1 {
		redumped = p.Redumped[0]
	}
	return fmt.Sprintf("a failed load costs about %s (the target created again %s, %s dumped again %s, %d tables loaded again %s)",
		units.FormatDuration(p.FailureCost.D()), units.FormatDuration(p.Recreate.D()), redumped, units.FormatDuration(p.Redump.D()),
		p.Tables, units.FormatDuration(p.Reload.D()))
}

// FailureLine is what a run loading with -i says at its start: the
// rebuild's price by the run's own estimate (RebuildPrice; nil: none, the
// rule alone). priors: the estimate's model is the built-in priors, which
// the line says as the report does: uncalibrated, a trial's price was 11 s
// where the failure it measured cost 39.5 s.
func FailureLine(p *IntegrityPrice, priors bool) string {
	line := "loads without crash protection (-i): a load that fails makes the run create the target again, dump that load's tables again and load every table again"
	if p != nil {
		line += ": " + p.failure() + " by the estimate"
		if priors {
			line += ", " + event.PriorsOnly
		}
	}
	return line + "; --no-integrity=false loads crash-safe"
}
