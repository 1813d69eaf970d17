package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/report"
	"github.com/oedl/oedl/internal/schedule"
)

// `oedl prepare` (issue 12): the target made before the window, kept by
// the run that follows when it is provably untouched, refused otherwise.

func (e *env) prepareArgs(extra ...string) []string {
	return append([]string{"prepare", "--source", e.source, "--target", e.target, "--plan", e.fx.planDir,
		"--work", e.work, "--dlc", e.fx.dlc}, extra...)
}

func (e *env) prepareJournal() []journal.Record {
	recs, err := journal.Read(filepath.Join(e.work, journal.PrepareFileName))
	require.NoError(e.t, err)
	return recs
}

// Prepare, then run: verified; create-target is not in the run's journal
// (the run's first record says whose target it keeps, and the skip event
// says why), and the report shows the preparation apart from the window.
func TestPrepareThenRun(t *testing.T) {
	e := newEnv(t, "sports")
	r := e.oedl(nil, e.prepareArgs()...)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "prepared in ")
	prep := e.prepareJournal()
	assert.Equal(t, journal.Done, prep[len(prep)-1].State, "the preparation's journal ends with its done")
	assert.True(t, journal.Replay(prep).IsDone(string(schedule.KindCreateTarget)))
	assert.Zero(t, sum(e.counts(e.target)), "the prepared target holds no record")

	again := e.oedl(nil, e.prepareArgs()...)
	require.Equal(t, 0, again.code, again.stderr)
	assert.Contains(t, again.stderr, "already prepared")

	run := e.oedl(nil, e.runArgs("--json")...)
	require.Equal(t, 0, run.code, run.stderr)
	e.verified()
	recs := e.journal()
	require.NotEmpty(t, recs)
	require.NotNil(t, recs[0].Prepared, "the run's first record names the preparation it keeps")
	for _, rec := range recs {
		assert.NotEqual(t, string(schedule.KindCreateTarget), rec.Job, "create-target is not run in the window")
	}
	assert.Contains(t, run.stdout, `"kind":"job_skipped"`)
	assert.Contains(t, run.stdout, "prepared by oedl prepare at ")

	md, err := os.ReadFile(filepath.Join(e.work, report.MarkdownFile))
	require.NoError(t, err)
	assert.Contains(t, string(md), "| Preparation | ")
	assert.Contains(t, string(md), "before the window")
}

func sum(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// Someone loads a .bd into the prepared target by hand: the run refuses
// it (exit 3) naming why, and leaves it as it is.
func TestPrepareThenWrittenIntoIsRefused(t *testing.T) {
	e := newEnv(t, "sports")
	r := e.oedl(nil, e.prepareArgs()...)
	require.Equal(t, 0, r.code, r.stderr)
	dumps := filepath.Join(e.dir, "byhand")
	require.NoError(t, os.MkdirAll(dumps, 0o755))
	for _, args := range [][]string{{e.source, "-C", "dump", "PUB.Customer", dumps}, {e.target, "-C", "load", filepath.Join(dumps, "Customer.bd")}} {
		cmd := exec.Command(filepath.Join(e.fx.dlc, "bin", "proutil"), args...)
		cmd.Env = append(os.Environ(), e.extra...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	counts := e.counts(e.target)
	require.NotZero(t, counts["PUB.Customer"])
	before := files(t, filepath.Dir(e.target))

	run := e.oedl(nil, e.runArgs()...)
	assert.Equal(t, 3, run.code, run.stderr)
	assert.Contains(t, run.stderr, "not provably as it left it")
	assert.Contains(t, run.stderr, e.target)
	e.untouched(e.target, counts, before)
	_, err := os.Stat(filepath.Join(e.work, journal.FileName))
	if err == nil {
		assert.Empty(t, e.journal(), "a refused run journals nothing")
	}
}

// A file of the prepared target removed: refused naming it; --force
// creates the target again, and the run is verified.
func TestPrepareChangedThenForce(t *testing.T) {
	e := newEnv(t, "sports")
	r := e.oedl(nil, e.prepareArgs()...)
	require.Equal(t, 0, r.code, r.stderr)
	require.NoError(t, os.Remove(e.target+".lg"))

	run := e.oedl(nil, e.runArgs()...)
	require.Equal(t, 3, run.code, run.stderr)
	assert.Contains(t, run.stderr, e.target+".lg is missing")

	run = e.oedl(nil, e.runArgs("--force")...)
	require.Equal(t, 0, run.code, run.stderr)
	e.verified()
	created := false
	for _, rec := range e.journal() {
		created = created || (rec.Job == string(schedule.KindCreateTarget) && rec.State == journal.Done)
	}
	assert.True(t, created, "--force created the target again, in the window")
	assert.Nil(t, e.journal()[0].Prepared)
}

// kill -9 at every record of the preparation, then prepare again: it
// finishes, and the run after it keeps its target and is verified.
func TestPrepareKilledAtEveryRecord(t *testing.T) {
	probe := newEnv(t, "sports")
	r := probe.oedl(nil, probe.prepareArgs()...)
	require.Equal(t, 0, r.code, r.stderr)
	n := len(probe.prepareJournal())
	require.Greater(t, n, 5)
	for at := 1; at < n; at++ {
		t.Run(strconv.Itoa(at), func(t *testing.T) {
			e := newEnv(t, "sports")
			killed := e.oedl([]string{"OEDL_TEST_CRASH_AT=" + strconv.Itoa(at)}, e.prepareArgs()...)
			require.Equal(t, -1, killed.code, "killed at record %d: %s", at, killed.stderr)
			require.Len(t, e.prepareJournal(), at, "the journal holds exactly the records before the kill")

			early := e.oedl(nil, e.runArgs()...)
			require.Equal(t, 3, early.code, early.stderr)
			assert.Contains(t, early.stderr, "did not finish")

			again := e.oedl(nil, e.prepareArgs()...)
			require.Equal(t, 0, again.code, again.stderr)
			run := e.oedl(nil, e.runArgs()...)
			require.Equal(t, 0, run.code, run.stderr)
			e.verified()
			assert.NotNil(t, e.journal()[0].Prepared)
			assert.False(t, strings.Contains(run.stderr, "start   create-target"), "create-target ran in the window")
		})
	}
}
