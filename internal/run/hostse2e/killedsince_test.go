package hostse2e

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/oedl/oedl/internal/journal"
)

// TestHostsResumeRefusesItsTargetUsedSince (safety-hosts): kill -9 of
// oedl while it dumps on the source's host and its target, on the
// target's host, is served by the run's broker; the DBA, on the target's
// host, shuts that broker down and serves the half-made target himself
// (a session of his, in its log), then shuts it down. The old resume
// skipped the check of the target's log on a run across hosts (it read
// logs on this machine only) and took the target for its own. Now the
// log, read on the target's host, shows a process the journal never
// started after its last record: exit 3 naming the host, the log and the
// line, every byte of the target as the DBA left it. With no one in
// between, the resume verifies (TestHostsResumeAfterTheDBA "nothing").
func TestHostsResumeRefusesItsTargetUsedSince(t *testing.T) {
	h := newHostsEnv(t, "sports")
	h.ownSource(t)
	h.killInTheDumps(t)
	assert.True(t, h.journalHas(func(r journal.Record) bool { return r.State == journal.Running && r.Host == "tgt" && r.Proc != nil }),
		"the PIDs of the utilities on the target's host journalled")
	// The DBA acts after the kill, later than the run's own unrecorded
	// utilities could write (run.killWindow, 3s, after the journal's
	// last record).
	recs := h.journal()
	for time.Since(recs[len(recs)-1].Time) <= 3*time.Second {
		time.Sleep(50 * time.Millisecond) // a person's pace, not work
	}
	target := filepath.Join(h.lab.Root, "new", "sports")
	tgt := h.on("tgt")
	tgt("proshut", target, "-by") // the killed run's broker
	tgt("proserve", target)
	tgt("proshut", target, "-by")
	before := h.sumsOn(t, "tgt", filepath.Dir(target))

	r := h.oedl(nil, h.runArgs("--resume")...)
	h.keep()
	assert.Equal(t, 3, r.code, "%s\n%s", r.stdout, r.stderr)
	for _, want := range []string{"host tgt: ", "was used since this run was killed", target + ".lg line"} {
		assert.Contains(t, r.stderr, want)
	}
	assert.Equal(t, before, h.sumsOn(t, "tgt", filepath.Dir(target)), "every byte of the target as the DBA left it")
}
