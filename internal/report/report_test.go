package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/verify"
)

var jsonMarshal = json.Marshal

func TestFromWorkOK(t *testing.T) {
	d, err := FromWork(fixture(t, true, false))
	require.NoError(t, err)
	assert.True(t, d.Verdict.OK, d.Verdict.Headline)
	assert.Equal(t, "Verified: all 5 tables and their 1,562,090 records arrived, and every count matches. The outage took 7m03s, 2.6s longer than the 7m00s estimated, within its P90 of 8m25s.", d.Verdict.Headline)
	assert.Equal(t, "/db/sports", d.Source)
	assert.True(t, d.Finished)

	require.Len(t, d.Tables, 5)
	ol := d.Tables[0]
	assert.Equal(t, "PUB.orderline", ol.Table)
	assert.Equal(t, 95*time.Second, ol.Dump)
	assert.Equal(t, 120*time.Second, ol.Load)
	assert.Equal(t, int64(1_200_000), ol.RecordsAfter)
	assert.Equal(t, "match", ol.Status)
	assert.Equal(t, 2, d.Tables[1].Attempts, "PUB.order was loaded twice (a failure, then the retry)")
	assert.Equal(t, "PUB.orderline", d.Slowest[0].Table)

	require.Len(t, d.Failures, 1)
	assert.Equal(t, "load:PUB.order", d.Failures[0].Job)
	assert.Equal(t, "/work/logs/load:PUB.order.log", d.Failures[0].Log)

	var labels []string
	for _, s := range d.Critical {
		labels = append(labels, s.Label)
	}
	assert.Equal(t, "preflight", labels[0])
	assert.Equal(t, "post", labels[len(labels)-1])
	assert.Contains(t, labels, "dump PUB.orderline", "the big table's dump held everything after it")
	assert.Contains(t, labels, "5 loads, PUB.orderline … PUB.salesrep", "the loads, one after another in the one load slot, folded into one step")
	assert.NotContains(t, labels, "create-target", "it ended long before anything waited for it")
	assert.Contains(t, labels, "idxbuild")

	names := map[string]PhaseTiming{}
	for _, p := range d.Phases {
		names[p.Name] = p
	}
	assert.Equal(t, 90*time.Second, names["index rebuild"].Duration().Round(time.Millisecond))
	require.NotEmpty(t, d.Throughput)
	var dumped float64
	for _, r := range d.Throughput {
		dumped += r.DumpPerSec * r.Width.Seconds()
	}
	assert.InDelta(t, float64(d.TotalBytes), dumped, 1, "every dumped byte is in the throughput")
}

func TestVerdicts(t *testing.T) {
	d, err := FromWork(fixture(t, false, true))
	require.NoError(t, err)
	assert.False(t, d.Verdict.OK)
	assert.Equal(t, "The copy does not match: 1 of 5 tables hold another number of records than the source.", d.Verdict.Headline)
	assert.Equal(t, []string{"PUB.customer: mismatch (before 50,000, after 49,999)"}, d.Verdict.Details)

	dir := fixture(t, false, false)
	require.NoError(t, os.Remove(filepath.Join(dir, "verify.json")))
	d, err = FromWork(dir)
	require.NoError(t, err)
	assert.Equal(t, "unverified", d.Verdict.State)
	assert.Contains(t, d.Verdict.Headline, "verification (verify.json) is missing")
	assert.Equal(t, int64(-1), d.Tables[0].RecordsAfter)

	// Cut the journal in the middle of the loads: the run has not ended.
	recs, err := journal.Read(filepath.Join(dir, journal.FileName))
	require.NoError(t, err)
	var jl bytes.Buffer
	for _, r := range recs[:20] {
		b, _ := jsonLine(r)
		jl.Write(b)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, journal.FileName), jl.Bytes(), 0o644))
	d, err = FromWork(dir)
	require.NoError(t, err)
	assert.Equal(t, "incomplete", d.Verdict.State)
	assert.True(t, strings.HasPrefix(d.Verdict.Headline, "The run has not ended"), d.Verdict.Headline)
	assert.NotEmpty(t, d.Verdict.Details, "the jobs that never ended are named")
}

func TestFromWorkErrors(t *testing.T) {
	_, err := FromWork(t.TempDir())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "journal.jsonl")

	dir := fixture(t, false, false)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "verify.json"), []byte("{not json"), 0o644))
	_, err = FromWork(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "verify.json")
}

