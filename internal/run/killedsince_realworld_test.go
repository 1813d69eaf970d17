package run

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/manifest"
)

// realWorldLogs are the database logs of the top-level testdata/: each
// reproduces a layout OpenEdge really writes (testdata/README.md says
// where each was seen).
const realWorldLogs = "../../testdata/dblog"

// TestNoSessionSinceKillRealLogs runs the killed run's check over every real
// layout: a target's log with a stranger's entry since the kill, a remote
// client's, or lines oedl cannot place refuses the resume naming the line;
// one where only the run's processes wrote since, or everything is older,
// lets it go on.
func TestNoSessionSinceKillRealLogs(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse("2006/01/02@15:04:05.000-0700", s)
		require.NoError(t, err)
		return v
	}
	const used, remote, unplaced = "was used since", "a remote client's entry", "has no time and process id oedl can read"
	for _, tc := range []struct {
		file, name string
		last       time.Time // the journal's last record
		ours       []int
		unrecorded int
		refusal    string // "" when the resume goes on
		line       int
	}{
		{"broker_windows_crlf_11.7.lg", "a server the run did not start, seconds after", at("2026/03/05@08:13:00.000+0100"), []int{5120}, 0, used, 9},
		{"broker_windows_crlf_11.7.lg", "nothing since", at("2026/03/05@08:30:00.000+0100"), nil, 0, "", 0},
		{"remote_client_blank_pid_12.2.lg", "a remote client since", at("2026/06/11@10:05:00.000+0000"), []int{40211, 40388}, 0, remote, 2},
		{"utf8_bom_12.8.lg", "a stranger on the first line, behind a byte order mark", at("2026/11/28@15:29:40.000+0000"), []int{27432}, 0, used, 1},
		{"utf8_bom_12.8.lg", "the run's own, behind a byte order mark", at("2026/11/28@15:29:40.000+0000"), []int{27400, 27432}, 0, "", 0},
		{"zones_dst_12.8.lg", "an hour earlier by the clock, seconds later in time", at("2026/11/01@01:59:59.000-0400"), []int{9001}, 0, used, 2},
		{"zones_dst_12.8.lg", "a zone east of Greenwich", at("2026/11/01@11:30:00.000+0530"), []int{9001, 9044}, 0, used, 3},
		{"old_layout_9.1.lg", "no process ids before 10.1A", at("2026/11/28@15:00:00.000+0000"), nil, 9, unplaced, 3},
		{"converted_9_to_11.7.lg", "old lines older than a later entry", at("2026/03/04@21:14:03.000+0100"), []int{31002}, 0, "", 0},
		{"converted_9_to_11.7.lg", "old lines and then a stranger", at("2009/02/02@09:00:00.000+0100"), nil, 0, used, 5},
		{"converted_9_to_11.7.lg", "old lines of no known time, the entries ours", at("2009/02/02@09:00:00.000+0100"), []int{31002}, 0, unplaced, 2},
		{"wrapped_and_bookmark_10.2B.lg", "a wrapped message and a bookmark go with their entry", at("2026/05/20@14:02:00.000-0300"), []int{18020, 18102}, 0, "", 0},
		{"wrapped_and_bookmark_10.2B.lg", "a client since", at("2026/05/20@14:02:00.000-0300"), []int{18020}, 0, used, 3},
		{"helpers_replication_12.8.lg", "the broker and its helpers, then rfutil", at("2026/08/03@22:00:00.000+0000"), []int{5001, 5020, 5023, 5026, 5029}, 0, used, 7},
		{"helpers_replication_12.8.lg", "a shutdown by someone", at("2026/08/03@22:20:00.000+0000"), []int{5001}, 0, used, 9},
		{"torn_nul_tail_12.8.lg", "a lost machine's NULs", at("2026/11/28@15:29:41.000+0000"), []int{27432}, 0, unplaced, 3},
		{"prolog_truncated_12.8.lg", "a cut first line, then entries older than the kill", at("2026/11/28@15:29:42.000+0000"), nil, 0, "", 0},
		{"prolog_truncated_12.8.lg", "a cut first line, then only the run's entries since", at("2026/11/28@15:29:40.000+0000"), []int{27400, 27432}, 0, unplaced, 1},
		{"brz_12.8.lg", "Portuguese: one unrecorded utility within the window", at("2026/11/28@15:29:42.000-0300"), []int{27400}, 1, "", 0},
		{"brz_12.8.lg", "Portuguese: a stranger", at("2026/11/28@15:29:42.000-0300"), []int{27400}, 0, used, 3},
	} {
		t.Run(tc.file+"/"+tc.name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(realWorldLogs, tc.file))
			require.NoError(t, err)
			target := filepath.Join(t.TempDir(), "tgt")
			require.NoError(t, os.WriteFile(target+manifest.SuffixLog, data, 0o644))
			ours := map[int]bool{}
			for _, pid := range tc.ours {
				ours[pid] = true
			}
			r := &runner{cfg: &Config{Target: target}, lastRecord: tc.last, ownPIDs: ours, unrecorded: tc.unrecorded}
			err = r.noSessionSinceKill(manifest.OS{}, &manifest.Record{})
			if tc.refusal == "" {
				assert.NoError(t, err)
				return
			}
			var pe *PreconditionError
			require.ErrorAs(t, err, &pe)
			assert.Contains(t, err.Error(), tc.refusal)
			assert.Regexp(t, regexp.QuoteMeta(target+".lg line "+strconv.Itoa(tc.line))+`\D`, err.Error())
			assert.NotContains(t, err.Error(), `\r"`, "the line is named without its CR")
		})
	}
}
