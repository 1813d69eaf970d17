// Command oedl plans, runs, estimates and verifies OpenEdge dump/load migrations.
//
// The binary also carries the simulator, so that `oedl demo` works from this
// one file: `oedl demo` installs a fake $DLC whose bin/proutil, prostrct, ...
// are links to this executable, and a process started under one of those
// names is the simulated utility, not oedl. Nothing else in oedl knows about
// the simulator: the run drives $DLC/bin/* the same way for a real OpenEdge.
package main

import (
	"os"
	"path/filepath"

	"github.com/oedl/oedl/internal/cli"
	"github.com/oedl/oedl/internal/sim"
)

func main() {
	if sim.IsUtility(filepath.Base(os.Args[0])) {
		os.Exit(sim.Main(os.Args))
	}
	os.Exit(cli.Main())
}
