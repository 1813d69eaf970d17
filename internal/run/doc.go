// Package run executes a plan with real utilities: `oedl run`. It is the
// schedule.Executor for the wall clock, the journal's writer, the resume
// logic and the repair of areas a load left half-filled.
//
// The pipeline is schedule.Build's graph: preflight, brokers for the source
// and target when several utilities use them at once (OpenEdge refuses a
// second single-user utility with (263)), the source's tabanalys baseline,
// its .df and sequence values (dump_seqvals.p, real ABL shipped in abl/),
// the target created from the plan (prostrct create, procopy emptyN,
// prodict/load_df.p), dumps and loads from one queue (a table's load starts
// when its dump exists; threaded dumps add a load per .bd section as each
// lands), the broker stopped, idxbuild with the plan's parameters,
// sequences restored, the target's tabanalys, verify, post steps.
//
// Design decisions:
//
//   - Nothing is created over a file oedl cannot prove it made
//     (internal/manifest): the preflight lists every file the target will
//     have as prostrct will name and resolve it, and refuses any that
//     exists unless the target's record (DB.oedl.json) proves an earlier
//     oedl run made it and --force (or this run's own resume) allows it;
//     the source's files, learned with prostrct list, are never replaced.
//     create-target proves the same again the moment before it writes.
//     The plan directory, the source's schema and the work directory are
//     checked before anything runs as well (paths.go, preflight_plan.go).
//   - The journal is written before the dispatcher hears of anything: Start
//     appends "started" (fsynced) before the utility runs, and a job's
//     "done" with its proof is fsynced before its outcome reaches the
//     dispatcher, so no dependent job starts on an effect the journal does
//     not hold. kill -9 at any instant leaves a journal that tells the
//     truth or errs on the side of "not done".
//   - A job is skipped on --resume only when its outputs prove it
//     (journal.Replayed.Proven: a dump's .bd files with their sizes), and
//     everything a re-run invalidates is re-run with it: a load re-run
//     means idxbuild and the target's tabanalys run again; a target that
//     was never fully created is created again from nothing.
//   - A load cannot be retried: it may have put part of its records in.
//     The area is repaired instead (truncate area, offline, then every
//     table placed in it loaded again, the failed one from a fresh dump,
//     since the file may have been the problem). Repairs are jobs in the
//     graph, journalled and shown like any other, and bounded per area.
//     A failed or unfinished load found on --resume repairs its area
//     before any load goes in.
//     In a --no-integrity run (noint.go) no area is truncated: a target
//     that died under -i cannot be opened (509), so the run creates it
//     again and loads every table again, journalled as a rebuild-target
//     decision.
//   - The settings that shape the graph (concurrency, threaded dumps) come
//     from the journal on --resume, so that a table dumped in sections is
//     never loaded again as a whole.
//   - Every call is argv (execx), with DLC in its environment, its output
//     and timing appended to WORK/logs/<job>.log; a failure carries the
//     utility's own last message and that log's path. Success is the exit
//     status and the success marker (openedge.CheckSuccess), never the
//     absence of an error text.
//   - Ctrl-C cancels the context: execx kills each utility's process group,
//     the jobs journal "failed", the brokers oedl started are shut down, and
//     the CLI exits 130 pointing at --resume. A resume after kill -9 shuts
//     down the killed run's brokers and stops its orphaned utilities (the
//     journal's running records, OEDL_RUN_WORK) before it repairs anything.
//   - The work directory is locked for the whole run (a POSIX lock, which
//     is the process's: no child inherits it): two oedl resuming the same
//     run at once would load tables twice.
//   - Progress (event.JobProgress) is measured, not guessed, and only while
//     a job runs: every 250 ms a dump's .bd files are sized and a load's
//     read offset in its .bd is taken from /proc/PID/fdinfo of the
//     utility oedl started (Linux; elsewhere a load reports no bytes);
//     records come from the lines the utilities print (a threaded dump's
//     per-thread counts, (17816)). An event goes out when a figure moved,
//     or every second when none did, so the screen's rate falls for a
//     stalled job. A measure is a few system calls: oedl's own CPU stays
//     negligible next to the utilities'.
//   - OEDL_TEST_CRASH_AT=N makes oedl SIGKILL itself right after its Nth
//     journal record: the end-to-end tests kill the run at many points.
//     It kills outside the executor's lock and sleeps until the signal
//     lands (never select {}, which Go may end as a deadlock, exit 2).
package run
