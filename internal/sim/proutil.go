package sim

import (
	"slices"
	"strings"
)

// proutil qualifiers and their implementations.
var qualifiers = map[string]func(p *proc, db string, args []string) int{
	"dump":          dumpQualifier,
	"dumpspecified": dumpSpecifiedQualifier,
	"load":          loadQualifier,
	"idxbuild":      idxbuildQualifier,
	"tabanalys":     analysisQualifier("tabanalys"),
	"dbanalys":      analysisQualifier("dbanalys"),
	"ixanalys":      analysisQualifier("ixanalys"),
	"idxanalys":     analysisQualifier("ixanalys"),
	"describe":      describeQualifier,
	"busy":          busyQualifier,
	"holder":        holderQualifier,
	"truncate":      truncateQualifier,
	"tablemove":     tablemoveQualifier,
	"convchar":      convcharQualifier,
}

// runProutil: proutil DB [parameters] -C qualifier args... Parameters may
// come before -C, as real scripts write them ("proutil db -i -C load
// f.bd -T /tmp"): they join the qualifier's arguments.
func runProutil(p *proc) int {
	c := slices.Index(p.args, "-C")
	if len(p.args) < 3 || c < 1 || c+1 >= len(p.args) {
		return p.usage("usage: proutil db-name [parameters] -C qualifier [arguments]")
	}
	db, q := p.args[0], strings.ToLower(p.args[c+1])
	rest := append(slices.Clone(p.args[1:c]), p.args[c+2:]...)
	fn, ok := qualifiers[q]
	if !ok {
		return p.usage("qualifier %q is not simulated by oesim", q)
	}
	if _, ok := p.dlc(); !ok {
		return exitFail
	}
	if !tableFaults[q] {
		if rc := applyEarlyFault(p, p.env.fault(p, q, "")); rc >= 0 {
			return rc
		}
	}
	return fn(p, db, rest)
}

// tableFaults are the qualifiers that apply fault rules themselves, per
// table and at the record where they strike; the others get the rules
// that strike at start (exit, hang, delay) here.
var tableFaults = map[string]bool{"dump": true, "dumpspecified": true, "load": true, "idxbuild": true}

// runDbutil: _dbutil is the program behind prostrct, procopy and proutil:
// "_dbutil prostrct ...", "_dbutil procopy ...", "_dbutil DB -C ...".
func runDbutil(p *proc) int {
	if len(p.args) > 0 {
		switch p.args[0] {
		case "prostrct", "procopy", "prodb":
			sub := &proc{name: p.args[0], args: p.args[1:], stdin: p.stdin, stdout: p.stdout, stderr: p.stderr, env: p.env}
			switch p.args[0] {
			case "prostrct":
				return runProstrct(sub)
			case "procopy":
				return runProcopy(sub)
			}
			return runProdb(sub)
		}
	}
	return runProutil(p)
}
