package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/oedl/oedl/internal/manifest"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/run"
)

// checkPlanPaths refuses a plan whose target files would be the source's
// (exit 2), where the plan can already know it: the source is --source,
// or the database its tabanalys names when that exists here, and the
// target is --target, or, without one, a database of the source's name
// (the README's own pattern: /db/prod becomes /newdb/prod), whose extents
// in the --data-dir, --bi-dir and --ai-dir directories are checked (those
// at "." follow the target wherever it goes and are checked by oedl run).
// The choice is an error, not a new name: a target named otherwise than
// its source is a decision for the DBA (--target), not for oedl.
func checkPlanPaths(ctx context.Context, opts *PlanOptions, p *plan.Plan) error {
	source := strings.TrimSuffix(opts.Source, ".db")
	if source == "" {
		source = strings.TrimSuffix(p.Source.Database, ".db")
	}
	if source == "" || !filepath.IsAbs(source) && opts.Source == "" {
		return nil // a report from elsewhere: nothing here to compare with
	}
	source, err := filepath.Abs(source)
	if err != nil {
		return nil
	}
	if _, err := os.Stat(source + ".db"); err != nil {
		return nil
	}
	view := manifest.OS{}
	var files *manifest.Files
	if opts.DLC != "" {
		files, err = run.SourceFiles(ctx, run.Config{DLC: opts.DLC, Source: source, Runner: opts.Runner})
	}
	if files == nil || err != nil {
		if files, err = manifest.ExistingDatabase(view, "source", source, nil); err != nil {
			return PreconditionError(err)
		}
	}
	target, unknownDir := p.Target, ""
	if target == "" {
		// Where the target's own directory is is unknown: a directory that
		// does not exist stands for it, and its files are left out.
		unknownDir = filepath.Join(os.TempDir(), fmt.Sprintf("oedl-plan-target-%d", os.Getpid()))
		if _, err := os.Lstat(unknownDir); err == nil {
			return nil
		}
		target = filepath.Join(unknownDir, filepath.Base(source))
	}
	// target.st as the run will read it (with its line numbers).
	var buf bytes.Buffer
	if err := openedge.WriteStructure(&buf, p.Structure()); err != nil {
		return UsageError("%v", err)
	}
	st, err := openedge.ParseStructure(&buf, plan.FileStructure)
	if err != nil {
		return UsageError("%v", err)
	}
	entries, err := manifest.NewDatabase(view, target, st, filepath.Dir(target))
	if err != nil {
		if manifest.IsInput(err) {
			return UsageError("%v", err)
		}
		return PreconditionError(err)
	}
	var known []manifest.Entry
	for _, e := range entries {
		if unknownDir == "" || !strings.HasPrefix(e.Path, unknownDir+string(filepath.Separator)) {
			known = append(known, e)
		}
	}
	_, err = manifest.Prove(view, known, manifest.Rules{Protected: []*manifest.Files{files}})
	var ce *manifest.ConflictError
	if !errors.As(err, &ce) {
		return nil // existing files that are not the source's are oedl run's to refuse, then
	}
	var onSource []manifest.Conflict
	for _, c := range ce.Conflicts {
		if c.Source {
			onSource = append(onSource, c)
		}
	}
	if len(onSource) == 0 {
		return nil
	}
	name := filepath.Base(target)
	ce = &manifest.ConflictError{Conflicts: onSource, Advice: fmt.Sprintf(
		"the plan puts a database named %s into directories that hold the source's files: give --data-dir (and --bi-dir, --ai-dir) directories that do not hold the source, or plan for a --target with another name", name)}
	return UsageError("%v", ce)
}
