// Command oedl plans, runs, estimates and verifies OpenEdge dump/load migrations.
package main

import (
	"os"

	"github.com/oedl/oedl/internal/cli"
)

func main() { os.Exit(cli.Main()) }
