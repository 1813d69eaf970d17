// Package verify proves that a dump/load lost nothing: it compares the
// record counts of two tabanalys reports (the source before, the target
// after) table by table.
//
// Besides the per-table verdict it renders each side as the list DBAs have
// always compared by hand: one "owner.table records" line per table, sorted,
// and its SHA-256. The lists are written next to verify.json
// (before.counts.txt / after.counts.txt), so `sha256sum *.counts.txt` prints
// the very checksums in the report: two equal checksums are read off at a
// glance, and nobody has to trust oedl's own comparison.
//
// Only application tables are compared. Meta-schema tables (names starting
// with "_", e.g. PUB._Area) and the SQL catalog (owner SYSPROGRESS) describe
// the database itself and legitimately differ between a source and a target
// with a new storage layout; they are counted as ignored, not hidden.
package verify
