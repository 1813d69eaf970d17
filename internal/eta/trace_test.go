package eta

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/estimate"
	"github.com/oedl/oedl/internal/event"
)

// The trace (oedl run --eta-trace) is appended to in the work directory:
// a link planted under its name (a resume's work directory is not checked
// again) made oedl append JSON to whatever it led to, a database's extent
// included; a hard link is the file itself under a second name. Both are
// refused, the file they lead to unchanged (safety trial 7). A file of its
// own is appended to.
func TestTraceNeverThroughALink(t *testing.T) {
	for how, link := range map[string]func(oldname, newname string) error{"symbolic link": os.Symlink, "hard link": os.Link} {
		t.Run(how, func(t *testing.T) {
			extent := filepath.Join(t.TempDir(), "prod_7.d1")
			require.NoError(t, os.WriteFile(extent, []byte("the source's data"), 0o644))
			trace := filepath.Join(t.TempDir(), "eta-trace.jsonl")
			require.NoError(t, link(extent, trace))
			tr := &Tracker{cfg: Config{TracePath: trace}}
			assert.Error(t, tr.trace(event.Event{}, estimate.Left{}, &estimate.Forecast{}))
			got, err := os.ReadFile(extent)
			require.NoError(t, err)
			assert.Equal(t, "the source's data", string(got))
		})
	}
	trace := filepath.Join(t.TempDir(), "eta-trace.jsonl")
	tr := &Tracker{cfg: Config{TracePath: trace}}
	require.NoError(t, tr.trace(event.Event{}, estimate.Left{}, &estimate.Forecast{}))
	require.NoError(t, tr.trace(event.Event{}, estimate.Left{}, &estimate.Forecast{}))
	got, err := os.ReadFile(trace)
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(string(got), "\n"), "two forecasts, one line each")
}
