package estimate

import (
	"context"
	"fmt"
	"io"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/schedule"
	"github.com/oedl/oedl/internal/units"
)

// DryRunInput is what `oedl run --dry-run` knows: the estimate's input
// (plan, hardware, model, the run's strategy) and how the run turns a job
// into utility calls (run.Commands), passed as a function so that this
// package does not depend on the run.
type DryRunInput struct {
	Input
	Commands func(*schedule.Job) [][]string
}

// DryRun prints the rehearsal a DBA reads before the night: the estimated
// window and phases, then every job in the order the queue would start it
// (the simulated dispatch's start order, including the loads of .bd
// sections that threaded dumps add), each with its predicted start and
// duration and the argv of the utilities it would run. Nothing runs and
// nothing on disk changes.
func DryRun(w io.Writer, in DryRunInput) error {
	if in.Commands == nil {
		return fmt.Errorf("dry run: no command builder")
	}
	in.Samples = 0
	if err := in.validate(); err != nil {
		return err
	}
	m := in.model()
	sim, err := in.simulate(context.Background(), m, nil)
	if err != nil {
		return err
	}
	est := summarise(&in.Input, m, sim)
	ew := &errWriter{w: w}
	ew.printf("# oedl run --dry-run: nothing is run and nothing on disk changes.\n")
	ew.printf("# Estimated outage window %s on %s\n", units.FormatDuration(est.Window.D()), est.Hardware)
	ew.printf("# strategy: %s\n", est.Strategy.Describe())
	if err := PriceIntegrity(context.Background(), in.Input, est); err != nil {
		return err
	}
	if est.Integrity != nil {
		ew.printf("# loads:    %s\n", est.Integrity.Line())
	}
	phases := map[string]Phase{}
	for _, p := range est.Phases {
		phases[p.Name] = p
		ew.printf("#   %-15s %9s → %9s  %9s\n", p.Name, units.FormatDuration(p.Start.D()), units.FormatDuration(p.End.D()), units.FormatDuration(p.Duration.D()))
	}
	spans := make(map[string]schedule.Span, len(sim.result.Spans))
	for _, s := range sim.result.Spans {
		spans[s.Job.ID] = s
	}
	// Phases overlap (loads start while dumps run), so the start order
	// moves back and forth between them: a heading at every change, the
	// estimate only the first time.
	seen := map[string]bool{}
	prev := ""
	for _, j := range sim.starts {
		ph, _ := phaseOf(j)
		switch {
		case ph == prev:
		case seen[ph]:
			ew.printf("\n## %s (continued)\n", ph)
		default:
			p := phases[ph]
			ew.printf("\n## %s: estimated %s, from %s to %s\n", ph, units.FormatDuration(p.Duration.D()), units.FormatDuration(p.Start.D()), units.FormatDuration(p.End.D()))
		}
		seen[ph], prev = true, ph
		sp := spans[j.ID]
		start := sp.Start.Sub(sim.result.Start)
		ew.printf("# [%s +%s] %s\n", units.FormatDuration(start), units.FormatDuration(sp.End.Sub(sp.Start)), j.ID)
		for _, argv := range in.Commands(j) {
			ew.printf("%s\n", execx.Quote(argv))
		}
	}
	return ew.err
}
