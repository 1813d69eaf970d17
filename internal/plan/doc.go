// Package plan decides the layout of the target database of a dump/load:
// which storage area every table, index and LOB goes to, with what records
// per block (RPB) and blocks per cluster (BPC), how big the extents are and
// where they live, and the startup and idxbuild parameters of the new
// database. Every decision carries its reason, because a DBA has to sign
// the layout off and a plan that does not explain itself is not reviewable.
//
// Make is pure: facts (a tabanalys or dbanalys report, optionally the .df)
// and options in, a Plan out, deterministic so that golden files and diffs
// of plans are meaningful. WriteDir renders the plan directory all or
// nothing: target.st, target.df, tablemove.sh, placement.md, target.pf and
// plan.json, which `oedl run` and `oedl estimate` read back.
//
// # Decisions and why
//
// Records per block: RPB = (B − H) / (mean + 2), rounded up to a power of
// two within 1..256, with H = 100 bytes of block overhead (the documented
// Type II header is 64 B, 80 B in a cluster's first and last block, and
// records never pack a block exactly; performance-model §3.1). Rounding up
// wastes nothing since 64-bit rowids (10.1B); rounding down would leave part
// of every block empty. Empty tables get OpenEdge's default RPB.
//
// Size classes: a Type II cluster belongs to one object, so small objects
// in big clusters waste space (KB P81745: 500 tiny tables in a BPC 512 area
// take about 4 GB). Hence small tables (< 100 MB by default) share data
// areas by RPB class with BPC 8, medium tables (up to the large threshold,
// 1 GB by default) share areas by RPB class with BPC 64, and large tables
// (and, with --top N, the N largest) get their own area with BPC 512, which
// makes their scans sequential and lets their load and idxbuild run beside
// the rest. Empty tables join the small pool. Each data area has its own
// index area (RPB 1, as seed 003's structure does: index blocks hold no
// records; BPC 8 for small pools, 64 otherwise, 512 for a large table whose
// indexes alone pass the large threshold). LOB columns go to one LOB area, because tabanalys does not
// report LOB sizes. Nothing is placed in the Schema Area (KB P106007);
// metaschema and SQL catalog tables are not placed at all: every empty
// database already has them. Areas are numbered from 7.
//
// Area names are the class and RPB for pools ("Small64_Data") and the
// table's name for own areas ("order_line_Data"), cut down to
// [A-Za-z0-9_] so they never need quoting, at most 32 characters, and
// unique regardless of case (OpenEdge compares area names that way).
//
// Extents: fixed extents hold the known data plus the headroom, at most
// --max-extent each and all the same size, then one variable extent for
// growth (seed 000 §5.6: fixed extents are formatted once). Each fixed
// extent goes to the data directory holding the fewest fixed bytes so far,
// the variable ones to each directory in turn (seed 000 §6.5).
// Extent sizes count whole blocks (records / RPB or bytes / (B − H),
// whichever is more) and whole clusters per object, not just bytes. Index
// areas get fixed extents only when the report has an index summary
// (dbanalys, or -csoutput with its .ix.txt); with tabanalys alone their
// size is unknown. The BI's fixed extent holds the whole 16M clusters the
// load's notes fill (about the bytes of its records), at most 16 of them
// (tuneBI); a small load gets a variable BI extent only. placement.md ends with the fixed-extent space per
// directory, which prostrct create takes before the first record loads.
//
// Parameters: idxbuild threads keep threadnum x mergethreads within
// 2 x cores, preferring few sort groups with more merge threads (seed 003),
// and -TF is checked against memory with the formula of KB 000037016
// (tuning.go). target.pf follows seed 000 (-B, BI cluster and block size,
// page writers) and Progress' parameter pages: -spin at most the 10,000 x
// CPUs they call effective, -bibufs, -aibufs, -lruskips and -napmax at
// least the 12.2 defaults, so an older target gets them too and a newer
// one never less (dba-review). What depends on the application (-n, -L,
// the servers) is listed in target.pf as left to the source's .pf.
package plan
