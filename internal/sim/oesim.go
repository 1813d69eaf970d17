package sim

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/oedl/oedl/internal/sim/gen"
	"github.com/oedl/oedl/internal/units"
)

// runOesim is oesim's own command line: install, gen, version.
func runOesim(p *proc) int {
	if len(p.args) == 0 {
		fmt.Fprintf(p.stderr, "usage: oesim install DIR | oesim gen --dlc DIR --db PATH [--profile %s] [--scale SIZE] [--seed N] | oesim version\n",
			strings.Join(gen.Profiles(), "|"))
		return exitUsage
	}
	switch p.args[0] {
	case "install":
		if len(p.args) == 2 && (p.args[1] == "-h" || p.args[1] == "--help") {
			fmt.Fprintln(p.stdout, "usage: oesim install DIR\nlays out a simulated $DLC in DIR (new, empty, or an earlier oesim install); then: export DLC=DIR")
			return exitOK
		}
		if len(p.args) != 2 || strings.HasPrefix(p.args[1], "-") {
			// A flag is no directory: "oesim install --help" once
			// installed into ./--help.
			return p.usage("usage: oesim install DIR")
		}
		exe, err := os.Executable()
		if err != nil {
			return p.failf("oesim install: %v", err)
		}
		dir, _ := filepath.Abs(p.args[1])
		if err := Install(dir, exe); err != nil {
			return p.failf("oesim install: %v", err)
		}
		p.say("oesim installed in %s; set DLC=%s", dir, dir)
		return exitOK
	case "gen":
		return oesimGen(p, p.args[1:])
	case "version", "--version":
		p.say("%s (oesim)", Release)
		return exitOK
	case "help", "-h", "--help":
		fmt.Fprintln(p.stdout, "oesim: the OpenEdge simulator. Subcommands: install DIR, gen, version. See docs/oesim.md.")
		return exitOK
	}
	return p.usage("unknown command %q (install, gen, version)", p.args[0])
}

func oesimGen(p *proc, args []string) int {
	fl := flag.NewFlagSet("oesim gen", flag.ContinueOnError)
	fl.SetOutput(p.stderr)
	dlc := fl.String("dlc", os.Getenv("DLC"), "the oesim DLC (from oesim install)")
	db := fl.String("db", "", "the database to create (path without .db)")
	profile := fl.String("profile", "erp", "the shape of the database: "+strings.Join(gen.Profiles(), ", "))
	scale := fl.String("scale", "20MB", "total size of the records, e.g. 200MB")
	seed := fl.Int64("seed", 1, "seed of the values")
	relative := fl.Bool("relative", false, "a relative-path database (extents stored as ./name, beside the .db), as prodb of $DLC/empty or sports2000 makes")
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK // --help asked for the usage it printed
		}
		return exitUsage
	}
	if *db == "" {
		return p.usage("gen needs --db PATH")
	}
	size, err := units.ParseBytes(*scale)
	if err != nil {
		return p.usage("--scale: %v", err)
	}
	if *dlc != "" {
		if _, err := os.Stat(filepath.Join(*dlc, "bin", "proutil")); err != nil {
			return p.failf("oesim gen: %s is not an oesim DLC (no bin/proutil); run oesim install first", *dlc)
		}
	}
	start := time.Now()
	res, err := generateDatabase(*db, *profile, size, *seed, *relative)
	if err != nil {
		return p.failf("oesim gen: %v", err)
	}
	p.say("Generated %s (%s profile): %s tables, %s records, %s of records in %s.", res.base, *profile, units.Thousands(int64(res.tables)),
		units.Thousands(res.records), units.FormatIEC(res.bytes), units.FormatDuration(time.Since(start)))
	p.say("Structure: %s.st  Definitions: %s.df", res.base, res.base)
	return exitOK
}
