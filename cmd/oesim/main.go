// Command oesim is the OpenEdge simulator: `oesim install DIR` lays out a fake
// $DLC whose bin/ entries are this same binary, dispatched by argv[0].
package main

import (
	"os"

	"github.com/oedl/oedl/internal/sim"
)

func main() { os.Exit(sim.Main(os.Args)) }
