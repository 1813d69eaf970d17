package run

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/oedl/oedl/internal/plan"
)

// removeDatabase deletes the files of a database oedl is about to create
// (a replaced target with --force, or the half-made target of a run killed
// while creating it): the control area DB.db, its lock, log and every
// extent DB.bN, DB.dN, DB_A.dN, DB.aN, DB.tN in the database's directory
// and in the extent directories of the plan. Only names of that exact
// shape are touched (never a .st: the plan's target.st may sit there).
func removeDatabase(db string, p *plan.Plan) error {
	base := filepath.Base(db)
	re := regexp.MustCompile(`^` + regexp.QuoteMeta(base) + `(\.db|\.lk|\.lg|\.xb|\.[abdt][0-9]+|_[0-9]+\.d[0-9]+)$`)
	dirs := map[string]bool{filepath.Dir(db): true}
	if p != nil {
		for _, a := range p.Areas {
			for _, x := range a.Extents {
				d := extentDir(x.Path)
				if !filepath.IsAbs(d) {
					d = filepath.Join(filepath.Dir(db), d)
				}
				dirs[filepath.Clean(d)] = true
			}
		}
	}
	for dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			return err
		}
		for _, e := range entries {
			if e.IsDir() || !re.MatchString(e.Name()) {
				continue
			}
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return fmt.Errorf("remove the old target: %w", err)
			}
		}
	}
	return nil
}
