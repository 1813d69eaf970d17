package run

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/sysproc"
)

// TestForeignSession: a log line written at or after the journal's last
// record by a process the journal never started is someone else's; lines
// before it, lines of the run's utilities and brokers, and lines without
// OpenEdge's time and PID are not.
func TestForeignSession(t *testing.T) {
	since := time.Date(2026, 11, 28, 15, 29, 41, 50_400_000, time.UTC)
	ours := journalledPIDs([]journal.Record{
		{Job: "load:PUB.Customer", State: journal.Running, Proc: &sysproc.ID{PID: 100}},
		{Job: "serve:target", State: journal.Done, Broker: &sysproc.ID{PID: 200}},
	})
	for _, tc := range []struct {
		name, log string
		line      int
	}{
		{"only the run's, before and after", "[2026/11/28@15:29:40.000+0000] P-999 T-0 I PROUTIL : (451) before the kill\n" +
			"[2026/11/28@15:29:42.000+0000] P-100 T-0 I PROUTIL : Binary load of table PUB.Customer (6256)\n" +
			"[2026/11/28@15:29:43.000+0000] P-200 T-0 I BROKER  : (1613) Shutdown is executing.\n", 0},
		{"a broker the run did not start", "[2026/11/28@15:29:42.000+0000] P-100 T-0 I PROUTIL : (6256)\n" +
			"[2026/11/28@15:30:00.000+0000] P-300 T-0 I BROKER  : (333) Multi-user session begin.\n", 2},
		{"the same millisecond as the last record", "[2026/11/28@15:29:41.050+0000] P-301 T-0 I PROUTIL : (451)\n", 1},
		{"another zone, after", "[2026/11/28@16:29:42.000+0100] P-302 T-0 I ABL 5: (452) Login by dba.\n", 1},
		{"lines without a time and PID", "a note\n\n[not a time] P-303\n", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lg := filepath.Join(t.TempDir(), "db.lg")
			require.NoError(t, os.WriteFile(lg, []byte(tc.log), 0o644))
			text, n, err := foreignSession(lg, since, ours)
			require.NoError(t, err)
			assert.Equal(t, tc.line, n, text)
		})
	}
	text, n, err := foreignSession(filepath.Join(t.TempDir(), "gone.lg"), since, ours)
	require.NoError(t, err)
	assert.Zero(t, n, text)
}
