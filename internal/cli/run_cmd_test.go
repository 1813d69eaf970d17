package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/verify"
)

func TestVerifyCommand(t *testing.T) {
	d := "testdata/verify/"
	// The online report again, a day later: the same report twice is one
	// analysis, refused (verify.Distinct).
	online := "../../testdata/tabanalys/in_use_online_11.7.tabanalys"
	report, err := os.ReadFile(online)
	require.NoError(t, err)
	onlineLater := filepath.Join(t.TempDir(), "in_use_online_later.tabanalys")
	require.NoError(t, os.WriteFile(onlineLater, bytes.Replace(report, []byte("Date: Tue Mar 05"), []byte("Date: Wed Mar 06"), 1), 0o644))
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"match", []string{"verify", "--before", d + "before.tba", "--after", d + "after-equal.tba"}, ExitOK, "MATCH", ""},
		// Both headers name /db/sports: right for a target made at the
		// source's path, and said, since the after report may be the
		// source's again (nu-trial8).
		{"one database's two reports", []string{"verify", "--before", d + "before.tba", "--after", d + "after-equal.tba"}, ExitOK, "MATCH",
			"note: both reports are of the database /db/sports: the target must have been made at the source's path, or " + d + "after-equal.tba is the source's again"},
		{"mismatch names the tables", []string{"verify", "--before", d + "before.tba", "--after", d + "after-short.tba"}, ExitFailed,
			"MISMATCH", "PUB.Order 3953 -> 3952"},
		{"missing table", []string{"verify", "--before", d + "before.tba", "--after", d + "after-short.tba"}, ExitFailed,
			"missing", "PUB.Order-Line missing after"},
		{"-csoutput file, as plan reads it", []string{"verify", "--before", d + "before.tab.txt", "--after", d + "after-equal.tba"}, ExitOK, "MATCH", ""},
		{"-csoutput written with -fieldsep '|'", []string{"verify", "--before", d + "before-fieldsep-pipe.tab.txt", "--after", d + "after-equal.tba"}, ExitOK, "MATCH", ""},
		{"-csoutput rows known by content", []string{"verify", "--before", d + "before-csoutput-renamed.txt", "--after", d + "after-equal.tba"}, ExitOK, "MATCH", ""},
		{"a report made online is compared, with a warning", []string{"verify", "--before", online, "--after", onlineLater},
			ExitOK, "MATCH", "in_use_online_11.7.tabanalys was made while the database was in use (2486)"},
		{"a report saved as UTF-16 (Windows PowerShell's >)", []string{"verify", "--before", d + "before-utf16le.tba", "--after", d + "after-equal.tba"}, ExitOK, "MATCH", ""},
		{"malformed report", []string{"verify", "--before", d + "garbage.tba", "--after", d + "after-equal.tba"}, ExitUsage, "", "garbage.tba"},
		{"unreadable file", []string{"verify", "--before", d + "nope.tba", "--after", d + "after-equal.tba"}, ExitUsage, "", "nope.tba"},
		{"missing flag", []string{"verify", "--before", d + "before.tba"}, ExitUsage, "", "--after"},
		{"no application table: nothing to compare", []string{"verify", "--before", d + "meta-only.tba", "--after", d + "meta-only.tba"},
			ExitUsage, "", "meta-only.tba: no application table"},
		{"rows that do not add up to their area's summary", []string{"verify", "--before", d + "before.tba", "--after", d + "row-missing.tba"},
			ExitUsage, "", `row-missing.tba:28: Subtotals: says 19082 records, the table rows since the heading on line 17 add up to 15129`},
		// A 10.1B report (no Summary for AREA; the layout of
		// testdata/tabanalys/wrapped_10.1B.tabanalys) with one row indented,
		// as a report pasted from a mail or a wiki comes: verify said MATCH on
		// 5 of its 6 tables (new-user trial 5).
		{"a 10.x report with a row not read as one", []string{"verify", "--before", d + "row-indented-10.1B.tba", "--after", d + "row-indented-10.1B.tba"},
			ExitUsage, "", `row-indented-10.1B.tba:32: Subtotals: says 148838 records, the table rows since the heading on line 23 add up to 145527`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runOEDL(tt.args...)
			assert.Equal(t, tt.code, code, errOut)
			assert.Contains(t, out, tt.stdout)
			assert.Contains(t, errOut, tt.stderr)
		})
	}
}

