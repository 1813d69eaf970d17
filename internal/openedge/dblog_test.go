package openedge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseLogLine: the stamps OpenEdge writes are read with their zone
// and process; what only looks like one is no entry.
func TestParseLogLine(t *testing.T) {
	utc1 := time.FixedZone("", 3600)
	for _, tc := range []struct {
		name, line string
		want       LogLine
	}{
		{"a broker's entry", "[2019/01/01@14:46:51.345+0100] P-10860      T-17952 I BROKER  0: (333)   Multi-user session begin.",
			LogLine{Kind: LogEntry, At: time.Date(2019, 1, 1, 14, 46, 51, 345e6, utc1), PID: 10860, Msg: 333}},
		{"CRLF", "[2019/01/01@14:46:51.345+0100] P-10860      T-17952 I BROKER  0: (333)   Multi-user session begin.\r",
			LogLine{Kind: LogEntry, At: time.Date(2019, 1, 1, 14, 46, 51, 345e6, utc1), PID: 10860, Msg: 333}},
		{"a SQL server's dashes", "[2019/01/01@14:46:51.349+0100] P-11111      T-6060  I SQLSRV2 1: (-----) SQL Server 11.7.04 started",
			LogLine{Kind: LogEntry, At: time.Date(2019, 1, 1, 14, 46, 51, 349e6, utc1), PID: 11111}},
		{"a remote client's blank process", "[2019/01/01@14:46:51.349+0100] P-           T-      I ABL    27: (452)   Login by report.",
			LogLine{Kind: LogEntry, At: time.Date(2019, 1, 1, 14, 46, 51, 349e6, utc1), Msg: 452}},
		{"a process 0", "[2019/01/01@14:46:51.349+0100] P-0 T-1 I ABL 5: (452) Login.", LogLine{Kind: LogOther}},
		{"month 13", "[2019/13/01@14:46:51.349+0100] P-5 T-1 I ABL 5: (452) Login.", LogLine{Kind: LogOther}},
		{"no zone", "[2019/01/01@14:46:51.349] P-5 T-1 I ABL 5: (452) Login.", LogLine{Kind: LogOther}},
		{"the docs' two-digit year", "[19/01/01@14:46:51.349+0100] P-5 T-1 I ABL 5: (452) Login.", LogLine{Kind: LogOther}},
		{"no thread", "[2019/01/01@14:46:51.349+0100] P-5 I ABL 5: (452) Login.", LogLine{Kind: LogOther}},
		{"a session's date line", "                Tue Jan  1 15:28:10 2019", LogLine{Kind: LogDate}},
		{"a date line in Portuguese", "                Sáb Nov 28 15:29:40 2026", LogLine{Kind: LogDate}},
		{"the old layout", "12:26:02 Usr     6: Login by dba on /dev/pts/2. (452)", LogLine{Kind: LogOldEntry, Msg: 452}},
		{"the old layout's broker banner", "12:25:08 BROKER     This broker will terminate when session ends. (5405)", LogLine{Kind: LogOldEntry, Msg: 5405}},
		{"a wrapped message", "for user 9.", LogLine{Kind: LogOther}},
		{"NULs", "\x00\x00\x00", LogLine{Kind: LogOther}},
		{"year 1 (the fuzzer's)", "[0001/01/01@00:00:00.000+0000] P- T-", LogLine{Kind: LogOther}},
		{"blanks", " \t", LogLine{Kind: LogBlank}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ParseLogLine(tc.line)
			assert.Equal(t, tc.want.Kind, got.Kind)
			assert.True(t, tc.want.At.Equal(got.At), "%v, want %v", got.At, tc.want.At)
			assert.Equal(t, tc.want.PID, got.PID)
			assert.Equal(t, tc.want.Msg, got.Msg)
		})
	}
}

// FuzzParseLogLine: no panic; an entry has a time and no negative
// process; a line reads the same with a Windows CR or a byte order mark;
// a NUL is never blank.
func FuzzParseLogLine(f *testing.F) {
	logs, err := filepath.Glob(filepath.Join(realWorld, "dblog", "*.lg"))
	require.NoError(f, err)
	for _, p := range logs {
		b, err := os.ReadFile(p)
		require.NoError(f, err)
		for _, line := range strings.Split(string(b), "\n") {
			f.Add(line)
		}
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.Contains(line, "\n") {
			return
		}
		l := ParseLogLine(line)
		if l.Kind == LogEntry {
			require.False(t, l.At.IsZero())
			require.GreaterOrEqual(t, l.PID, 0)
		}
		if strings.ContainsRune(line, 0) {
			require.NotEqual(t, LogBlank, l.Kind)
		}
		if !strings.HasSuffix(line, "\r") {
			require.Equal(t, l, ParseLogLine(line+"\r"))
		}
		if !strings.HasPrefix(line, "\ufeff") {
			require.Equal(t, l, ParseLogLine("\ufeff"+line))
		}
	})
}
