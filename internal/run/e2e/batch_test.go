package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/journal"
)

// batchMembers reads the first load batch of a clean run from its journal:
// the tables it loaded, in list order, and their counts.
func batchMembers(t *testing.T, recs []journal.Record) (string, []journal.Record) {
	batch := ""
	var members []journal.Record
	for _, r := range recs {
		if r.Kind == "load-batch" && r.State == journal.Started && batch == "" {
			batch = r.Job
		}
		if batch != "" && r.Kind == "load" && r.State == journal.Done && strings.HasSuffix(r.Message, "(batch "+batch+")") {
			members = append(members, r)
		}
	}
	require.NotEmpty(t, batch, "the run loaded no batch")
	return batch, members
}

// A run with --batch-loads loads small tables in batches and journals each
// table as loaded, with its own count.
func TestBatchLoadsRun(t *testing.T) {
	e := newEnv(t, "sports")
	r := e.oedl(nil, e.runArgs("--batch-loads")...)
	require.Equal(t, 0, r.code, r.stderr)
	e.verified()
	batch, members := batchMembers(t, e.journal())
	require.GreaterOrEqual(t, len(members), 2, "batch %s", batch)
	counts := e.counts(e.target)
	for _, m := range members {
		assert.True(t, m.CountKnown)
		assert.Equal(t, counts[m.Table], m.Records, "journalled count of %s", m.Table)
		assert.Equal(t, batch, m.Batch, "%s's record names its batch", m.Table)
	}
	report, err := os.ReadFile(filepath.Join(e.work, "report.md"))
	require.NoError(t, err)
	assert.Contains(t, string(report), "| Load batches | ", "the report tells the batches")
}

// kill -9 of the load utility at every record of a batch in turn (oesim's
// crash-after fault, which strikes the table's reloads too, so the run
// gives up), then --resume: every run verified, no table loaded twice.
// Without OEDL_E2E_EXHAUSTIVE the first three and the last record of
// each table of the batch.
func TestKillBatchAtEveryRecordThenResume(t *testing.T) {
	e := newEnv(t, "sports")
	r := e.oedl(nil, e.runArgs("--batch-loads", crashSafe)...)
	require.Equal(t, 0, r.code, r.stderr)
	_, members := batchMembers(t, e.journal())
	if len(members) > 3 {
		members = members[:3]
	}
	for _, m := range members {
		var points []int64
		for n := int64(1); n <= m.Records; n++ {
			if os.Getenv("OEDL_E2E_EXHAUSTIVE") != "" || n <= 3 || n == m.Records {
				points = append(points, n)
			}
		}
		for _, n := range points {
			t.Run(fmt.Sprintf("%s-record-%d", m.Table, n), func(t *testing.T) {
				e := newEnv(t, "sports")
				fault := fmt.Sprintf("OESIM_FAULTS=load:%s:crash-after=%d", m.Table, n)
				r := e.oedl([]string{fault}, e.runArgs("--batch-loads", "--retries", "1", crashSafe)...)
				require.Equal(t, 1, r.code, "the table's loads die every time: the run stops\n%s", r.stderr)
				killed := false
				for _, rec := range e.journal() {
					killed = killed || (rec.Table == m.Table && rec.State == journal.Failed && rec.Signal == "SIGKILL")
				}
				require.True(t, killed, "the fault killed no load of %s", m.Table)
				r = e.oedl(nil, e.runArgs("--resume")...)
				require.Equal(t, 0, r.code, r.stderr)
				e.verified()
			})
		}
	}
}

// kill -9 of oedl itself after every journal record of a batch, from its
// start to its end (between the tables' done records too), then --resume:
// every run verified, no table loaded twice.
func TestKillOedlAtEveryBatchRecordThenResume(t *testing.T) {
	e := newEnv(t, "sports")
	r := e.oedl(nil, e.runArgs("--batch-loads", crashSafe)...)
	require.Equal(t, 0, r.code, r.stderr)
	recs := e.journal()
	batch, _ := batchMembers(t, recs)
	first, last := 0, 0
	for i, rec := range recs {
		if rec.Job == batch && rec.State == journal.Started && first == 0 {
			first = i + 1
		}
		if rec.Job == batch && rec.State == journal.Done {
			last = i + 1
		}
	}
	require.Positive(t, first)
	require.Greater(t, last, first)
	for n := first; n <= last; n++ {
		t.Run(fmt.Sprintf("after-record-%d", n), func(t *testing.T) {
			e := newEnv(t, "sports")
			r := e.oedl([]string{fmt.Sprintf("OEDL_TEST_CRASH_AT=%d", n)}, e.runArgs("--batch-loads", crashSafe)...)
			require.Equal(t, -1, r.code, "oedl should have killed itself after record %d\n%s", n, r.stderr)
			r = e.oedl(nil, e.runArgs("--resume")...)
			require.Equal(t, 0, r.code, r.stderr)
			e.verified()
		})
	}
}