// A report whose rows carry no owner prefix (as in Progress's own
// documentation sample) is read or refused, never an empty success: verify
// either compares its tables or exits 2 naming the file.
func TestVerifyNeverMatchesNothing(t *testing.T) {
	code, out, errOut := runOEDL("verify", "--before", "testdata/verify/no-owner.tba", "--after", "testdata/verify/no-owner.tba", "--json")
	if code == ExitUsage {
		assert.Contains(t, errOut, "no-owner.tba")
		return
	}
	require.Equal(t, ExitOK, code, errOut)
	var res verify.Result
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	assert.Len(t, res.Rows, 3, "read: every table compared")
}

func TestVerifyCommandJSONAndFiles(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runOEDL("verify", "--before", "testdata/verify/before.tba", "--after", "testdata/verify/after-equal.tba", "--json", "-o", dir)
	require.Equal(t, ExitOK, code, errOut)
	var res verify.Result
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	assert.True(t, res.OK)
	assert.Len(t, res.Rows, 3, "meta-schema tables are left out")
	assert.Equal(t, res.Before.Checksum, res.After.Checksum)
	for _, f := range []string{verify.JSONFile, verify.BeforeList, verify.AfterList} {
		assert.FileExists(t, filepath.Join(dir, f))
	}
}

func TestRunCommandUsage(t *testing.T) {
	dir := t.TempDir()
	hf := filepath.Join(dir, "hosts.yaml")
	require.NoError(t, os.WriteFile(hf, []byte("hosts:\n  prod:\n    role: source\n    ssh: p1\n    work: /w\n    db: /p\n  new:\n    role: target\n    db: /n\n"), 0o644))
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no source", []string{"run", "--target", "t", "--plan", dir, "--work", dir}, ExitUsage, "--source"},
		{"no plan.json", []string{"run", "--source", "s", "--target", "t", "--plan", dir, "--work", dir}, ExitUsage, "plan.json"},
		{"unknown flag", []string{"run", "--bogus"}, ExitUsage, "bogus"},
		{"--tune neither auto nor off", []string{"run", "--source", "s", "--target", "t", "--plan", dir, "--work", dir, "--tune", "fast"}, ExitUsage, "--tune fast: want auto or off"},
		{"--tune auto on several hosts", []string{"run", "--hosts", hf, "--plan", dir, "--work", dir, "--tune", "auto"}, ExitUsage, "not with --hosts"},
		{"prepare without work", []string{"prepare", "--source", "s", "--target", "t", "--plan", dir}, ExitUsage, "--work"},
		{"prepare with no plan.json", []string{"prepare", "--source", "s", "--target", "t", "--plan", dir, "--work", dir}, ExitUsage, "plan.json"},
		{"prepare has no job counts", []string{"prepare", "--dump-jobs", "4"}, ExitUsage, "dump-jobs"},
		{"status without work", []string{"status"}, ExitUsage, "--work"},
		{"status of an empty dir", []string{"status", "--work", dir}, ExitUsage, "journal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runOEDL(tt.args...)
			assert.Equal(t, tt.code, code, errOut)
			assert.Contains(t, errOut, tt.want)
		})
	}
}

func TestStatusCommand(t *testing.T) {
	dir := t.TempDir()
	w, _, err := journal.Open(filepath.Join(dir, journal.FileName))
	require.NoError(t, err)
	for _, r := range []journal.Record{
		{Job: journal.RunJob, State: journal.Started, PID: 999999999},
		{Job: "dump:PUB.customer", Kind: "dump", Table: "PUB.customer", State: journal.Started},
		{Job: "dump:PUB.customer", Kind: "dump", Table: "PUB.customer", State: journal.Done, Records: 1117},
		{Job: "load:PUB.customer", Kind: "load", Table: "PUB.customer", Area: "Cust", State: journal.Started},
	} {
		require.NoError(t, w.Append(r))
	}
	require.NoError(t, w.Close())
	before, err := os.ReadFile(filepath.Join(dir, journal.FileName))
	require.NoError(t, err)

	code, out, errOut := runOEDL("status", "--work", dir)
	require.Equal(t, ExitFailed, code, "a killed run has not finished: %s", errOut)
	assert.Contains(t, out, "not running")
	assert.Contains(t, out, "--resume")
	assert.Contains(t, out, `area "Cust" needs a repair`)

	code, out, errOut = runOEDL("status", "--work", dir, "--json")
	require.Equal(t, ExitFailed, code, errOut)
	var st struct {
		Killed     bool     `json:"killed"`
		DirtyAreas []string `json:"dirty_areas"`
		Records    int      `json:"journal_records"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &st))
	assert.True(t, st.Killed)
	assert.Equal(t, []string{"Cust"}, st.DirtyAreas)
	assert.Equal(t, 4, st.Records)

	after, err := os.ReadFile(filepath.Join(dir, journal.FileName))
	require.NoError(t, err)
	assert.Equal(t, before, after, "status never writes")
}
