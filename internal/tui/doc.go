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
//   - The ETA is shown only with evidence (20 s and 2 % of the bytes) and
//     adds up the work left the way a run does it: dumps and loads overlap,
//     each kind at its throughput per busy second (loads waiting for their
//     dumps must not look slow); that stage cannot end before the longest
//     remaining dump-then-load of one table (one huge table holds the finish
//     back however fast the rest goes); the index rebuild comes last, from
//     the cost model when the run gives one (State.SetCost), else from the
//     throughput seen, counted down while it runs silently and reported as
//     overrunning rather than as "a few seconds" again and again. Its trend
//     compares with the prediction of 30 s before: the manager sees whether
//     the finish moves away or comes closer.
//   - The TUI never slows the run: Emit only appends to a queue (progress
//     events of the same job replace each other), and the screen folds the
//     queue and redraws at most ten times a second.
package tui
