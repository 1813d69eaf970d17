// Package eta is the live ETA of `oedl run`: the estimate re-run, every
// few seconds, over the work the run has left.
//
// A Tracker folds the run's event stream into what the forecast needs (the
// jobs done, the ones running with their progress, the sections threaded
// dumps have added, the time every finished job took) and, on its own
// goroutine, hands that to estimate.Live.Forecast: the same graph and
// queue as `oedl estimate` on the simulated clock, the jobs done skipped,
// the model's start-up and work costs corrected by the run's evidence
// (internal/estimate/evidence.go). The result goes out as an `eta` event,
// which the screen, the plain printer and --json show as they show any
// event, and is written to WORK/eta.json, which `oedl status` reads: one
// state, computed once, so the screen and status cannot disagree.
//
// Design decisions:
//
//   - Computed by the run, not by each viewer. The run has the plan, the
//     model and every event (status has only the journal, without the
//     progress of running jobs), so the figure status shows is the one the
//     screen shows, counted down from the same finish time.
//   - Its CPU is bounded: 1% of one core by default (Budget), half for the
//     forecasts, half for their ranges. The next forecast waits at least
//     MinInterval (2 s) and 200 times the CPU the last took; the range
//     (P50-P90: Samples more simulations with the factors and the jobs
//     drawn from their spread, centred on the forecast) 200 times its
//     own, its P90 against the forecast carried to the forecasts between. A 335-table plan (18 ms a forecast, 0.14 s
//     with its range: estimate.BenchmarkForecast) forecasts every 4 s and
//     ranges every 27 s; a 10,000-table one (0.44 s, 3.7 s) every 1.5 and
//     12 minutes. oedl's own CPU during a run has a target of 5% (docs/
//     benchmarks.md), which a larger share would eat. The first forecast
//     goes out when the first job starts (the queue has told every job it
//     skipped by then); between two, viewers count down.
//   - Seeded by the forecast's number, so the same state gives the same
//     range.
package eta
