package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Safety trial 10: a run fails at a load and is left; the plan's
// target.st is edited so that an area's extents go into a directory inside
// the source's (plan.json unchanged: the resume's guard against another
// plan hashed only it). The -i resume created the target again from the
// edited file, its extents among the source's directories, exit 0. Now
// the resume is exit 2 naming target.st, before any job, nothing made.
func TestResumeRefusesEditedPlanFiles(t *testing.T) {
	e := newEnv(t, "sports")
	plan := filepath.Join(e.dir, "plan")
	require.NoError(t, os.MkdirAll(plan, 0o755))
	entries, err := os.ReadDir(e.fx.planDir)
	require.NoError(t, err)
	for _, en := range entries {
		data, err := os.ReadFile(filepath.Join(e.fx.planDir, en.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(plan, en.Name()), data, 0o644))
	}
	args := func(extra ...string) []string {
		return append([]string{"run", "--source", e.source, "--target", e.target, "--plan", plan,
			"--work", e.work, "--dlc", e.fx.dlc, "--no-tui", "--job-timeout", "2m"}, extra...)
	}
	r := e.oedl([]string{"OESIM_FAULTS=load:Customer:exit=1"}, args("--retries", "0")...)
	require.Equal(t, 1, r.code, r.stderr)

	deep := filepath.Join(filepath.Dir(e.source), "deep")
	require.NoError(t, os.MkdirAll(deep, 0o755))
	st := filepath.Join(plan, "target.st")
	data, err := os.ReadFile(st)
	require.NoError(t, err)
	// Every data area's extents into the source's deep/: new names
	// (the target's), so only the changed file can refuse them.
	area := regexp.MustCompile(`(?m)^(d "[^"]*_Data":\d+,\d+;\d+) \S+`)
	edited := area.ReplaceAll(data, []byte("$1 "+deep))
	require.NotEqual(t, string(data), string(edited), "target.st has data areas")
	require.NoError(t, os.WriteFile(st, edited, 0o644))
	before := files(t, filepath.Dir(e.source))
	journalled := len(e.journal())

	r = e.oedl(nil, args("--resume")...)
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, st+" changed since the run began")
	assert.Equal(t, before, files(t, filepath.Dir(e.source)), "nothing made beside the source")
	assert.Len(t, e.journal(), journalled, "the refused resume ran no job")

	require.NoError(t, os.WriteFile(st, data, 0o644))
	r = e.oedl(nil, args("--resume")...)
	require.Equal(t, 0, r.code, r.stderr)
	e.verified()
}