func TestWriteGolden(t *testing.T) {
	dir := fixture(t, true, false)
	d, err := FromWork(dir)
	require.NoError(t, err)
	d.Work = "/work" // the temp dir differs per run
	require.NoError(t, Write(dir, d))
	md, err := os.ReadFile(filepath.Join(dir, MarkdownFile))
	require.NoError(t, err)
	assertGolden(t, "report.md", md)
	page, err := os.ReadFile(filepath.Join(dir, HTMLFile))
	require.NoError(t, err)
	assertGolden(t, "report.html", page)
	var gantt bytes.Buffer
	require.NoError(t, GanttSVG(&gantt, "Actual run", d.Bars))
	assertGolden(t, "report_gantt.svg", gantt.Bytes())

	html := string(page)
	for _, forbidden := range []string{"<script", "http://", "https://", "<link", "@import", "url(http"} {
		if forbidden == "http://" {
			// the SVG namespace is an identifier, not a fetch
			html = strings.ReplaceAll(html, `xmlns="http://www.w3.org/2000/svg"`, "")
		}
		assert.NotContains(t, html, forbidden, "report.html must be self-contained")
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".report*"))
	assert.Empty(t, leftovers, "no temporary file is left behind")
}

func TestHTMLEscapesEverything(t *testing.T) {
	d, err := FromWork(fixture(t, true, false))
	require.NoError(t, err)
	d.Title = `<img src=x onerror=alert(1)>`
	d.Failures[0].Err = `<script>alert("x")</script>`
	var buf bytes.Buffer
	require.NoError(t, WriteHTML(&buf, d))
	assert.NotContains(t, buf.String(), "<script>")
	assert.NotContains(t, buf.String(), "<img")
}

// TestWarningsStayBesideTheVerdict: what the preflight let pass on the
// DBA's word (a source dumped online) is in the report, whatever the
// verdict, once however many invocations repeat it.
func TestWarningsStayBesideTheVerdict(t *testing.T) {
	dir := fixture(t, false, false)
	recs, err := journal.Read(filepath.Join(dir, journal.FileName))
	require.NoError(t, err)
	const w = "the source /db/prod is served by a broker oedl did not start and is dumped ONLINE (--online-source)"
	var jl bytes.Buffer
	for _, r := range recs {
		if r.Job == journal.RunJob && r.State == journal.Started {
			r.Warnings = []string{w}
		}
		b, _ := jsonLine(r)
		jl.Write(b)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, journal.FileName), jl.Bytes(), 0o644))
	d, err := FromWork(dir)
	require.NoError(t, err)
	assert.True(t, d.Verdict.OK, "a warning does not change the verdict")
	assert.Equal(t, []string{"warning: " + w}, d.Verdict.Details)
	var md bytes.Buffer
	require.NoError(t, WriteMarkdown(&md, d))
	assert.Contains(t, md.String(), "- warning: the source /db/prod is served")
}

// The verdict carries the users, SQL grants and views: equal, a line
// among the details; one lost, a mismatch naming it even when every
// table arrived.
func TestVerdictSecurity(t *testing.T) {
	sec := openedge.Security{Users: []openedge.User{{ID: "ana", Password: "h", Name: "Ana"}, {ID: "bob", Password: "h2", Name: "Bob"}},
		Grants: []openedge.Grant{{Grantee: "ana", Object: "PUB.customer", Privileges: "SELECT"}}}
	lost := sec
	lost.Users = sec.Users[:1]
	tests := []struct {
		name, state, headline string
		after                 openedge.Security
		details               []string
	}{
		{"equal", "verified", "Verified: all 5 tables", sec, []string{"users, SQL grants and views: 2 users, 1 grant, 0 views, the same as the source"}},
		{"a user lost", "mismatch", "The copy does not match: every table arrived, but 1 user(s), SQL grant(s) or view(s) differ from the source.", lost,
			[]string{`user bob: missing (before "Bob / password hash h2", after "")`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := fixture(t, false, false)
			data, err := os.ReadFile(filepath.Join(dir, verify.JSONFile))
			require.NoError(t, err)
			var v verify.Result
			require.NoError(t, json.Unmarshal(data, &v))
			v.AddSecurity(verify.CompareSecurity(sec, tt.after))
			require.NoError(t, verify.Write(dir, &v))
			d, err := FromWork(dir)
			require.NoError(t, err)
			assert.Equal(t, tt.state, d.Verdict.State)
			assert.Contains(t, d.Verdict.Headline, tt.headline)
			assert.Equal(t, tt.details, d.Verdict.Details)
		})
	}
}
