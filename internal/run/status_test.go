package run

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/oedl/oedl/internal/journal"
)

// TestSectionShares: a replayed threaded table's section loads share its
// planned bytes in proportion to their files, adding up exactly.
func TestSectionShares(t *testing.T) {
	dump := func(files ...journal.File) journal.Record {
		return journal.Record{Job: "dump:PUB.order", Kind: "dump", State: journal.Done, Table: "PUB.order", Files: files}
	}
	tests := []struct {
		name string
		recs []journal.Record
		want map[int]int64
	}{
		{"two equal sections", []journal.Record{dump(journal.File{Path: "/w/order.bd", Size: 500}, journal.File{Path: "/w/order.bd2", Size: 500})},
			map[int]int64{1: 500, 2: 500}},
		{"uneven, rounding to the last", []journal.Record{dump(journal.File{Path: "/w/order.bd", Size: 1}, journal.File{Path: "/w/order.bd2", Size: 1}, journal.File{Path: "/w/order.bd3", Size: 1})},
			map[int]int64{1: 333, 2: 333, 3: 334}},
		{"the last done dump wins", []journal.Record{
			dump(journal.File{Path: "/w/order.bd", Size: 1}, journal.File{Path: "/w/order.bd2", Size: 3}),
			dump(journal.File{Path: "/w/order.bd", Size: 3}, journal.File{Path: "/w/order.bd2", Size: 1})},
			map[int]int64{1: 750, 2: 250}},
		{"unthreaded dump: no shares", []journal.Record{dump(journal.File{Path: "/w/order.bd", Size: 1000})}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sectionShares(tt.recs, map[string][2]int64{"PUB.order": {10, 1000}})
			assert.Equal(t, tt.want, got["PUB.order"])
		})
	}
}
