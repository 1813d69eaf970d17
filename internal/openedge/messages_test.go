package openedge

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readOutput(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "messages", name))
	require.NoError(t, err)
	return string(b)
}

func TestScanMessages(t *testing.T) {
	got := ScanMessages(readOutput(t, "dump_12.7_threaded.out"))
	nums := make([]int, len(got))
	for i, m := range got {
		nums[i] = m.Num
	}
	assert.Equal(t, []int{14774, 17813, 17816, 17816, 14776, 13932, 6254}, nums)
	assert.Equal(t, Message{Num: 17816, Text: "222 records for bracket 2.", Line: 6}, got[2])
	// "Using index CustNum (13) for ..." carries (13) mid-line: only the
	// number at the end of the line is the message number.
	assert.Equal(t, 17813, got[1].Num)

	m := ScanMessages(readOutput(t, "dump_cannot_open.out"))
	require.Len(t, m, 1)
	assert.Equal(t, "Cannot find or open file /db/s2k.db, errno = 2.", m[0].Text, "leading ** dropped")
	assert.Equal(t, "Cannot find or open file /db/s2k.db, errno = 2. (43)", m[0].String())

	crlf := ScanMessages(readOutput(t, "procopy_crlf.out"))
	require.Len(t, crlf, 1)
	assert.Equal(t, MsgDBCopied, crlf[0].Num)
	assert.Equal(t, 3, crlf[0].Line)

	assert.Empty(t, ScanMessages(""))
	assert.Empty(t, ScanMessages("()\n(x1)\n(12\n12)\nfoo (99999999999)\n(007)\n(0)\n"))
}

func TestHasMessage(t *testing.T) {
	out := readOutput(t, "procopy_crlf.out")
	assert.True(t, HasMessage(out, MsgDBCopied))
	assert.False(t, HasMessage(out, 1234567), "a number followed by more text is not a message")
	assert.False(t, HasMessage(readOutput(t, "dump_12.7_threaded.out"), 13), "(13) mid-line is not message 13")
	assert.True(t, HasMessage(readOutput(t, "busy_multi.out"), MsgInUseMulti))
	assert.False(t, HasMessage(readOutput(t, "busy_multi.out"), MsgInUseSingle))
}

