// Package openedge is the OpenEdge vocabulary of oedl: the files and the
// console output of the real utilities, read and written, with no I/O policy.
//
//   - analysis.go, analysis_*.go: tabanalys / dbanalys reports and the
//     -csoutput .tab.txt / .ix.txt files (parse and write; oesim prints with
//     the writer so that oedl parses exactly what it would read from OpenEdge).
//   - structure*.go: .st structure description files (parse, validate, write).
//   - df*.go: .df data definition files (parse, round-trip byte for byte,
//     rewrite AREA / index AREA / LOB-AREA, recompute the PSC trailer).
//   - messages*.go: "(NNNN)" message numbers, success markers and counts in
//     utility output. oedl keys on message numbers and structure, never on
//     prose: the wording drifts between releases and is the language of
//     the message file (PROMSGS: Portuguese on a Brazilian install), while
//     the numbers do not. A count is the first whole number of its
//     message; idxbuild's error count, which has no number, is the first
//     whole number of the line right after (11465); the indexes a load
//     left inactive are the one-word lines after its count (15167).
//     docs/formats-analysis.md, "Utility output", says why.
//   - dblog.go: a database log's (DB.lg) lines in both real layouts (the
//     10.1A+ stamp with zone and process id, the older time of day with
//     none), read by the killed run's check in internal/run.
//   - tools*.go: argv builders for proutil / prostrct / procopy / _progres.
//
// The layouts seen in public material are reproduced in the top-level
// testdata/ and read by realworld_test.go (testdata/README.md).
//
// Every parser takes the name of its input so that errors can say
// "file:line: what is wrong"; none of them returns a partial result as if it
// were whole. The layouts follow ../shared/reference/openedge-formats.md.
package openedge
