package plan

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/oedl/oedl/internal/openedge"
)

// Target is a plan directory's target.st and target.df, parsed and held
// together with its plan.json (Check).
type Target struct {
	Structure *openedge.Structure
	DF        *openedge.DF
}

// ReadTarget reads target.st and target.df from the plan directory dir and
// runs Check on them with p, the directory's plan.json: every command that
// reads a plan (run, prepare, estimate, calibrate) refuses the same broken
// plan the same way, before it does or prices anything. A missing or
// unreadable file is returned wrapping the *os.PathError (a precondition:
// the directory is not a plan); a file that does not parse, or a plan that
// does not hold together, as *InvalidError naming the file and line (bad
// input, exit 2).
//
// needDF false (estimate) takes a plan made without --df, which has no
// target.df: plan.json and target.st are still checked.
func ReadTarget(dir string, p *Plan, needDF bool) (*Target, error) {
	stPath := filepath.Join(dir, FileStructure)
	dfPath := filepath.Join(dir, FileDF)
	if _, err := os.Stat(dfPath); !needDF && errors.Is(err, fs.ErrNotExist) {
		dfPath = ""
	}
	for _, path := range []string{stPath, dfPath} {
		if path == "" {
			continue
		}
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("%s not found in the plan directory %s: %w", filepath.Base(path), dir, err)
		}
	}
	t := &Target{}
	f, err := os.Open(stPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if t.Structure, err = openedge.ParseStructure(f, stPath); err != nil {
		return nil, &InvalidError{Err: err}
	}
	if dfPath != "" {
		g, err := os.Open(dfPath)
		if err != nil {
			return nil, err
		}
		defer g.Close()
		if t.DF, err = openedge.ParseDF(g, dfPath); err != nil {
			return nil, &InvalidError{Err: err}
		}
	}
	if err := Check(p, t.Structure, t.DF); err != nil {
		return nil, &InvalidError{Err: fmt.Errorf("the plan %s does not hold together:\n%w", dir, err)}
	}
	return t, nil
}
