package sim

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
)

// TestLoadDiskFullSays6091: a binary load that fills the target's disk
// prints what OpenEdge prints when a database write finds no room,
// "bkioWrite:Insufficient disk space during write, fd N, len N, offset N,
// file F. (6091)" (Progress KB P4404, P22954), naming the extent, in
// every message file; oesim printed its own unnumbered "errno = 28" line
// instead, which only oedl's fallback on the words "errno = 28" read.
func TestLoadDiskFullSays6091(t *testing.T) {
	env, db := smallDB(t)
	tgt := emptyCopy(t, env, db, "tgt")
	bd := dumpOne(t, env, db, "OrderLine")
	for _, l := range []struct{ name, promsgs string }{
		{"en", filepath.Join(env.dlc, "promsgs")},
		{"pt", filepath.Join(env.dlc, "prolang", "brz", "promsgs.brz")},
		{"de", filepath.Join(env.dlc, "prolang", "ger", "promsgs.ger")},
	} {
		t.Run(l.name, func(t *testing.T) {
			r := env.run(t, []string{"PROMSGS=" + l.promsgs, "OESIM_FAULTS=load:OrderLine:diskfull-after=300000"}, "",
				"proutil", tgt, "-C", "load", bd)
			assert.Equal(t, exitFail, r.code)
			m, ok := openedge.NoSpace(r.out)
			require.True(t, ok, r.out)
			assert.Equal(t, openedge.MsgInsufficientSpace, m.Num, r.out)
			assert.Contains(t, m.Text, "bkioWrite:", "the function OpenEdge names, in every language")
			assert.Contains(t, m.Text, filepath.Dir(tgt)+string(filepath.Separator), "the extent, and so the disk, that filled up")
			assert.NotContains(t, r.out, "(oesim)")
		})
	}
}

// TestIdxbuildSortFileFullSays290: idxbuild whose sort file fills its disk
// prints OpenEdge's (290), "SYSTEM ERROR: I/O error 28 in ..., file
// fd(path), addr N." (Progress KB P55740: a sort file short of room ends
// the rebuild with it; its first number is the errno), naming the sort
// file, in every message file; oesim printed its own unnumbered
// "errno = 28" line, which only oedl's fallback on those words read.
func TestIdxbuildSortFileFullSays290(t *testing.T) {
	env, db := smallDB(t)
	for _, l := range []struct{ name, promsgs string }{
		{"en", filepath.Join(env.dlc, "promsgs")},
		{"pt", filepath.Join(env.dlc, "prolang", "brz", "promsgs.brz")},
		{"de", filepath.Join(env.dlc, "prolang", "ger", "promsgs.ger")},
	} {
		t.Run(l.name, func(t *testing.T) {
			sortDir := t.TempDir()
			r := env.run(t, []string{"PROMSGS=" + l.promsgs, "OESIM_FAULTS=idxbuild:diskfull-after=1000"}, "",
				"proutil", db, "-C", "idxbuild", "all", "-T", sortDir, "-TF", "0")
			assert.Equal(t, exitFail, r.code)
			m, ok := openedge.NoSpace(r.out)
			require.True(t, ok, r.out)
			assert.Equal(t, openedge.MsgSystemIOError, m.Num, r.out)
			assert.Contains(t, m.Text, sortDir+string(filepath.Separator), "the sort file, and so the disk, that filled up")
			assert.NotContains(t, r.out, "(oesim)")
		})
	}
}
