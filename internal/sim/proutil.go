package sim

import (
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
}

// runProutil: proutil DB -C qualifier args...
func runProutil(p *proc) int {
	if len(p.args) < 3 || p.args[1] != "-C" {
		return p.usage("usage: proutil db-name -C qualifier [arguments]")
	}
	db, q, rest := p.args[0], strings.ToLower(p.args[2]), p.args[3:]
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
