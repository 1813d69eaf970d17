package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/manifest"
	"github.com/oedl/oedl/internal/schedule"
)

// createTargetJob creates the target: it proves the target's files again
// (the preflight's proof may be minutes old), removes only what that
// proof allows (the files of an earlier oedl target its record names with
// their inodes, or this run's own half-made target), writes the target's
// record naming every file it is about to create, runs prostrct create,
// procopy and load_df.p, then stamps the record with each file's device
// and inode and journals the files it created.
func (e *Executor) createTargetJob(ctx context.Context, j *schedule.Job, log *os.File) (journal.Record, error) {
	p := e.proof
	if p == nil {
		return journal.Record{}, fmt.Errorf("create-target without a preflight proof of its files")
	}
	view := manifest.OS{}
	recPath := manifest.RecordPath(e.cfg.Target)
	rules := p.rules
	// A record this run wrote (an earlier attempt of this job, or an
	// invocation of this run that was killed) names the files it made.
	if cur, err := manifest.ReadRecord(view, recPath); err == nil && cur != nil && filepath.Clean(cur.Work) == filepath.Clean(e.cfg.Work) {
		rules.Record, rules.Replace = cur, true
	}
	found, err := manifest.Prove(view, p.entries, rules)
	if err != nil {
		return journal.Record{}, err
	}
	if err := manifest.Remove(found); err != nil {
		return journal.Record{}, fmt.Errorf("replace the earlier target: %w", err)
	}
	var files []manifest.Entry
	for _, en := range p.entries {
		if en.Path != recPath {
			files = append(files, en)
		}
	}
	rec := manifest.NewRecord(rules.Target, e.cfg.Work, files)
	if err := rec.Write(recPath); err != nil {
		return journal.Record{}, fmt.Errorf("write the target's record %s: %w", recPath, err)
	}
	jr, err := e.runSteps(ctx, j, e.cfg.steps(j, nil), log)
	if err != nil {
		return jr, err
	}
	if err := rec.Stamp(view, rules.Protected...); err != nil {
		return jr, fmt.Errorf("stamp the target's record: %w", err)
	}
	if err := rec.Write(recPath); err != nil {
		return jr, fmt.Errorf("write the target's record %s: %w", recPath, err)
	}
	for _, f := range rec.Files {
		if f.ID != nil {
			if pf, err := proof(f.Path); err == nil {
				jr.Created = append(jr.Created, pf)
			}
		}
	}
	jr.Message = fmt.Sprintf("%d files created, named in %s", len(jr.Created), filepath.Base(recPath))
	if len(found) > 0 {
		jr.Message += fmt.Sprintf("; %d files of an earlier oedl target replaced", len(found))
	}
	return jr, nil
}
