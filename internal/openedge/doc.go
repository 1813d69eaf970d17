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
//     utility output. oedl keys on message numbers, never on prose, because
//     the wording drifts between releases while the numbers do not.
//   - tools*.go: argv builders for proutil / prostrct / procopy / _progres.
//
// Every parser takes the name of its input so that errors can say
// "file:line: what is wrong"; none of them returns a partial result as if it
// were whole. The layouts follow ../shared/reference/openedge-formats.md.
package openedge