func TestParseDumpOutput(t *testing.T) {
	tests := []struct {
		file    string
		want    DumpResult
		wantErr string
	}{
		{"dump_12.7_threaded.out", DumpResult{Records: 1117, Threads: 2, Brackets: []int64{895, 222}}, ""},
		{"dump_12.7_threaded_de.out", DumpResult{Records: 1117, Threads: 2, Brackets: []int64{895, 222}}, ""},
		{"dump_single.out", DumpResult{Records: 1117, Threads: 1}, ""},
		{"dump_cannot_open.out", DumpResult{}, "dump exited 0 without its success message (6254); last message: Cannot find or open file /db/s2k.db, errno = 2. (43)"},
		{"load_ok.out", DumpResult{}, "without its success message (6254)"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := ParseDumpOutput(readOutput(t, tt.file))
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}

	_, err := ParseDumpOutput("Binary Dump complete. (6254)\n")
	assert.ErrorContains(t, err, "no record count (13932)", "a marker without a count is not a result")
	_, err = ParseDumpOutput("Dumped many records. (13932)\nBinary Dump complete. (6254)\n")
	assert.ErrorContains(t, err, `line 1: no number in "Dumped many records. (13932)"`)
	_, err = ParseDumpOutput("Thread 1 dumped\nlots of records for bracket x. (17816)\nDumped 3 records. (13932)\nBinary Dump complete. (6254)\n")
	assert.ErrorContains(t, err, "line 2: malformed bracket message")
}

func TestParseLoadOutput(t *testing.T) {
	tests := []struct {
		file    string
		want    LoadResult
		wantErr string
	}{
		{"load_ok.out", LoadResult{}, ""},
		{"load_with_count.out", LoadResult{Records: 1117, CountKnown: true}, ""},
		{"load_large_count_brz.out", LoadResult{Records: 31072458, CountKnown: true}, ""},
		{"load_rebuild_warning.out", LoadResult{Records: 91023, CountKnown: true, Deactivated: []string{"order-line", "item-num"}}, ""},
		{"load_rebuild_warning_de.out", LoadResult{Records: 91023, CountKnown: true, Deactivated: []string{"order-line", "item-num"}}, ""},
		{"dump_single.out", LoadResult{}, "load exited 0 without its success message (6256)"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := ParseLoadOutput(readOutput(t, tt.file))
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// A load whose -dumplist names three tables (Portuguese, CRLF, the third
// in two files): one result per table in list order, read by structure.
func TestParseLoadBatchOutput(t *testing.T) {
	batch := readOutput(t, "load_batch_pt_crlf.out")
	tests := []struct {
		name    string
		out     string
		n       int
		want    []LoadResult
		wantErr string
	}{
		{"three tables", batch, 3, []LoadResult{
			{Records: 51, CountKnown: true, Deactivated: []string{"state"}},
			{Records: 0, CountKnown: true},
			{Records: 1300, CountKnown: true, Deactivated: []string{"local-default", "country"}},
		}, ""},
		{"one table is a batch of one", readOutput(t, "load_with_count.out"), 1, []LoadResult{{Records: 1117, CountKnown: true}}, ""},
		{"a table too many in the list", batch, 4, nil, "a load of 4 tables printed (6256) 3 times"},
		{"killed in the third table", batch[:strings.LastIndex(batch, "Carregados")], 3, nil, "printed (6256) 2 times"},
		{"a table without its count", strings.Replace(batch, "Carregados 0 registros. (15167)\r\n", "", 1), 3, []LoadResult{
			{Records: 51, CountKnown: true, Deactivated: []string{"state"}},
			{},
			{Records: 1300, CountKnown: true, Deactivated: []string{"local-default", "country"}},
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseLoadBatchOutput(tt.out, tt.n)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseIdxbuildOutput(t *testing.T) {
	got, err := ParseIdxbuildOutput(readOutput(t, "idxbuild_ok.out"))
	require.NoError(t, err)
	assert.Equal(t, IdxbuildResult{Indexes: 12, Errors: 0}, got)

	for _, f := range []string{"idxbuild_errors.out", "idxbuild_errors_de.out"} {
		got, err = ParseIdxbuildOutput(readOutput(t, f))
		require.ErrorContains(t, err, "idxbuild rebuilt 11 indexes with 1 error(s)", f)
		assert.Equal(t, IdxbuildResult{Indexes: 11, Errors: 1}, got, "%s: numbers are reported with the error", f)
	}

	_, err = ParseIdxbuildOutput(readOutput(t, "idxbuild_ai_enabled.out"))
	require.ErrorContains(t, err, "without its success message (11465); last message: You cannot perform this operation with after-imaging or 2phase enabled (1525)")

	_, err = ParseIdxbuildOutput("12 indexes were rebuilt. (11465)\n")
	require.ErrorContains(t, err, "no closing line with the error count")
	_, err = ParseIdxbuildOutput("12 indexes were rebuilt. (11465)\nIndex rebuild complete.\n")
	require.ErrorContains(t, err, `line 2: idxbuild's closing line after (11465) has no error count: "Index rebuild complete."`)
	_, err = ParseIdxbuildOutput("12 indexes were rebuilt. (11465)\nA total of 0K was used for area 8. (11483)\n0 error(s)\n")
	require.ErrorContains(t, err, "is a numbered message, not the error count", "the count is on the very next line or not at all")
}

func TestCheckSuccess(t *testing.T) {
	tests := []struct {
		utility string
		file    string
		exit    int
		wantErr string
	}{
		{"dump", "dump_single.out", 0, ""},
		{"dump", "dump_single.out", 2, "dump failed with exit code 2; last message: Binary Dump complete. (6254)"},
		{"dump", "dump_cannot_open.out", 0, "dump exited 0 without its success message (6254)"},
		{"dumpspecified", "dump_single.out", 0, ""},
		{"load", "load_ok.out", 0, ""},
		{"load", "dump_single.out", 0, "load exited 0 without its success message (6256)"},
		{"idxbuild", "idxbuild_ok.out", 0, ""},
		{"idxbuild", "idxbuild_errors.out", 0, "idxbuild failed: idxbuild rebuilt 11 indexes with 1 error(s)"},
		{"idxbuild", "idxbuild_ai_enabled.out", 0, "(11465)"},
		{"idxbuild", "idxbuild_ai_enabled.out", 1, "idxbuild failed with exit code 1; last message: You cannot perform"},
		{"procopy", "procopy_crlf.out", 0, ""},
		{"procopy", "load_ok.out", 0, "procopy exited 0 without its success message (1365)"},
		{"tabanalys", "load_ok.out", 0, ""}, // no marker: the exit code decides
		{"tabanalys", "", 3, "tabanalys failed with exit code 3"},
	}
	for _, tt := range tests {
		t.Run(tt.utility+"/"+tt.file, func(t *testing.T) {
			out := ""
			if tt.file != "" {
				out = readOutput(t, tt.file)
			}
			err := CheckSuccess(tt.utility, out, tt.exit)
			if tt.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tt.wantErr)
			var ue *UtilityError
			require.True(t, errors.As(err, &ue))
			assert.Equal(t, tt.utility, ue.Utility)
			assert.Equal(t, tt.exit, ue.ExitCode)
		})
	}
	n, ok := SuccessMarker("load")
	assert.True(t, ok)
	assert.Equal(t, MsgLoadComplete, n)
	_, ok = SuccessMarker("describe")
	assert.False(t, ok)
}

// FuzzScanMessages: no panic; every message found is on its line, at its
// end, and HasMessage agrees with ScanMessages.
func FuzzScanMessages(f *testing.F) {
	for _, name := range []string{"dump_12.7_threaded.out", "procopy_crlf.out", "idxbuild_errors.out", "load_rebuild_warning.out", "load_batch_pt_crlf.out", "describe_11.7.out", "load_large_count_brz.out",
		"dump_12.7_threaded_de.out", "load_rebuild_warning_de.out", "idxbuild_errors_de.out"} {
		b, err := os.ReadFile(filepath.Join("testdata", "messages", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("(1)\n()\n) (\n** (0)")
	// The utility output of the real-world corpus, English and Portuguese
	// (Latin-1 bytes included); the long idxbuild logs cut to their end.
	logs, _ := filepath.Glob(filepath.Join(realWorld, "logs", "*", "*.out"))
	dbLogs, _ := filepath.Glob(filepath.Join(realWorld, "dblog", "*.lg"))
	logs = append(logs, dbLogs...)
	for _, p := range logs {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		if len(b) > 1024 {
			b = b[len(b)-1024:]
		}
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, out string) {
		msgs := ScanMessages(out)
		lines := strings.Split(out, "\n")
		for _, m := range msgs {
			require.True(t, m.Line >= 1 && m.Line <= len(lines))
			require.True(t, HasMessage(out, m.Num))
			line := strings.TrimRight(lines[m.Line-1], " \t\r")
			require.True(t, strings.HasSuffix(line, "("+strconv.Itoa(m.Num)+")"), "line %q, message %d", line, m.Num)
		}
		_, _ = ParseDumpOutput(out)
		_, _ = ParseLoadOutput(out)
		_, _ = ParseLoadBatchOutput(out, 2)
		_, _ = ParseIdxbuildOutput(out)
		_ = CheckSuccess("idxbuild", out, 0)
		if d, err := ParseDescribe(out); err == nil {
			require.Positive(t, d.BlockSize)
			require.Positive(t, d.BIClusterKB)
		}
	})
}

// TestBrokerPID: the broker's PID is the last number of proserve's (5644),
// whatever the language; no (5644), no PID.
func TestBrokerPID(t *testing.T) {
	for _, tc := range []struct {
		name, out string
		pid       int
		ok        bool
	}{
		{"english", "OpenEdge Release 12.8 as of Wed Jan 24 19:02:14 EST 2024\n21:07:41 BROKER  0: Multi-user session begin. (333)\n" +
			"21:07:41 BROKER  0: Started for 20931 using TCP IPV4 address 0.0.0.0, pid 10405. (5644)\n", 10405, true},
		{"portuguese", "21:07:41 BROKER  0: Iniciado para oesim usando o endereço TCP IPV4 0.0.0.0, pid 4123. (5644)\n", 4123, true},
		{"no 5644", "21:07:41 BROKER  0: Multi-user session begin. (333)\n", 0, false},
		{"no number", "BROKER  0: Started. (5644)\n", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pid, ok := BrokerPID(tc.out)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.pid, pid)
		})
	}
}
