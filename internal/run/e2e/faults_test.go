package e2e

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/journal"
)

// faultCase is one oesim fault on one utility: where, what and how often.
type faultCase struct {
	op, kind string
}

// allFaultKinds are every fault kind of docs/oesim-faults.md on the
// operations it can strike (corrupt and truncate-after act on the file a
// dump writes).
var allFaultKinds = []faultCase{
	{"dump", "crash-after=100"}, {"dump", "crash"}, {"dump", "exit=3"}, {"dump", "hang"}, {"dump", "hang-after=100"},
	{"dump", "corrupt"}, {"dump", "corrupt=50"}, {"dump", "truncate-after=100"}, {"dump", "truncate-after=0"},
	{"dump", "diskfull-after=20KB"}, {"dump", "delay=300ms"},
	{"load", "crash-after=100"}, {"load", "crash"}, {"load", "exit=3"}, {"load", "hang"}, {"load", "hang-after=100"},
	{"load", "diskfull-after=20KB"}, {"load", "delay=300ms"},
}

// ciFaultKinds are those CI runs: the two that --resume could never get
// past on threaded tables (a corrupt or short section was reloaded from
// the same bad file for ever), a load that dies half way, and a dump that
// fails outright.
var ciFaultKinds = []faultCase{
	{"dump", "corrupt"}, {"dump", "truncate-after=100"}, {"load", "crash-after=100"}, {"dump", "exit=3"},
}

// TestEveryFaultThenResume: every oesim fault kind, on a table dumped
// whole and on one dumped in threaded sections, firing once or every
// time. A fault that fires once is retried or repaired within the run; one
// that fires every time stops the run with exit 1 saying how to continue;
// then --resume, with the fault gone, ends verified. No hand-made fix, no
// table loaded twice, and the target's own tabanalys counts what the
// source's does.
//
// CI runs ciFaultKinds; OEDL_E2E_EXHAUSTIVE=1 runs allFaultKinds.
func TestEveryFaultThenResume(t *testing.T) {
	kinds := ciFaultKinds
	if os.Getenv("OEDL_E2E_EXHAUSTIVE") != "" {
		kinds = allFaultKinds
	}
	layouts := []struct {
		name string
		args []string
	}{
		{"whole", nil},
		{"threaded", []string{"--threaded-dump-min", "64KB", "--dump-jobs", "3", "--load-jobs", "2"}},
	}
	const table = "PUB.OrderLine" // the largest table: dumped in sections when threaded
	// A repair whose truncate area fails once is retried: every step of it
	// must be safe to repeat (its proshut found the broker it had stopped
	// already, and failed with (1423)).
	repairRetried := "load:" + table + ":exit=3,once; truncate:exit=3,once"
	for _, layout := range layouts {
		t.Run(layout.name+"/repair retried after its truncate failed", func(t *testing.T) {
			faultThenResume(t, layout.args, repairRetried, true)
		})
		for _, fc := range kinds {
			for _, often := range []string{"once", "always"} {
				rule := fmt.Sprintf("%s:%s:%s", fc.op, table, fc.kind)
				if often == "once" {
					rule += ",once"
				}
				t.Run(fmt.Sprintf("%s/%s:%s/%s", layout.name, fc.op, fc.kind, often), func(t *testing.T) {
					faultThenResume(t, layout.args, rule, often == "once")
				})
			}
		}
	}
}

// faultThenResume runs with the fault rule; a fault that fires once must
// be handled within the run.
func faultThenResume(t *testing.T, layout []string, rule string, once bool) {
	e := newEnv(t, "sports")
	args := append([]string{"--retries", "1", crashSafe}, layout...)
	if strings.Contains(rule, "hang") {
		args = append(args, "--job-timeout", "2s")
	}
	r := e.oedl([]string{"OESIM_FAULTS=" + rule}, e.runArgs(args...)...)
	switch r.code {
	case 0:
	case 1:
		require.False(t, once, "a fault that fired once stopped the run:\n%s", r.stderr)
		// Stopped: the message names the job, its log and what to do.
		assert.Contains(t, r.stderr, "PUB.OrderLine")
		assert.Contains(t, r.stderr, "log: "+e.work+"/logs/")
		assert.Contains(t, r.stderr, "oedl run --resume --work "+e.work)
		assert.NotContains(t, r.stderr, "verified:")
		st := e.oedl(nil, "status", "--work", e.work)
		assert.Equal(t, 1, st.code, "status of a failed run: %s", st.stdout)
		// The fault is gone (the DBA fixed the cause): --resume finishes.
		r = e.oedl(nil, e.runArgs(append(args, "--resume")...)...)
		require.Equal(t, 0, r.code, "the resume after the fault is gone:\n%s", r.stderr)
	default:
		t.Fatalf("exit %d (want 0, or 1 and a resume):\n%s", r.code, r.stderr)
	}
	if !strings.Contains(rule, "delay") {
		failed := 0
		for _, rec := range e.journal() {
			if rec.State == journal.Failed && rec.Job != journal.RunJob {
				failed++
			}
		}
		assert.Positive(t, failed, "no failure journalled: did the fault strike?")
	}
	e.verified()
	assert.Equal(t, tabanalysCounts(t, e, e.source), tabanalysCounts(t, e, e.target),
		"the target's own tabanalys counts what the source's does")
	st := e.oedl(nil, "status", "--work", e.work)
	assert.Equal(t, 0, st.code, st.stdout)
	assert.Contains(t, st.stdout, "verify: MATCH")
}
