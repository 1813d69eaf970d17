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
//   - The ETA is not computed here: it is the run's own estimate re-run
//     over the work left (internal/eta: the scheduler's simulated clock
//     with the costs the run has measured), which arrives as eta events
//     every few seconds and is counted down in between. The fold keeps the
//     latest and the estimate before the run (run_started); `oedl status`
//     gets the same eta event from WORK/eta.json, so the screen and status
//     show the same figures at the same moment. Its trend compares the
//     predicted finish with the one of 30 s before: the manager sees
//     whether the finish moves away or comes closer; an index rebuild past
//     its predicted time is reported as overrunning rather than as "a few
//     seconds" again and again.
//   - Nothing asks the terminal anything it must wait for. bubbletea v1's
//     package init asked for the background colour (OSC 11, up to 5 s for
//     an answer) in every oedl command, --version included, so under a pty
//     that never answers (script, expect, some CI consoles and ssh setups)
//     each one stood still for 5 s. On bubbletea v2 nothing runs at package
//     init; the colours are fixed ANSI ones that read on dark and light
//     backgrounds alike, so the background colour is never asked for; the
//     colour profile comes from the environment (TERM, COLORTERM, NO_COLOR)
//     and Out, not from a query. With a keyboard, bubbletea's start-up
//     capability requests (synchronized output, keyboard protocol) wait
//     for nothing; without one (stdin not a terminal) input is off, and with
//     it every request.
//   - The TUI never slows the run: Emit only appends to a queue (progress
//     events of the same job replace each other), and the screen folds the
//     queue and redraws at most ten times a second.
package tui
