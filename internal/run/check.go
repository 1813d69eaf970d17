package run

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/manifest"
	"github.com/oedl/oedl/internal/schedule"
)

// Check makes the preflight's checks that change nothing and open no
// database, for `oedl run --dry-run`: the plan directory holds together
// with plan.json (exit 2), the source is not the target (exit 2), and no
// file the target will have exists unless the rules let the run replace
// it (exit 3), nor, when the work directory holds no run yet, any file of
// someone else in it. The source's files come from `prostrct list`
// (read-only; it works online) when $DLC has it, else from their names
// beside the source. When the source and $DLC's empty database are on
// this machine, it also compares them as the run's preflight does
// (describe, which reads the source and a scratch copy of the empty
// database): a difference the DBA did not ask for is refused (exit 3),
// one --allow-change lets through is among the warnings. It returns a
// note of what only the run's preflight checks (the source's schema, who
// holds the databases, disk space).
func Check(ctx context.Context, cfg Config) (Checked, error) {
	c := &cfg
	c.fill()
	if c.Source == c.Target {
		return Checked{}, &UsageError{Err: fmt.Errorf("--source and --target are the same database: %s", c.Source)}
	}
	if err := c.pathsOnOneLine(); err != nil {
		return Checked{}, err
	}
	pf, err := readPlanFiles(c)
	if err != nil {
		return Checked{}, err
	}
	if err := c.checkStartupPF(); err != nil {
		return Checked{}, err
	}
	view := manifest.OS{}
	r := &runner{cfg: c, externallyServed: map[string]bool{}}
	var source *manifest.Files
	note := fmt.Sprintf("the source %s is not on this machine: the target's files were checked against nothing of it", c.Source)
	if exists(c.Source + manifest.SuffixControl) {
		if err := c.sameDatabase(view); err != nil {
			return Checked{}, err
		}
		if source, note, err = r.sourceFilesOffline(ctx, view); err != nil {
			return Checked{}, err
		}
	}
	resumed := false
	if c.Work != "" && filepath.IsAbs(c.Work) {
		recs, err := journal.Read(filepath.Join(c.Work, journal.FileName))
		switch {
		case err == nil && len(recs) > 0:
			resumed = true
			if err := checkWorkDirsNoLink(c.Work); err != nil {
				return Checked{}, err
			}
			rp := journal.Replay(recs)
			r.resumeKeepsTarget = rp.IsDone(string(schedule.KindCreateTarget)) && exists(c.Target+".db")
			r.recordWritten = journalWroteRecord(rp)
		case err == nil || errors.Is(err, fs.ErrNotExist):
			if _, statErr := os.Stat(c.Work); statErr == nil {
				planJSON, err := json.MarshalIndent(c.Plan, "", "  ")
				if err != nil {
					return Checked{}, err
				}
				sum := sha256.Sum256(planJSON)
				prep, err := readPrepared(c, hex.EncodeToString(sum[:]))
				if err != nil {
					return Checked{}, err
				}
				if err := checkWork(c.Work, planJSON, prep != nil); err != nil {
					return Checked{}, err
				}
				if prep != nil {
					// Its files' identities are proven here; its counts
					// only at the run's preflight, which opens it.
					r.prepared, r.resumeKeepsTarget = prep, true
				}
			}
		default:
			return Checked{}, err
		}
	}
	if r.proof, err = r.proveTarget(view, pf.st, source, resumed); err != nil {
		return Checked{}, err
	}
	out := Checked{Note: note + "; checked at the run's preflight only: the source's schema against the plan, who holds the databases, disk space",
		Prepared: r.prepared != nil}
	if executable(c.bin("prostrct")) {
		// prostrct -validate writes nothing (validate.go): the dry run
		// may ask it.
		if out.Validated, err = r.validateTarget(ctx); err != nil {
			return Checked{}, err
		}
	}
	emptyDB := c.emptyDB()
	switch {
	case source == nil:
		out.Warnings = append(out.Warnings, "describe: the source is not on this machine, so its codepage and block sizes were not compared with the target's (the run's preflight compares them)")
	case !executable(c.bin("proutil")) || !executable(c.bin("procopy")) || !exists(emptyDB+".db"):
		out.Warnings = append(out.Warnings, fmt.Sprintf("describe: $DLC (%s) has no proutil, procopy or %s.db, so the source's codepage and block sizes were not compared with the target's (the run's preflight compares them)", c.DLC, filepath.Base(emptyDB)))
	default:
		d, err := r.checkDescribe(ctx, emptyDB)
		if err != nil {
			return Checked{}, err
		}
		out.Describe = d.summary()
		out.Warnings = append(out.Warnings, d.warnings...)
	}
	return out, nil
}

// Checked is what Check found: Note says what it checked and how, Describe
// the comparison of source and target ("" when not made), Warnings what the
// DBA must hear (a difference --allow-change lets through, a comparison
// that could not be made).
//
// Prepared: the work directory holds a preparation of this plan whose
// target is as oedl prepare left it, so the run keeps that target:
// create-target is not in its window (Config.KeepingPrepared).
//
// Validated: prostrct create -validate took target.st (validate.go).
type Checked struct {
	Note      string
	Describe  string
	Warnings  []string
	Prepared  bool
	Validated bool
}

func executable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// sourceFilesOffline is sourceFiles when $DLC has prostrct, else the
// files named like the source's beside it (and a note saying so).
func (r *runner) sourceFilesOffline(ctx context.Context, view manifest.FS) (*manifest.Files, string, error) {
	c := r.cfg
	if executable(c.bin("prostrct")) {
		files, err := r.sourceFiles(ctx, view)
		if err != nil {
			return nil, "", err
		}
		return files, "the source's files read with prostrct list", nil
	}
	files, err := manifest.ExistingDatabase(view, "source", c.Source, nil)
	if err != nil {
		return nil, "", precondition("the source's files: %v", err)
	}
	return files, "the source's files found by name beside it (no prostrct in $DLC to list them)", nil
}
