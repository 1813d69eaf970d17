package sim

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Exit statuses of the simulated utilities. OpenEdge documents only the
// busy (0/6/64) and holder (0/14/16) codes; every other failure is some
// non-zero value, here 1 (2 for a command line the utility cannot parse).
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// utilities maps each $DLC/bin name to its implementation.
var utilities = map[string]func(*proc) int{
	"proutil":  runProutil,
	"_proutil": runProutil,
	"_dbutil":  runDbutil,
	"prostrct": runProstrct,
	"procopy":  runProcopy,
	"prodb":    runProdb,
	"proserve": runProserve,
	"_mprosrv": runMprosrv,
	"proshut":  runProshut,
	"_mprshut": runProshut,
	"_progres": runProgres,
	"probiw":   runProbiw,
	"proapw":   runProapw,
}

// IsUtility reports whether name (a base name) is one of the programs
// Install puts in $DLC/bin: the simulated DLC utilities and "oesim"
// itself, so that a binary installed as the simulator (oedl installs its
// own, for oedl demo) knows to run as it.
func IsUtility(name string) bool {
	_, ok := utilities[name]
	return ok || name == "oesim"
}

// Main is the multi-call entry point: filepath.Base(args[0]) picks the
// utility ("oesim" for oesim's own subcommands).
func Main(args []string) int {
	return run(args, os.Stdin, os.Stdout, os.Stderr)
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "oesim: no program name")
		return exitUsage
	}
	name := filepath.Base(args[0])
	name = strings.TrimSuffix(name, ".exe")
	p := &proc{name: name, args: args[1:], stdin: stdin, stdout: stdout, stderr: stderr}
	if fn, ok := utilities[name]; ok {
		return p.runUtility(fn)
	}
	return runOesim(p)
}
