package report

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/oedl/oedl/internal/journal"
)

func TestBatchesOf(t *testing.T) {
	member := func(table, batch string, state journal.State) journal.Record {
		return journal.Record{Job: "load:" + table, Kind: "load", Table: table, State: state, Batch: batch}
	}
	call := func(id string, state journal.State) journal.Record {
		return journal.Record{Job: id, Kind: "load-batch", State: state}
	}
	tests := []struct {
		name string
		recs []journal.Record
		want Batches
	}{
		{"no batches", []journal.Record{{Job: "load:PUB.a", Kind: "load", Table: "PUB.a", State: journal.Done}}, Batches{}},
		{"two calls", []journal.Record{
			call("load-batch:A:1", journal.Started), member("PUB.a", "load-batch:A:1", journal.Done), member("PUB.b", "load-batch:A:1", journal.Done), call("load-batch:A:1", journal.Done),
			call("load-batch:B:1", journal.Started), member("PUB.c", "load-batch:B:1", journal.Done), member("PUB.d", "load-batch:B:1", journal.Done), call("load-batch:B:1", journal.Done),
		}, Batches{Tables: 4, Calls: 2}},
		{"a failed call is no call; its tables count once when loaded again", []journal.Record{
			member("PUB.a", "load-batch:A:1", journal.Failed), call("load-batch:A:1", journal.Failed),
			member("PUB.a", "load-batch:A:1@r1", journal.Done), member("PUB.b", "load-batch:A:1@r1", journal.Done), call("load-batch:A:1@r1", journal.Done),
		}, Batches{Tables: 2, Calls: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, batchesOf(tt.recs))
		})
	}
}

func TestFactsTellTheBatches(t *testing.T) {
	assert.NotContains(t, factKeys(facts(Data{})), "Load batches")
	f := facts(Data{Batches: Batches{Tables: 40, Calls: 3}})
	assert.Contains(t, factKeys(f), "Load batches")
	for _, x := range f {
		if x[0] == "Load batches" {
			assert.Contains(t, x[1], "40 small tables loaded in 3 calls")
		}
	}
}

func factKeys(f [][2]string) []string {
	var out []string
	for _, x := range f {
		out = append(out, x[0])
	}
	return out
}
