// Package journal is the crash-safe record of a run: WORK/journal.jsonl, one
// JSON object per line, one line per job state change (started, done,
// failed, repair), appended and fsynced before the effect it describes is
// claimed anywhere else (before a dependent job starts, before a progress
// line says "done").
//
// Why JSON lines and not a database: the file must be readable by a DBA with
// `less` at 3 a.m., by `oedl status` while the run is still writing it, and
// after `kill -9` at any instant. Appending one line and fsyncing it is the
// smallest atomic step a POSIX filesystem offers us: after a crash the file
// is every complete line plus, at worst, one torn last line. Read tolerates
// exactly that torn last line and nothing else; a damaged line in the middle
// means the file was edited or the disk lied, and resuming on top of it
// could load a table twice, so it is an error naming the line. A full disk
// cuts a write short without a crash: Append cuts the journal back to its
// last whole line before it returns the error (Writer.cutBack), so that the
// run's next record, written once space is freed, is a line of its own.
//
// A record carries what proves its outcome: a dump lists its .bd files with
// their sizes and the record count from (13932); a load names its file, the
// success marker (6256) and the records loaded. Replay folds the records into
// per-job state, and a job counts as done on resume only when its outputs
// still prove it (State.Proven): a dump whose files are gone or have another
// size is dumped again.
//
// Processes: a "running" record names each utility process a job starts
// (PID, start time, boot), right after it starts. A resume after kill -9
// stops those still alive before it repairs anything; `oedl status` names
// them. It is not a change of the job's state.
//
// Areas: a load that started and never ended (kill -9), or that failed, left
// records behind in its target area. Replay marks the area dirty; only a
// completed repair (truncate area) clears it, and the repair also undoes every
// load done into that area before it, so those tables are loaded again. That
// is how "no table loaded twice, nothing lost" holds across any crash.
package journal
