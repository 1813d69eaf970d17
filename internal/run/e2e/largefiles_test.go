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
// .st to prostrct create, and an installation without large files
// (OESIM_LARGE_FILES=no) refuses it naming the line: the run fails, no
// target is left, the source untouched.
func TestLargeFileExtents(t *testing.T) {
	e := newEnv(t, "sports")
	counts := e.counts(e.source)
	planDir := copyPlan(t, e.fx.planDir, filepath.Join(t.TempDir(), "plan"))
	stPath := filepath.Join(planDir, "target.st")
	st, err := os.ReadFile(stPath)
	require.NoError(t, err)
	// The first data area's variable extent becomes a fixed one of 2 GiB
	// followed by the variable one: a line prostrct reads as is.
	re := regexp.MustCompile(`(?m)^(d "[^"]+":([7-9]|\d\d+),\d+;\d+ \S+)\n`)
	loc := re.FindSubmatchIndex(st)
	require.NotNil(t, loc, "target.st has a data area:\n%s", st)
	line := strings.Count(string(st[:loc[0]]), "\n") + 1
	edited := string(st[:loc[0]]) + string(st[loc[2]:loc[3]]) + " f 2097152\n" + string(st[loc[0]:])
	require.NoError(t, os.WriteFile(stPath, []byte(edited), 0o644))
	where := "target.st:" + strconv.Itoa(line) + ": "

	r := e.runWith(planDir, e.target, filepath.Join(t.TempDir(), "work"))
	require.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, where+"an extent of 2097152 KB needs large files")
	assert.NoFileExists(t, e.target+".db")

	setLargeFiles(t, filepath.Join(planDir, "plan.json"))
	work := filepath.Join(t.TempDir(), "work")
	r = e.oedl([]string{"OESIM_LARGE_FILES=no"}, "run", "--source", e.source, "--target", e.target, "--plan", planDir,
		"--work", work, "--dlc", e.fx.dlc, "--no-tui", "--job-timeout", "2m")
	assert.NotEqual(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "FAILED  create-target")
	log, err := os.ReadFile(filepath.Join(work, "logs", "create-target.log"))
	require.NoError(t, err)
	assert.Contains(t, string(log), where+"an extent of 2097152 KB needs large files, which this installation")
	assert.NoFileExists(t, e.target+".db")
	assert.Equal(t, counts, e.counts(e.source))
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
