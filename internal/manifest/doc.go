// Package manifest proves, before anything is written, that a run creates
// no file over one that exists: it lists every file a new database will
// have (the control area, its log and lock, every extent prostrct create
// derives from the .st: db.b1, db.d1, db_N.dM, db.aN, db.tN, or a file
// named in the .st), resolves each one as the kernel will (relative paths
// from the directory prostrct runs in, symbolic links, ".."), and says,
// for every one that already exists, what it is: a file of the source, of
// another database, of an earlier oedl target, or just a file.
//
// Why a package of its own: the same proof is asked by `oedl run`'s
// preflight, by `--dry-run`, by `--force` (which may replace only the
// files a record of an earlier run proves it made) and by `oedl plan`
// (which may already see extents planned onto the source's directory with
// the source's name). None of them should have a variant of its own. It
// reads the filesystem only through FS (Lstat, Readlink, ReadDir), so
// that it is a function of the filesystem's state: the property test
// builds random trees of directories, databases and symbolic links and
// checks, against oesim's prostrct, that nothing it accepts is created
// over an existing file, and the fuzz target checks Resolve against
// filepath.EvalSymlinks.
//
// Rules (docs/run.md, "What oedl will never touch"):
//
//   - Every path is compared after resolution, and every existing file by
//     device and inode, never as a string: a symbolic link or a hard link
//     to the source is the source.
//   - A path whose meaning depends on the resolver (".." after a symbolic
//     link: the kernel goes up from the link's target, a lexical clean from
//     the link) is refused as ambiguous: oesim cleans paths, the real
//     prostrct hands them to the kernel, and the proof must hold for both.
//   - Two files of the new database on one file is an error in the .st.
//   - A file that exists may be replaced only when the target's record
//     (DB.oedl.json, written by the run that created the database) names
//     it with the same device and inode, and it is not the source's.
package manifest
