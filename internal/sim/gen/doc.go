// Package gen generates the databases oesim serves: a schema (.st and .df)
// and the rows of every table, for a profile ("erp" or "sports") scaled to
// a size in bytes and filled from a seed.
//
// What it is for. oedl is tested and demonstrated against databases that
// must look like the ones a DBA migrates: the erp profile is shaped after
// the 14 GB QAD database of the dump/load benchmark in
// shared/seeds/003-dump-load-benchmark.txt — several hundred tables, most of
// them tiny, four of them holding half the bytes (xxext_xref, gltmp_det,
// gltr_hist, glec_det), about 3.6 indexes per table, mean record sizes from
// tens of bytes to over a kilobyte, QAD names (xx_mstr, _det, _hist, _ctrl,
// _wkfl, custom xx tables, a name with a dash), a couple of LOB fields, and
// the "before" layout a DBA wants to fix: Type I areas (one block per
// cluster), a third of the tables and all the custom ones in the Schema
// Area, TRANSACTION / STATIC / HISTORY and their _IDX areas. The seed003
// profile is that database taken literally (seed003.go): 873 tables at any
// scale, the four big tables with the seed's record counts at 14 GiB,
// hundreds of tables of about a kilobyte whatever the scale, and the
// seed's 18 table and 18 index areas. The sports profile is sports2000
// grown to the requested size. The wide profile (wide.go) is an ERP of the
// table count real sites run, cut to 4,000 tiny tables: it measures oedl's
// own work per table (docs/benchmarks/scale.md).
//
// Design decisions.
//
//   - Shape and data are separate. The schema, the structure and the record
//     counts depend on (profile, scale) only; the values depend on the seed
//     as well. Two seeds give two databases a dump/load test can tell apart
//     and a tabanalys comparison still lines up.
//   - Rows stream. A Table's Rows is an iter.Seq that computes each row from
//     its position and a PCG stream seeded by (seed, table number); nothing
//     is kept, so a 200 MB database streams in constant memory and every call
//     restarts the same data. Free text is sliced out of one shared corpus,
//     and the character values of a row share one allocation, which keeps
//     generation at over 100 MB/s.
//   - Keys behave like real keys. Primary keys are unique and rise with the
//     row position except inside blocks of 64 rows, whose order is shuffled
//     (records created by concurrent sessions), so building the primary
//     index is a real sort. The first key part is spaced unevenly (segments
//     with steps from 1 to 40), so equal key ranges hold unequal numbers of
//     records and a threaded dump's brackets come out uneven, as they do on a
//     real database. Compound keys are header and line (details), part,
//     site and date (cross-references) or key and user (work files).
//     Secondary keys are skewed (a few parts and customers get most of the rows).
//   - Sizes are what oesim stores. The scale and MeanSize are in bytes of
//     oesim's record encoding (EncodedSize), which is what its tabanalys
//     reports; free-text fields absorb the difference between the fixed
//     fields and a per-record target drawn around the table's mean.
package gen
