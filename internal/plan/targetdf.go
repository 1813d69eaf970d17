package plan

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// NeedTargetDF says why the plan in dir cannot build a target: it was made
// from a report alone (oedl plan --tabanalys without --df), so it holds no
// target.df, the schema load_df.p loads into the new database. oedl run,
// prepare and calibrate need one; oedl estimate does not. Without this, the
// run said "target.df not found: run oedl plan first" to a DBA who had just
// run it. A plan whose .df was given and whose target.df is gone since is
// not this case (nil): the callers' own check names the missing file.
func NeedTargetDF(p *Plan, dir string) error {
	if p.Source.DF != "" {
		return nil
	}
	_, err := os.Stat(filepath.Join(dir, FileDF))
	if !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	from := "its report"
	if p.Source.Tabanalys != "" {
		from = p.Source.Tabanalys
	}
	return fmt.Errorf("the plan %s was made without the source's .df (from %s alone), so it has no %s to build the target's schema from: plan again with --df FILE (the source's definitions, dumped by the Data Dictionary) or with --source DB (oedl dumps them)", dir, from, FileDF)
}
