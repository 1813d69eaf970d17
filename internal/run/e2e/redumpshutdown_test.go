package e2e

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/journal"
)

// TestRedumpBesideTheSourceShutdown: a dump queued again after its load
// failed on the file (corrupt) while the source's shutdown is under way,
// made slow (proshut waits 3 s before it acts) so that the two meet: the
// dump waits for the shutdown to end, then opens the source single-user,
// and the run ends verified. On the old code the dump started during the
// shutdown; when it was still connected as the broker went, it failed,
// brokerGone found the broker gone and the run stopped: the flake of
// TestEveryFaultThenResume/whole/dump:corrupt/once (docs/decisions.md).
func TestRedumpBesideTheSourceShutdown(t *testing.T) {
	e := newEnv(t, "sports")
	rule := "dump:PUB.OrderLine:corrupt,once; proshut:delay=3s"
	r := e.oedl([]string{"OESIM_FAULTS=" + rule}, e.runArgs("--retries", "1", crashSafe)...)
	require.Equal(t, 0, r.code, r.stderr)
	e.verified()
	var shutStart, shutEnd, redump time.Time
	for _, rec := range e.journal() {
		switch {
		case rec.Job == "shutdown:source" && rec.State == journal.Started:
			shutStart = rec.Time
		case rec.Job == "shutdown:source" && rec.State == journal.Done:
			shutEnd = rec.Time
		case rec.Job == "dump:PUB.OrderLine@r1" && rec.State == journal.Started:
			redump = rec.Time
		}
	}
	require.False(t, redump.IsZero(), "the table was dumped again")
	require.False(t, shutEnd.IsZero(), "the source was shut down")
	assert.False(t, redump.After(shutStart) && redump.Before(shutEnd),
		"the dump again started at %s, during the source's shutdown (%s to %s)", redump.Format("05.000"), shutStart.Format("05.000"), shutEnd.Format("05.000"))
}
