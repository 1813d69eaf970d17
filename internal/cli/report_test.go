package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/report"
	"github.com/oedl/oedl/internal/verify"
)

// reportWork writes the work directory of a small finished run.
func reportWork(t *testing.T, lost int64) string {
	t.Helper()
	dir := t.TempDir()
	t0 := time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC)
	var jl bytes.Buffer
	seq := int64(0)
	rec := func(sec int, r journal.Record) {
		seq++
		r.V, r.Seq, r.Time = journal.Version, seq, t0.Add(time.Duration(sec)*time.Second)
		b, err := json.Marshal(r)
		require.NoError(t, err)
		jl.Write(append(b, '\n'))
	}
	rec(0, journal.Record{Job: journal.RunJob, State: journal.Started, Source: "/db/prod", Target: "/db/new"})
	for i, j := range []struct{ id, kind, table string }{
		{"dump:PUB.customer", "dump", "PUB.customer"}, {"load:PUB.customer", "load", "PUB.customer"}, {"idxbuild", "idxbuild", ""},
	} {
		rec(i*10, journal.Record{Job: j.id, Kind: j.kind, Table: j.table, State: journal.Started})
		rec(i*10+9, journal.Record{Job: j.id, Kind: j.kind, Table: j.table, State: journal.Done})
	}
	rec(30, journal.Record{Job: journal.RunJob, State: journal.Done})
	require.NoError(t, os.WriteFile(filepath.Join(dir, journal.FileName), jl.Bytes(), 0o644))
	side := func(n int64) verify.Side {
		return verify.Side{Tables: []verify.Count{{Table: "PUB.customer", Records: n}}, Records: n}
	}
	require.NoError(t, verify.Write(dir, verify.Compare(side(5000), side(5000-lost))))
	return dir
}

func runReport(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Execute(context.Background(), &IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errOut}, append([]string{"report"}, args...))
	return code, out.String(), errOut.String()
}

func TestReportCommand(t *testing.T) {
	dir := reportWork(t, 0)
	extra := filepath.Join(t.TempDir(), "mail.html")
	code, out, errOut := runReport(t, "--work", dir, "--html", extra)
	require.Equal(t, ExitOK, code, errOut)
	assert.Contains(t, errOut, "Verified: the table and its 5,000 records arrived, and the count matches.")
	assert.Contains(t, out, filepath.Join(dir, report.HTMLFile))
	for _, f := range []string{filepath.Join(dir, report.MarkdownFile), filepath.Join(dir, report.HTMLFile), extra} {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		assert.Contains(t, string(b), "PUB.customer", f)
	}
}

func TestReportCommandExitCodes(t *testing.T) {
	code, _, errOut := runReport(t, "--work", reportWork(t, 1))
	assert.Equal(t, ExitFailed, code, "a mismatch is exit 1")
	assert.Contains(t, errOut, "The copy does not match: 1 of 1 tables hold another number of records")
	assert.Contains(t, errOut, "PUB.customer: mismatch (before 5,000, after 4,999)")

	code, _, errOut = runReport(t)
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "--work")

	code, _, errOut = runReport(t, "--work", t.TempDir())
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "journal.jsonl")

	dir := reportWork(t, 0)
	require.NoError(t, os.WriteFile(filepath.Join(dir, journal.FileName), []byte("{broken\n{\"v\":1}\n"), 0o644))
	code, _, errOut = runReport(t, "--work", dir)
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "journal.jsonl")
}

// --json: stdout is the one JSON object and nothing else (the files'
// names are not printed), with the exit code of the verdict as without it.
func TestReportCommandJSON(t *testing.T) {
	for _, tc := range []struct {
		lost  int64
		code  int
		state string
	}{
		{0, ExitOK, "verified"},
		{1, ExitFailed, "mismatch"},
	} {
		dir := reportWork(t, tc.lost)
		code, out, errOut := runReport(t, "--work", dir, "--json")
		require.Equal(t, tc.code, code, errOut)
		var got report.JSON
		dec := json.NewDecoder(bytes.NewBufferString(out))
		dec.DisallowUnknownFields()
		require.NoError(t, dec.Decode(&got), out)
		assert.False(t, dec.More(), "one object on stdout, nothing after it")
		assert.Equal(t, tc.state, got.Verdict.State)
		require.Len(t, got.Tables, 1)
		assert.Equal(t, int64(5000-tc.lost), *got.Tables[0].RecordsAfter)
		assert.NotContains(t, out, report.MarkdownFile)
		assert.FileExists(t, filepath.Join(dir, report.MarkdownFile), "report.md is written with --json too")
	}
}
