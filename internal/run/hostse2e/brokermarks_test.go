package hostse2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Safety trial 13 across hosts: the source's host has a broker another
// oedl run started (its mark, OEDL_RUN_WORK, read by the script over ssh
// from /proc there), or the DBA's (no mark). The run is refused at its
// preflight (exit 3) naming that run's work directory, or the DBA's
// broker, and the broker runs on with its pid: it was taken for the DBA's
// and proshut -by advised, which would cut the other run's dumps.
func TestHostsLeaveABrokerOfAnotherRun(t *testing.T) {
	for _, tc := range []struct {
		name, mark, want string
	}{
		{"another oedl run's", "OEDL_RUN_WORK=/srv/other-run/work", "an oedl run in --work /srv/other-run/work started, and that run is not running"},
		{"the DBA's", "", "served by a broker oedl did not start (276)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHostsEnv(t, "sports")
			src := h.lab.Hosts["src"]
			db := filepath.Join(h.lab.Root, "db", "sports")
			argv := []string{"env", "DLC=" + h.fx.dlc}
			if tc.mark != "" {
				argv = append(argv, tc.mark)
			}
			out, err := src.Exec(append(argv, filepath.Join(h.fx.dlc, "bin", "proserve"), db)...)
			require.NoError(t, err, "%s", out)
			t.Cleanup(func() { _, _ = src.Exec("env", "DLC="+h.fx.dlc, filepath.Join(h.fx.dlc, "bin", "proshut"), db, "-by") })
			brokers := src.Pids("_mprosrv")
			require.Len(t, brokers, 1)

			r := h.oedl(nil, h.runArgs()...)
			assert.Equal(t, 3, r.code, "%s\n%s", r.stdout, r.stderr)
			assert.Contains(t, r.stderr, tc.want)
			if tc.mark != "" {
				assert.Contains(t, r.stderr, fmt.Sprintf("(pid %d)", brokers[0]))
				assert.NotContains(t, r.stderr, "proshut")
			}
			assert.Equal(t, brokers, src.Pids("_mprosrv"), "the broker runs on with its pid")
			for _, rec := range h.journal() {
				assert.False(t, strings.HasPrefix(rec.Job, "serve") || strings.HasPrefix(rec.Job, "dump"), "%s ran", rec.Job)
			}
		})
	}
}
