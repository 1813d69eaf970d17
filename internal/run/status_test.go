package run

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/tui"
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

// TestReadETA: status shows the living run's latest eta event, never an
// earlier invocation's nor a broken file's.
func TestReadETA(t *testing.T) {
	start := time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC)
	eta := func(at time.Time) string {
		b, err := json.Marshal(event.Event{V: 1, Time: at, Kind: event.ETAKind,
			ETA: &event.ETA{Remaining: time.Minute, P50: time.Minute, P90: 2 * time.Minute, Finish: at.Add(time.Minute)}})
		require.NoError(t, err)
		return string(b)
	}
	tests := []struct {
		name, file string
		want       bool
	}{
		{"this invocation's", eta(start.Add(time.Minute)), true},
		{"an earlier invocation's", eta(start.Add(-time.Minute)), false},
		{"not an eta event", `{"v":1,"time":"2026-11-22T01:05:00Z","kind":"warning","message":"x"}`, false},
		{"half a file", `{"v":1,"time":"2026-11-22T01:05:00Z","ki`, false},
		{"none", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			work := t.TempDir()
			if tt.file != "" {
				require.NoError(t, os.WriteFile(filepath.Join(work, ETAFile), []byte(tt.file), 0o644))
			}
			got := readETA(work, journal.Record{Job: journal.RunJob, State: journal.Started, Time: start})
			if !tt.want {
				assert.Nil(t, got)
				return
			}
			require.NotNil(t, got)
			assert.Equal(t, time.Minute, got.ETA.Remaining)
			s := &Status{Records: []journal.Record{{Job: journal.RunJob, State: journal.Started, Time: start}}, ETA: got}
			events := s.Events()
			assert.Equal(t, event.ETAKind, events[len(events)-1].Kind, "replayed after the journal, as the screen got it")
		})
	}
}

// TestStatusCountsPlannedTables: `oedl status` of a run stopped with most
// tables not yet started counts them against the plan's tables, not only
// against those the journal names (nu-trial9: "load 4/4 tables" while 21
// tables were still to load, read by a script as loads complete).
func TestStatusCountsPlannedTables(t *testing.T) {
	at := time.Date(2026, 11, 28, 9, 53, 0, 0, time.UTC)
	p := &plan.Plan{Tables: []plan.Placement{{Table: "PUB.a", Name: "a"}, {Table: "PUB.b", Name: "b"}, {Table: "PUB.c", Name: "c"}}}
	recs := []journal.Record{
		{Time: at, Job: journal.RunJob, State: journal.Started},
		{Time: at, Job: "dump:PUB.a", Kind: "dump", State: journal.Started, Table: "PUB.a"},
		{Time: at, Job: "dump:PUB.a", Kind: "dump", State: journal.Done, Table: "PUB.a"},
		{Time: at, Job: "load:PUB.a", Kind: "load", State: journal.Started, Table: "PUB.a"},
		{Time: at, Job: "load:PUB.a", Kind: "load", State: journal.Done, Table: "PUB.a"},
		{Time: at, Job: "dump:PUB.b", Kind: "dump", State: journal.Started, Table: "PUB.b"},
		{Time: at, Job: "dump:PUB.b", Kind: "dump", State: journal.Done, Table: "PUB.b"},
		{Time: at, Job: journal.RunJob, State: journal.Failed, Reason: event.ReasonCancelled},
	}
	st := &Status{Records: recs, Replayed: journal.Replay(recs), Plan: p}
	state := tui.NewState()
	for _, e := range st.Events() {
		state.Apply(e)
	}
	got := map[string][2]int{}
	for _, pr := range state.Progress() {
		got[pr.Kind] = [2]int{pr.TablesDone, pr.Tables}
	}
	assert.Equal(t, [2]int{2, 3}, got["dump"], "dump tables done/planned")
	assert.Equal(t, [2]int{1, 3}, got["load"], "load tables done/planned")
}

// TestStatusOverallCountsIdxbuild: `oedl status` of a run stopped with its
// dumps and loads done and idxbuild stopped, or not begun, is not "overall
// 100%" (status-polish): the journal gives idxbuild no size, and the
// overall fraction counted only the bytes dumped and loaded. Replayed,
// idxbuild weighs the plan's bytes, as the schedule gives it live.
func TestStatusOverallCountsIdxbuild(t *testing.T) {
	at := time.Date(2026, 11, 28, 9, 53, 0, 0, time.UTC)
	p := &plan.Plan{Tables: []plan.Placement{{Table: "PUB.a", Name: "a", Records: 10, Bytes: 1000}}}
	p.Totals.Records, p.Totals.Bytes = 10, 1000
	dumpLoad := []journal.Record{
		{Time: at, Job: journal.RunJob, State: journal.Started},
		{Time: at, Job: "dump:PUB.a", Kind: "dump", State: journal.Started, Table: "PUB.a"},
		{Time: at, Job: "dump:PUB.a", Kind: "dump", State: journal.Done, Table: "PUB.a"},
		{Time: at, Job: "load:PUB.a", Kind: "load", State: journal.Started, Table: "PUB.a"},
		{Time: at, Job: "load:PUB.a", Kind: "load", State: journal.Done, Table: "PUB.a"},
	}
	stopped := journal.Record{Time: at, Job: journal.RunJob, State: journal.Failed, Reason: event.ReasonCancelled}
	idx := func(s journal.State) journal.Record {
		r := journal.Record{Time: at, Job: "idxbuild", Kind: "idxbuild", State: s}
		if s == journal.Failed {
			r.Reason = event.ReasonCancelled
		}
		return r
	}
	tests := []struct {
		name string
		recs []journal.Record
		want float64
	}{
		{"idxbuild stopped", append(append([]journal.Record{}, dumpLoad...), idx(journal.Started), idx(journal.Failed), stopped), 2.0 / 3},
		{"idxbuild not begun", append(append([]journal.Record{}, dumpLoad...), stopped), 2.0 / 3},
		{"idxbuild done", append(append([]journal.Record{}, dumpLoad...), idx(journal.Started), idx(journal.Done), stopped), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := &Status{Records: tt.recs, Replayed: journal.Replay(tt.recs), Plan: p}
			state := tui.NewState()
			for _, e := range st.Events() {
				state.Apply(e)
			}
			assert.InDelta(t, tt.want, state.Overall(), 1e-9)
		})
	}
}
