package e2e

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/schedule"
)

// TestDiskFullCreatingTheTarget: the target's disk fills while it is made
// (oesim's diskfull-after on prostrct, procopy or _progres, which print
// OpenEdge's (6091) as a load's extent write does), in oedl prepare and in
// the run's create-target, in each message language: create-target ends
// at its first attempt (disk_full, not retried though --retries allows
// more), the file, and so the disk, named; exit 1, as a load's full disk
// is. With room again, prepare again or the resume finishes. Before, the
// fault never fired there, so nothing of this was tried.
func TestDiskFullCreatingTheTarget(t *testing.T) {
	for _, tc := range []struct {
		name, cmd, rule, promsgs string
	}{
		{"prepare prostrct-create en", "prepare", "prostrct:diskfull-after=1MB", "promsgs"},
		{"prepare procopy pt", "prepare", "procopy:diskfull-after=0", filepath.Join("prolang", "brz", "promsgs.brz")},
		{"prepare load_df de", "prepare", "_progres:diskfull-after=0", filepath.Join("prolang", "ger", "promsgs.ger")},
		{"run prostrct-create pt", "run", "prostrct:diskfull-after=1MB", filepath.Join("prolang", "brz", "promsgs.brz")},
		{"run load_df en", "run", "_progres:diskfull-after=0", "promsgs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "sports")
			lang := "PROMSGS=" + filepath.Join(e.fx.dlc, tc.promsgs)
			args := e.prepareArgs()
			if tc.cmd == "run" {
				args = e.runArgs("--retries", "2")
			}
			r := e.oedl([]string{lang, "OESIM_FAULTS=" + tc.rule}, args...)
			require.Equal(t, 1, r.code, r.stderr)
			recs := e.prepareJournal
			if tc.cmd == "run" {
				recs = e.journal
			}
			var failed []journal.Record
			for _, rec := range recs() {
				if rec.Job == string(schedule.KindCreateTarget) && rec.State == journal.Failed {
					failed = append(failed, rec)
				}
			}
			require.Len(t, failed, 1, "one attempt: %+v", failed)
			assert.Equal(t, "disk_full", failed[0].Reason)
			assert.Regexp(t, `\(6091\)`, r.stderr, "OpenEdge's message, by its number")
			assert.Contains(t, r.stderr, filepath.Dir(e.target)+string(filepath.Separator), "the file, and so the disk, that filled up")
			assert.Contains(t, r.stderr, "not tried again")

			if tc.cmd == "prepare" {
				r = e.oedl([]string{lang}, e.prepareArgs()...)
				require.Equal(t, 0, r.code, r.stderr)
				args = e.runArgs()
			} else {
				args = e.runArgs("--resume")
			}
			r = e.oedl([]string{lang}, args...)
			require.Equal(t, 0, r.code, r.stderr)
			assert.True(t, e.verified().OK)
		})
	}
}
