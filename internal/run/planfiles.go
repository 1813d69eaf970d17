package run

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/plan"
)

// runPlanFiles are the plan files the run hands to the utilities
// (prostrct create, load_df.p) with their SHA-256, for the run's journal
// record. A plan whose files cannot be read is refused later by
// readPlanFiles, naming the file; here it records nothing.
func runPlanFiles(c *Config) []journal.File {
	files, err := filesWithSums(filepath.Join(c.PlanDir, plan.FileStructure), filepath.Join(c.PlanDir, plan.FileDF))
	if err != nil {
		return nil
	}
	return files
}

// planFilesChanged refuses a resume whose plan's target.st or target.df
// is not the file the run began with (docs/decisions.md, "A resume takes
// the plan files it began with (safety trial 10)"): plan.json's hash does
// not cover them, and a resume that creates the target again (the -i
// rebuild, a create-target not done) would place its extents where the
// edited file says, which no preflight of the first invocation proved.
// The files are compared by name under today's --plan (the plan
// directory may have moved; its plan.json is held to the journal's by
// hash). An older journal that recorded none is not checked. Bad usage,
// exit 2, as another --plan is.
func planFilesChanged(c *Config, began []journal.File) error {
	var why []string
	for _, f := range began {
		p := filepath.Join(c.PlanDir, filepath.Base(f.Path))
		sum, err := fileSHA256(p)
		switch {
		case err != nil:
			why = append(why, fmt.Sprintf("%s: %v", p, err))
		case sum != f.SHA256:
			why = append(why, fmt.Sprintf("%s changed since the run began (SHA-256 %.12s, was %.12s)", p, sum, f.SHA256))
		}
	}
	if len(why) == 0 {
		return nil
	}
	return &UsageError{Err: fmt.Errorf("%s holds a run begun from other plan files: %s; put back the plan files it began with to continue it, or start again in a new --work directory",
		c.work(journal.FileName), strings.Join(why, "; "))}
}
