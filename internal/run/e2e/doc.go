// Package e2e holds the end-to-end tests of `oedl run` against oesim: the
// real oedl and oesim binaries, built by the tests, a generated database,
// a plan, and runs that are killed, faulted and resumed. Nothing here is
// faked: a record lost anywhere shows up as a count mismatch in the
// target's tabanalys, and a record loaded twice as a count too high.
//
// They take a while (hundreds of utility processes per run); `go test
// -short` skips them.
package e2e
