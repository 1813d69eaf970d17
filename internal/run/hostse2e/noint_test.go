package hostse2e

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/run"
	"github.com/oedl/oedl/internal/schedule"
)

// A load that dies on the target host of a run across hosts, loading with
// -i (the default): the rebuild is the same as on one machine, the target
// created again on its host (its record there names the files) and every
// table loaded again, so -i holds on --hosts too (docs/decisions.md).
func TestHostsNoIntegrityLoadDies(t *testing.T) {
	h := newHostsEnv(t, "sports")
	big := largest(t, h.fx.planDir)
	data, err := os.ReadFile(h.hosts)
	require.NoError(t, err)
	// The target host's utilities get the fault (oesim's crash-after:
	// SIGKILL of the load half way), once.
	s := string(data)
	i := strings.Index(s, "  tgt:\n")
	require.Positive(t, i)
	s += fmt.Sprintf("    env:\n      OESIM_FAULTS: \"load:%s:crash-after=50,once\"\n", big)
	require.NoError(t, os.WriteFile(h.hosts, []byte(s), 0o644))

	r := h.oedl(nil, h.runArgs()...)
	h.keep()
	require.Equal(t, 0, r.code, "%s\n%s", r.stdout, r.stderr)
	assert.Contains(t, r.stderr, "warning: loads without crash protection (-i)")
	h.verified()
	var decided, created int
	for _, rec := range h.journal() {
		if rec.Kind == run.KindRebuild && rec.State == journal.Repair {
			decided++
		}
		if rec.Job == string(schedule.KindCreateTarget) && rec.State == journal.Done {
			created++
			assert.Equal(t, "tgt", rec.Host)
		}
		assert.NotEqual(t, string(schedule.KindRepair), rec.Kind, "an area of a no-integrity target was truncated: %s", rec.Job)
	}
	assert.Equal(t, 1, decided, "one rebuild decided")
	assert.Equal(t, 2, created, "the target created again on its host")
}
