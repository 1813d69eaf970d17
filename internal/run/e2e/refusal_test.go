package e2e

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRefusalEndsTheJob: a dump that oesim's proutil refuses with (43)
// and errno 13 (permission denied: OESIM_FAULTS open-errno=13), in each
// message language, ends its job at the first attempt, with that
// message, though --retries allows two more; errno 24 (too many open
// files, which may pass) keeps the retries. The resume, with the cause
// gone, finishes the run verified.
func TestRefusalEndsTheJob(t *testing.T) {
	schema := eventSchema(t)
	for _, tc := range []struct {
		lang, promsgs string
		errno         string
		attempts      int
	}{
		{"en", "promsgs", "13", 1},
		{"pt", filepath.Join("prolang", "brz", "promsgs.brz"), "13", 1},
		{"de", filepath.Join("prolang", "ger", "promsgs.ger"), "13", 1},
		{"en transient errno", "promsgs", "24", 3},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			e := newEnv(t, "sports")
			env := []string{"PROMSGS=" + filepath.Join(e.fx.dlc, tc.promsgs), "OESIM_FAULTS=dump:PUB.Order:open-errno=" + tc.errno}
			r := e.oedl(env, e.runArgs("--json", "--retries", "2")...)
			require.Equal(t, 1, r.code, r.stderr)
			events := checkEvents(t, schema, r.stdout)
			var failed []ev
			for _, f := range kinds(events, "job_failed") {
				if f.Job == "dump:PUB.Order" {
					failed = append(failed, f)
				}
			}
			require.Len(t, failed, tc.attempts, "%+v", failed)
			last := failed[len(failed)-1]
			assert.Equal(t, "exit", last.Reason)
			assert.False(t, last.Retrying)
			assert.Equal(t, tc.attempts, max(1, last.Attempt))
			assert.Contains(t, r.stderr, "errno = "+tc.errno+". (43)", "its message")
			if tc.attempts == 1 {
				assert.Contains(t, r.stderr, "not tried again")
			}

			r = e.oedl([]string{"PROMSGS=" + filepath.Join(e.fx.dlc, tc.promsgs)}, e.runArgs("--resume")...)
			require.Equal(t, 0, r.code, r.stderr)
			assert.True(t, e.verified().OK)
		})
	}
}

// TestDiskFullEveryLanguage: a load that fills its disk is told so by
// its message number, (6091) as OpenEdge prints it, in the Portuguese and
// German message files as in English: not repaired and loaded again, not
// retried, the extent named; the run exits 1; the resume ends verified.
func TestDiskFullEveryLanguage(t *testing.T) {
	for _, tc := range []struct{ lang, promsgs string }{
		{"en", "promsgs"},
		{"pt", filepath.Join("prolang", "brz", "promsgs.brz")},
		{"de", filepath.Join("prolang", "ger", "promsgs.ger")},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			e := newEnv(t, "sports")
			lang := "PROMSGS=" + filepath.Join(e.fx.dlc, tc.promsgs)
			r := e.oedl([]string{lang, "OESIM_FAULTS=load:*:diskfull-after=2000,once"}, e.runArgs(crashSafe)...)
			require.Equal(t, 1, r.code, r.stderr)
			assert.Contains(t, r.stderr, "ran out of disk space (errno 28")
			assert.Regexp(t, `bkioWrite:[^\n]* /[^\n]*\.d\d+\. \(6091\)`, r.stderr, "the utility's own line, naming the extent")
			assert.Contains(t, r.stderr, "not tried again: it would fill the same disk")
			r = e.oedl([]string{lang}, e.runArgs("--resume")...)
			require.Equal(t, 0, r.code, r.stderr)
			assert.True(t, e.verified().OK)
		})
	}
}
