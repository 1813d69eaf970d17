package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Safety trial 7: a run fails at a dump and is left; the work directory's
// dump/ (or logs/) is moved to another disk and a symbolic link put in
// its place, or the link leads into a directory of the DBA's from the
// start. A first run refuses a link in the work directory, a resume's
// work directory was not checked again: the resume emptied each dump's
// directory through the link (rm -rf of OTHER/PUB.Customer, the DBA's
// notes in it gone) and appended its logs through it. Refused now (exit
// 3) naming the link, before any job, the DBA's files as they were.
func TestResumeRefusesAWorkDirectoryThroughALink(t *testing.T) {
	for _, sub := range []string{"dump", "logs"} {
		t.Run(sub, func(t *testing.T) {
			e := newEnv(t, "sports")
			r := e.oedl([]string{"OESIM_FAULTS=dump:Customer:exit=1"}, e.runArgs("--retries", "0")...)
			require.Equal(t, 1, r.code, r.stderr)

			other := filepath.Join(e.dir, "other")
			require.NoError(t, os.Rename(filepath.Join(e.work, sub), other))
			require.NoError(t, os.Symlink(other, filepath.Join(e.work, sub)))
			for _, d := range []string{"PUB.Customer", "notes"} {
				require.NoError(t, os.MkdirAll(filepath.Join(other, d), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(other, d, "mine.txt"), []byte("the DBA's"), 0o644))
			}
			before := files(t, other)
			journalled := len(e.journal())

			r = e.oedl(nil, e.runArgs("--resume")...)
			assert.Equal(t, 3, r.code, r.stderr)
			assert.Contains(t, r.stderr, filepath.Join(e.work, sub)+" (in the work directory) is a symbolic link")
			assert.Equal(t, before, files(t, other), "nothing written or removed through the link")
			assert.Len(t, e.journal(), journalled, "the refused resume ran no job")
		})
	}
}
