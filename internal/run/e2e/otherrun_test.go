package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
)

// Safety trial 5: a run fails and is left; the DBA starts the migration
// again in a new work directory with --force (allowed: the first run's
// record proves oedl made the target, and that run is not live), and the
// second run ends verified. Later the first run's --resume is given (from
// the shell's history): the target there is the second run's now. A
// resume that rebuilds (a no-integrity load failed) would remove it and
// create it again; one that keeps it would repair and load into it. Both
// are refused (exit 3) naming the run that made it, and the second run's
// target counts and holds what it did; with --force the rebuild may
// replace it, as a first run's --force may.
func TestResumeRefusesAnotherRunsTarget(t *testing.T) {
	for _, c := range []struct {
		name  string
		args  []string
		force bool // --force lets the resume replace the other run's target
	}{
		{"rebuild of a no-integrity target", []string{"--no-integrity", "--load-jobs", "1"}, true},
		{"keep and repair", []string{"--load-jobs", "1", crashSafe}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, "sports")
			r := e.oedl([]string{"OESIM_FAULTS=load:PUB.OrderLine:crash-after=500"}, e.runArgs(c.args...)...)
			require.Equal(t, 1, r.code, r.stderr)
			second := filepath.Join(e.dir, "work2")
			r = e.runWith(e.fx.planDir, e.target, second, "--force")
			require.Equal(t, 0, r.code, r.stderr)
			counts, before := e.counts(e.target), files(t, filepath.Dir(e.target))

			r = e.oedl(nil, e.runArgs("--resume")...)
			assert.Equal(t, 3, r.code, r.stderr)
			assert.Contains(t, r.stderr, "the oedl run in "+second+" made it")
			e.untouched(e.target, counts, before)

			r = e.oedl(nil, e.runArgs("--resume", "--force")...)
			if !c.force {
				assert.Equal(t, 3, r.code, r.stderr)
				e.untouched(e.target, counts, before)
				return
			}
			require.Equal(t, 0, r.code, r.stderr)
			e.verified()
			assert.Equal(t, counts, e.counts(e.target), "replaced by a verified copy")
		})
	}
}

// Safety trial 5: a run fails and is left; the target's directory is
// replaced by a link to another database of the same name and layout that
// oedl did not make there (a copy, a restore: no record beside it). The
// resume used to keep it, as if an oedl that wrote no record had made it,
// truncate the failed load's area in it and load into it. The run wrote a
// record when it created its target (its journal lists the files), so a
// target without one is not proven its: refused (exit 3), untouched.
func TestResumeRefusesATargetWithoutItsRecord(t *testing.T) {
	e := newEnv(t, "sports")
	other := filepath.Join(e.dir, "other", "sports")
	r := e.runWith(e.fx.planDir, other, filepath.Join(e.dir, "work-other"))
	require.Equal(t, 0, r.code, r.stderr)
	require.NoError(t, os.Remove(other+".oedl.json")) // not oedl's here: a copy, a restore
	require.NoError(t, os.Remove(other+".oedl.lock"))

	r = e.oedl([]string{"OESIM_FAULTS=load:PUB.OrderLine:crash-after=500"}, e.runArgs("--load-jobs", "1", crashSafe)...) // kept and repaired
	require.Equal(t, 1, r.code, r.stderr)
	require.NoError(t, os.RemoveAll(filepath.Dir(e.target)))
	require.NoError(t, os.Symlink(filepath.Dir(other), filepath.Dir(e.target)))
	counts, before := e.counts(other), files(t, filepath.Dir(other))
	journalled := len(e.journal())

	r = e.oedl(nil, e.runArgs("--resume")...)
	assert.Equal(t, 3, r.code, r.stderr)
	assert.Contains(t, r.stderr, "the target's record "+e.target+".oedl.json is gone")
	assert.Len(t, e.journal(), journalled, "the refused resume ran no job (no area of the other database truncated)")
	e.untouched(other, counts, before)
}

// Safety trial 5: a run fails and is left; an extent of the area its
// failed load dirtied is replaced by a hard link to another database's
// extent (one file, two names). The resume kept the target, proving its
// files by name alone, and truncated and loaded the other database's
// extent. The record's stamped identity proves every extent now: refused
// (exit 3), the other database untouched.
func TestResumeRefusesAnExtentThatIsAnotherFile(t *testing.T) {
	e := newEnv(t, "sports")
	other := filepath.Join(e.dir, "other", "sports")
	r := e.runWith(e.fx.planDir, other, filepath.Join(e.dir, "work-other"))
	require.Equal(t, 0, r.code, r.stderr)

	r = e.oedl([]string{"OESIM_FAULTS=load:PUB.OrderLine:crash-after=500"}, e.runArgs("--load-jobs", "1", crashSafe)...) // kept and repaired
	require.Equal(t, 1, r.code, r.stderr)
	area := ""
	for _, rec := range e.journal() {
		if rec.Table == "PUB.OrderLine" && rec.Area != "" {
			area = rec.Area
		}
	}
	require.NotEmpty(t, area)
	st, err := os.Open(filepath.Join(e.fx.planDir, "target.st"))
	require.NoError(t, err)
	s, err := openedge.ParseStructure(st, "target.st")
	st.Close()
	require.NoError(t, err)
	name := filepath.Base(e.target) + "_" + strconv.Itoa(s.Area(area).Number) + ".d1"
	ext := filepath.Join(filepath.Dir(e.target), name)
	require.NoError(t, os.Remove(ext))
	require.NoError(t, os.Link(filepath.Join(filepath.Dir(other), name), ext))
	counts, before := e.counts(other), files(t, filepath.Dir(other))

	r = e.oedl(nil, e.runArgs("--resume")...)
	assert.Equal(t, 3, r.code, r.stderr)
	assert.Contains(t, r.stderr, ext+" (extent 1 of area")
	e.untouched(other, counts, before)
}
