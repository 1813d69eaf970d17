// Package schedule is the job graph of a dump/load and the queue policy that
// orders it. It is shared by `oedl run`, which executes jobs with real
// utilities on the wall clock, and `oedl estimate`, which executes the very
// same graph with a cost model on a simulated clock: a scheduling change
// shows up in both, and the estimate is only as good as its agreement with
// real runs.
//
// The dispatcher (Dispatch) knows nothing about OpenEdge utilities. It keeps
// the rules that decide *when* a job may start:
//
//   - dependencies (a load after its dump and after the target exists);
//   - slots per resource class (dump slots, load slots);
//   - at most one load at a time into a Type I storage area (AreaLoadCaps;
//     --loads-per-area overrides it), none into an area with a repair due;
//   - exclusive jobs (idxbuild) run alone on the target: the source's
//     last jobs (its tabanalys, .df, shutdown) go on beside them;
//   - among ready jobs, the one with the longest predicted path to the end
//     of the graph goes first (largest-first is the degenerate case), so the
//     one huge table does not start last and hold the finish back.
//
// Jobs can be added while the graph runs (a threaded dump reports each .bd
// section as it lands and its load is queued at once; a repair re-queues the
// loads of an area).
package schedule
