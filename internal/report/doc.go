// Package report turns what a run did into something a DBA and a manager
// read after the outage: report.md for the ticket and a self-contained
// report.html (inline CSS and SVG; no network, no script) for the browser.
//
// It also owns the one Gantt drawing of the project (GanttSVG). The run
// report draws the actual spans of a dispatch with it and `oedl estimate
// --html` draws the simulated ones, so a prediction and the run it predicted
// can be laid side by side and compared bar for bar.
//
// Design decisions:
//   - Everything is computed from inputs (Data), never from the wall clock or
//     the environment, so the same run gives byte-identical files and the
//     outputs are golden-tested.
//   - A chart beyond MaxGanttRows rows groups the small jobs per kind instead
//     of drawing thousands of hair-thin rows: the jobs that matter to the
//     finish (critical path, failures, the longest) keep their own row.
//   - The order is the reader's: the verdict in a sentence a manager can
//     forward (never a raw error string), the facts (outage across every
//     invocation, checksums, versions), the phases, the failures with how
//     each job ended, then the Gantt and the detail. The phases table is
//     built from column definitions (phaseColumns) shared by the Markdown
//     and HTML writers, so a column beside each actual duration (the
//     estimate made before the run) is one entry there.
//   - On a phone the tables and charts scroll sideways (a .scroll wrapper,
//     a minimum width for the wide tables) and numbers never wrap apart
//     from their units.
//   - The critical path shown is the one that happened (CriticalSpans: walk
//     back from the last job to end through the dependency that ended last),
//     which is the honest answer to "which table held the finish back".
package report
