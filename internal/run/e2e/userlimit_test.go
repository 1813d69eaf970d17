package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A source the DBA keeps served with -n 6 (--online-source), and 12 dump jobs: the dumps
// past the limit are refused (748) by the broker, wait and run again
// (every dump connected for a while, so that the limit is really
// reached), oedl lowers its dumps against the source and says so once;
// the run verifies, nothing is loaded twice, nothing failed, and the
// broker oedl did not start is still up after it.
func TestUserLimitOfAServedSource(t *testing.T) {
	e := newEnv(t, "sports")
	serve := exec.Command(filepath.Join(e.fx.dlc, "bin", "proserve"), e.source, "-n", "6")
	serve.Env = append(os.Environ(), e.extra...)
	out, err := serve.CombinedOutput()
	require.NoError(t, err, "%s", out)

	r := e.oedl([]string{"OESIM_FAULTS=dump:*:delay=300ms"}, e.runArgs("--dump-jobs", "12", "--online-source", "--json")...)
	require.Equal(t, 0, r.code, r.stderr)
	e.verified()

	lg, err := os.ReadFile(e.source + ".lg")
	require.NoError(t, err)
	assert.Contains(t, string(lg), "(748)", "the broker refused connections")

	var warnings []string
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var ev struct {
			Kind    string `json:"kind"`
			Message string `json:"message"`
			Attempt int    `json:"attempt"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &ev), line)
		assert.NotEqual(t, "job_failed", ev.Kind, "a refusal is not a failure: %s", line)
		assert.NotEqual(t, "job_retry", ev.Kind, "a refusal spends no retry: %s", line)
		if ev.Kind == "warning" && strings.Contains(ev.Message, "(748)") {
			warnings = append(warnings, ev.Message)
		}
	}
	require.Len(t, warnings, 1, "one warning for the source")
	assert.Contains(t, warnings[0], e.source)
	assert.Contains(t, warnings[0], "at most")
	t.Logf("%d refusals in the broker's log; %s", strings.Count(string(lg), "(748)"), warnings[0])

	holder := exec.Command(filepath.Join(e.fx.dlc, "bin", "proutil"), e.source, "-C", "holder")
	holder.Env = append(os.Environ(), e.extra...)
	_ = holder.Run()
	assert.Equal(t, 16, holder.ProcessState.ExitCode(), "the DBA's broker still serves the source")
}
