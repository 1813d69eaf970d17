package report

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/oedl/oedl/internal/journal"
)

// TestFailedBatchRecoveredByItsTables: a load-batch call killed once has
// its area repaired and its tables loaded again one by one
// (load:PUB.a@r3), never as the same call: the call itself ends failed in
// the journal. The report said "failed" of it, and so "The migration
// failed" of a run that verified (lefts29, regenerating the recording).
// The call recovered when each of its tables was loaded afterwards; it
// failed when one was not.
func TestFailedBatchRecoveredByItsTables(t *testing.T) {
	call := func(state journal.State) journal.Record {
		return journal.Record{Job: "load-batch:A:1", Kind: "load-batch", State: state, Attempt: 1}
	}
	member := func(job string, attempt int, state journal.State) journal.Record {
		return journal.Record{Job: job, Kind: "load", Table: "PUB.x", State: state, Attempt: attempt, Batch: "load-batch:A:1"}
	}
	again := func(job string, state journal.State) journal.Record {
		return journal.Record{Job: job, Kind: "load", Table: "PUB.x", State: state, Attempt: 2}
	}
	killed := []journal.Record{
		call(journal.Started), member("load:PUB.a", 1, journal.Started), member("load:PUB.b", 1, journal.Started),
		call(journal.Failed), member("load:PUB.a", 1, journal.Failed), member("load:PUB.b", 1, journal.Failed),
	}
	tests := []struct {
		name  string
		after []journal.Record
		want  string
	}{
		{"each table loaded again", []journal.Record{again("load:PUB.a@r3", journal.Done), again("load:PUB.b@r4", journal.Done)}, "recovered: each of its tables loaded again"},
		{"one table not loaded again", []journal.Record{again("load:PUB.a@r3", journal.Done), again("load:PUB.b@r4", journal.Failed)}, "failed"},
		{"nothing after", nil, "failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs := append(append([]journal.Record(nil), killed...), tt.after...)
			rows := failureRows(recs, recs[0].Time)
			markOutcomes(rows, recs)
			var got string
			for _, r := range rows {
				if r.Job == "load-batch:A:1" {
					got = r.Outcome
				}
			}
			assert.Equal(t, tt.want, got)
		})
	}
}
