// Package tui shows a run while it happens: the live terminal screen
// (bubbletea), the plain line printer for logs and pipes, the JSON event
// stream for scripts, and `oedl status`. All of them are consumers of
// [event.Event]; workers never print.
//
// The picture is one pure fold, [State]: every view — the TUI, the plain
// summary line, `oedl status` replaying the journal, the --json snapshot —
// renders a State, so they cannot disagree about what "done" or the ETA
// means.
//
// Design decisions:
//   - Time comes from the events (and Advance), never from time.Now inside
//     the fold: replaying a journal gives the same picture, and tests are
//     deterministic.
//   - Progress is measured in bytes of table data (the plan knows every
//     table's size; tabanalys gives it), because records per second differ
//     twentyfold between narrow and wide tables, and bytes are what the
//     disks move.
//   - The ETA is shown only with evidence (some elapsed time and a few
//     percent done), from the recent throughput rather than the average
//     since the start (the start is dominated by small tables and setup),
//     and bounded below by the longest running job at its own rate: one
//     huge table that is still dumping holds the finish back no matter how
//     fast the rest goes. Its trend tells the manager whether the finish is
//     moving away or coming closer.
//   - The TUI never slows the run: Emit only appends to a queue (progress
//     events of the same job replace each other), and the screen folds the
//     queue and redraws at most ten times a second.
package tui
