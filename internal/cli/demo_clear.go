package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/run"
	"github.com/oedl/oedl/internal/sim/gen"
)

// An earlier demo's directory is cleared (db/, plan/, work/) before the
// next demo, since the marker says oedl demo made it. The marker does not
// say nobody put anything there since: a DBA who copied his own database
// into DIR/db/mine to try oedl on it, or kept notes in DIR/plan, lost them
// to the next `oedl demo` (safety trial 11). So only what a demo makes is
// cleared: db/ holding the source/ and target/ directories of a generated
// database (files named for a profile), plan/ holding a plan's files
// alone (the rule of oedl plan -o), work/ holding what a run writes at its
// top (run.WorkEntries). Anything else is refused, exit 2, named, nothing removed.

// demoClearable refuses an earlier demo's directory holding anything the
// demo does not make where it would be cleared.
func demoClearable(dir string) error {
	var others []string
	entries := func(sub string) []fs.DirEntry {
		es, err := os.ReadDir(filepath.Join(dir, sub))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			others = append(others, fmt.Sprintf("%s (%v)", filepath.Join(dir, sub), err))
		}
		return es
	}
	for _, e := range entries("db") {
		p := filepath.Join(dir, "db", e.Name())
		if !e.IsDir() || (e.Name() != "source" && e.Name() != "target") {
			others = append(others, p)
			continue
		}
		for _, f := range entries(filepath.Join("db", e.Name())) {
			if !f.Type().IsRegular() || !generatedName(f.Name()) {
				others = append(others, filepath.Join(p, f.Name()))
			}
		}
	}
	if err := plan.CheckOnlyPlan(filepath.Join(dir, "plan")); err != nil {
		others = append(others, err.Error())
	}
	for _, e := range entries("work") {
		if !run.IsWorkEntry(e.Name()) || e.Type()&fs.ModeSymlink != 0 {
			others = append(others, filepath.Join(dir, "work", e.Name()))
		}
	}
	if len(others) == 0 {
		return nil
	}
	if len(others) > 5 {
		others = append(others[:5], fmt.Sprintf("and %d more", len(others)-5))
	}
	return UsageError("--dir %s was made by an earlier oedl demo, which clears its db/, plan/ and work/, but they hold what no demo makes: %s; move those elsewhere, or choose another --dir",
		dir, strings.Join(others, "; "))
}

// generatedName: a file of a database a demo generates (named for its
// profile: sports.db, sports_8.d1, sports.oedl.json, ...).
func generatedName(name string) bool {
	for _, p := range gen.Profiles() {
		if strings.HasPrefix(name, p+".") || strings.HasPrefix(name, p+"_") {
			return true
		}
	}
	return false
}
