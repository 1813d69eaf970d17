// Package store is oesim's database on disk: the files a real OpenEdge
// database has (DB.db, DB.b1, DB.d1, DB_N.dM, DB.lk, DB.lg), holding records
// that a load really wrote and a dump really reads.
//
// Layout (oesim's own formats; only the file names are OpenEdge's):
//
//   - DB.db is the control file: areas and their extents, block size,
//     codepage, the schema (tables with their number and schema CRC, fields,
//     indexes with their number and active flag), sequences and dates. It is
//     a hand-written varint encoding (fast to decode at every utility start), replaced
//     atomically (temp file + rename) under an flock on the first BI extent
//     (DB.b1 or where the .st put it: Paths.SchemaLock), which plays the
//     part of the BI file serialising schema changes.
//   - An area's extents (DB.d1 for the Schema Area, DB_N.d1..dM otherwise)
//     form one logical address space: fixed extents are filled up to their
//     size, then the next one; the variable extent, last, grows (a sparse
//     file, but the blocks it grows by are charged as formatted, through
//     DB.ChargeFormatting, as OpenEdge formats them). Block 0 of
//     the first extent is the area header (high-water mark). Above it the
//     area is a sequence of segments, each owned by one object (a table's
//     records or an index's sorted keys), starting on a block boundary and,
//     in a Type II area, spanning whole clusters: a cluster belongs to one
//     object, as in OpenEdge. Records are packed into blocks honouring the
//     area's records-per-block and the block size, so the accounted blocks,
//     clusters and extent sizes behave like the real ones (a tiny table in a
//     512-BPC area costs a 4 MB cluster).
//   - A segment is written first and the header's high-water mark moved
//     after it, under an flock on the area's first extent: a crash leaves the
//     segments already committed (the records a real crashed load leaves
//     behind) and never a torn one. Writers of different tables into one
//     area interleave segment by segment, so concurrent clients of a served
//     database are safe.
//   - A record is framed as u32 length | bytes | u32 CRC32C. Its bytes are
//     oesim's field encoding (record.go); the dump copies them verbatim into
//     the .bd and the load copies them back, as a binary dump/load does.
//   - DB.lk is the usage lock: "single|multi pid host" (lock.go).
package store
