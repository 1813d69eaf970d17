package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLargeFileExtents: a target.st hand-edited to an extent of 2 GiB is
// refused by oedl run before anything runs (exit 2, naming the line) while
// plan.json does not say large_files; when it says so, the run hands the
// .st to prostrct create -validate in its preflight, and an installation
// without large files (OESIM_LARGE_FILES=no) refuses it naming the line:
// run, prepare and the dry run stop there (exit 2), no target is left,
// the source untouched. It used to be found at create-target, inside
// the window, and retried.
func TestLargeFileExtents(t *testing.T) {
	e := newEnv(t, "sports")
	counts := e.counts(e.source)
	planDir := copyPlan(t, e.fx.planDir, filepath.Join(t.TempDir(), "plan"))
	stPath, line := addLargeExtent(t, planDir)
	where := "target.st:" + strconv.Itoa(line) + ": "

	r := e.runWith(planDir, e.target, filepath.Join(t.TempDir(), "work"))
	require.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, where+"an extent of 2097152 KB needs large files")
	assert.NoFileExists(t, e.target+".db")

	setLargeFiles(t, filepath.Join(planDir, "plan.json"))
	// The plan says large files: the installation's prostrct is asked
	// (create -validate) in the preflight, and refuses it there, in every
	// message language: exit 2 naming the line, before the source is
	// served or frozen, no job run, nothing at the target.
	for _, lang := range []struct{ name, promsgs string }{
		{"en", filepath.Join(e.fx.dlc, "promsgs")},
		{"pt", filepath.Join(e.fx.dlc, "prolang", "brz", "promsgs.brz")},
		{"de", filepath.Join(e.fx.dlc, "prolang", "ger", "promsgs.ger")},
	} {
		env := []string{"OESIM_LARGE_FILES=no", "PROMSGS=" + lang.promsgs}
		work := filepath.Join(t.TempDir(), "work")
		r = e.oedl(env, "run", "--source", e.source, "--target", e.target, "--plan", planDir,
			"--work", work, "--dlc", e.fx.dlc, "--no-tui", "--job-timeout", "2m")
		require.Equal(t, 2, r.code, "%s: %s", lang.name, r.stderr)
		assert.Contains(t, r.stderr, stPath+" line "+strconv.Itoa(line)+" (", lang.name)
		assert.Contains(t, r.stderr, "before anything was written or frozen", lang.name)
		assert.NotContains(t, r.stderr, "create-target", lang.name)
		assert.NoFileExists(t, filepath.Join(work, "logs", "create-target.log"))
		log, err := os.ReadFile(filepath.Join(work, "logs", "run.log"))
		require.NoError(t, err)
		assert.Contains(t, string(log), "-validate", "the call is in the run's log")
		assert.NoFileExists(t, e.target+".db")

		// oedl prepare refuses it in its preflight too, and the dry run.
		r = e.oedl(env, "prepare", "--source", e.source, "--target", e.target, "--plan", planDir,
			"--work", filepath.Join(t.TempDir(), "prep"), "--dlc", e.fx.dlc)
		require.Equal(t, 2, r.code, "%s prepare: %s", lang.name, r.stderr)
		assert.Contains(t, r.stderr, stPath+" line "+strconv.Itoa(line)+" (", lang.name)
		r = e.oedl(env, "run", "--dry-run", "--source", e.source, "--target", e.target, "--plan", planDir,
			"--work", filepath.Join(t.TempDir(), "dry"), "--dlc", e.fx.dlc)
		require.Equal(t, 2, r.code, "%s dry run: %s", lang.name, r.stderr)
		assert.Contains(t, r.stderr, stPath+" line "+strconv.Itoa(line)+" (", lang.name)
		assert.NoFileExists(t, e.target+".db")
	}
	assert.Equal(t, counts, e.counts(e.source))

	// Where the installation has large files, the same plan is taken:
	// the dry run says so.
	r = e.oedl(nil, "run", "--dry-run", "--source", e.source, "--target", e.target, "--plan", planDir,
		"--work", filepath.Join(t.TempDir(), "dry"), "--dlc", e.fx.dlc)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "prostrct create -validate takes target.st")
	assert.NoFileExists(t, e.target+".db")
}

// addLargeExtent makes the first data area's variable extent of the
// plan's target.st a fixed one of 2 GiB followed by the variable one (a
// line prostrct reads as is), and returns the .st and that line.
func addLargeExtent(t *testing.T, planDir string) (stPath string, line int) {
	t.Helper()
	stPath = filepath.Join(planDir, "target.st")
	st, err := os.ReadFile(stPath)
	require.NoError(t, err)
	re := regexp.MustCompile(`(?m)^(d "[^"]+":([7-9]|\d\d+),\d+;\d+ \S+)\n`)
	loc := re.FindSubmatchIndex(st)
	require.NotNil(t, loc, "target.st has a data area:\n%s", st)
	line = strings.Count(string(st[:loc[0]]), "\n") + 1
	edited := string(st[:loc[0]]) + string(st[loc[2]:loc[3]]) + " f 2097152\n" + string(st[loc[0]:])
	require.NoError(t, os.WriteFile(stPath, []byte(edited), 0o644))
	return stPath, line
}

func setLargeFiles(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var p map[string]any
	require.NoError(t, json.Unmarshal(data, &p))
	p["large_files"] = true
	data, err = json.Marshal(p)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o644))
}

// TestRunAfterARefusedPrepare: a refused `oedl prepare` leaves its log in
// the work directory (logs/prepare.log, appended to by every invocation,
// as run.log); a first `oedl run` with the same --work takes that
// directory, as it takes one holding a refused run's run.log, and the
// refused preparation's log is left as it was.
func TestRunAfterARefusedPrepare(t *testing.T) {
	e := newEnv(t, "sports")
	planDir := copyPlan(t, e.fx.planDir, filepath.Join(t.TempDir(), "plan"))
	addLargeExtent(t, planDir)
	setLargeFiles(t, filepath.Join(planDir, "plan.json"))

	work := filepath.Join(t.TempDir(), "work")
	r := e.oedl([]string{"OESIM_LARGE_FILES=no"}, "prepare", "--source", e.source, "--target", e.target, "--plan", planDir,
		"--work", work, "--dlc", e.fx.dlc)
	require.Equal(t, 2, r.code, r.stderr)
	prepLog := filepath.Join(work, "logs", "prepare.log")
	before, err := os.ReadFile(prepLog)
	require.NoError(t, err, "the refused preparation's log")

	r = e.runWith(planDir, e.target, work)
	require.Equal(t, 0, r.code, r.stderr)
	after, err := os.ReadFile(prepLog)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "left as it was")
}
