// Package sim is the engine of oesim, the OpenEdge simulator: one
// multi-call program that behaves as proutil, _proutil, _dbutil, prostrct,
// procopy, prodb, proserve, _mprosrv, proshut, _mprshut, probiw, proapw
// and _progres (chosen by argv[0]) and that really stores the data, so that oedl is
// built and tested without OpenEdge and never knows the difference.
//
// Layout:
//
//   - main.go, proc.go: dispatch on argv[0], console helpers, the
//     OpenEdge-style command line parser; oesim.go: oesim's own install,
//     gen and version; install.go: the fake $DLC.
//   - session.go: opening a database under the locking rules (below).
//   - one file per utility or qualifier: prostrct.go, procopy.go,
//     progres.go, broker.go (proserve/proshut), dump.go, dumpspecified.go,
//     load.go, idxbuild.go, indexbuild.go (the sort shared by idxbuild,
//     load "build indexes", tablemove, procopy and gen), analysis.go
//     (tabanalys, dbanalys, ixanalys, describe), busy.go, truncate.go,
//     tablemove.go; gendb.go builds a generated database.
//   - env.go applies OESIM_FAULTS (package fault) and the shared virtual
//     disk (package vdisk) inside the utilities.
//   - store/: the database on disk (control file, extents, segments,
//     records, keys, DB.lk); bd/: the binary dump file.
//
// Decisions:
//
//   - Locking is what oedl's scheduler must respect, so it follows
//     OpenEdge: a single-user utility takes DB.lk (a second one fails with
//     (263)); a single-user-only utility (idxbuild, truncate bi/area,
//     prostrct add, procopy onto it) on a served database fails with (276);
//     proserve starts a detached broker (own session) that holds DB.lk in
//     multi-user mode until proshut; clients (dump, load, tabanalys,
//     _progres, tablemove) of a served database run concurrently,
//     coordinated by flocks on the area extents (allocation) and the first
//     BI extent (schema; store.Paths.SchemaLock). Liveness of DB.lk's holder is its flock, not its pid, so a
//     kill -9 is always detected; the next opener recovers and says so.
//   - A dump walks the stored dump index (its entries carry record ids) as
//     a real one does, so dump order, -index and threading are the index's;
//     only a table without a usable stored index is sorted instead.
//   - A threaded dump (-thread 1) needs a served database, as on the
//     releases where it is online-only; its brackets come from a model of
//     the dump index's root block (dump.go: brackets), deterministic and
//     uneven when the root has few entries.
//   - idxbuild really sorts: parallel scan, parallel sort of runs, runs
//     through a sort file in -T, parallel pairwise merges, a k-way merge
//     into the index; the indexes it rebuilds are inactive until it ends.
//   - Faults strike where they would in real life: crash-after kills the
//     process with SIGKILL after N records, leaving what was committed (a
//     load commits segment by segment, so a crashed load leaves records
//     behind and inactive indexes, the repair case oedl must handle).
//   - Messages keep OpenEdge's numbers where they are known
//     (../../../shared/reference/openedge-formats.md); texts oesim had to
//     invent end in "(oesim)" instead of a number, so nobody mistakes them
//     for real ones. Every one is in one catalog (package msg), in English
//     and Portuguese, printed from the message file PROMSGS names as
//     OpenEdge does (proc.msg); docs/oesim.md lists them. Report layouts
//     and the DB.lg lines stay English.
//   - _progres runs no ABL: it recognises four procedures by base name
//     (load_df.p, dump_df.p, dump_seqvals.p, load_seqvals.p).
package sim
