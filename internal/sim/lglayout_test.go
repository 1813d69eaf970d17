package sim

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
)

// TestLogLayout: by default every line oesim writes to DB.lg is a 10.1A+
// entry with its time and process id; with OESIM_LG_LAYOUT=9 the log is
// the pre-10.1A layout, a date line per session and entries with a time of
// day, their message number last, as oedl reads them (openedge.ParseLogLine);
// an unknown layout fails the utility naming the variable.
func TestLogLayout(t *testing.T) {
	env, db := smallDB(t)
	lg := db + ".lg"
	serve := func(extra []string) {
		for _, call := range [][]string{{"proserve", db}, {"proshut", db, "-by"}} {
			r := env.run(t, extra, "", call[0], call[1:]...)
			require.Equal(t, exitOK, r.code, r.out)
		}
	}
	kinds := func() map[openedge.LogLineKind]int {
		data, err := os.ReadFile(lg)
		require.NoError(t, err)
		out := map[openedge.LogLineKind]int{}
		for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			l := openedge.ParseLogLine(line)
			out[l.Kind]++
			if l.Kind == openedge.LogEntry {
				assert.Positive(t, l.PID, line)
			}
		}
		return out
	}
	serve(nil)
	got := kinds()
	assert.Positive(t, got[openedge.LogEntry])
	assert.Equal(t, got[openedge.LogEntry], sum(got), "only entries: %v", got)

	require.NoError(t, os.Remove(lg))
	serve([]string{"OESIM_LG_LAYOUT=9"})
	got = kinds()
	assert.Zero(t, got[openedge.LogEntry], "%v", got)
	assert.Positive(t, got[openedge.LogOldEntry])
	assert.Equal(t, 1, got[openedge.LogDate], "the broker's session's date line (it writes the shutdown's lines too)")
	data, err := os.ReadFile(lg)
	require.NoError(t, err)
	assert.Contains(t, string(data), "Multi-user session begin. (333)\n", "the number last")

	r := env.run(t, []string{"OESIM_LG_LAYOUT=8"}, "", "proutil", db, "-C", "busy")
	assert.NotEqual(t, exitOK, r.code)
	assert.Contains(t, r.out, "OESIM_LG_LAYOUT")
}

func sum(m map[openedge.LogLineKind]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
