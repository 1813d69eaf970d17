package truebound

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/oedl/oedl/internal/journal"
)

const s = time.Second

func TestCompute(t *testing.T) {
	tests := []struct {
		name    string
		in      Inputs
		chain   time.Duration
		disk    time.Duration
		cpu     time.Duration
		serial  time.Duration
		maxName string
	}{
		{
			// big: 3 + 2 + 8·(3/4) + 1 = 12; small: 0.5 + 0.5 + 8·(1/4) + 1 = 4.
			// serial: 4 + 2·0.5 + 1 = 6; disk 700 MiB at 100 MiB/s = 7; cpu 18/2 = 9.
			name: "the chain binds",
			in: Inputs{
				Tables:          []Table{{"big", 300, 3 * s, 2 * s}, {"small", 100, s / 2, s / 2}},
				Idxbuild:        8 * s,
				CreateTarget:    4 * s,
				AnalyzeTarget:   s,
				DiskBytes:       700 << 20,
				DiskBytesPerSec: 100 << 20,
				CPU:             18 * s,
				Cores:           2,
			},
			chain: 12 * s, disk: 7 * s, cpu: 9 * s, serial: 6 * s, maxName: "chain",
		},
		{
			// chain: 1 + 1 + 2 + 2 = 6 (one table, all the rebuild); disk
			// 1 GiB at 10 MiB/s = 102.4 s; cpu 4 s / 4 = 1 s;
			// serial 3 + 2·1 + 2 = 7.
			name: "the disk binds",
			in: Inputs{
				Tables:          []Table{{"t", 5, s, s}},
				Idxbuild:        2 * s,
				CreateTarget:    3 * s,
				AnalyzeTarget:   2 * s,
				DiskBytes:       1 << 30,
				DiskBytesPerSec: 10 << 20,
				CPU:             4 * s,
				Cores:           4,
			},
			chain: 6 * s, disk: 102400 * time.Millisecond, cpu: s, serial: 7 * s, maxName: "disk",
		},
		{
			// Many tiny tables: each chain 0.3 + 0.4 + 0 (no bytes, no
			// share) + 0.4 = 1.1 at most; serial 10 + 2·0.3 + 0.4 = 11; no disk or
			// CPU figures: those bounds are 0, not guessed.
			name: "the serial steps bind, unknowns drop out",
			in: Inputs{
				Tables:        []Table{{"a", 0, 300 * time.Millisecond, 300 * time.Millisecond}, {"b", 0, 300 * time.Millisecond, 400 * time.Millisecond}},
				Idxbuild:      5 * s,
				CreateTarget:  10 * s,
				AnalyzeTarget: 400 * time.Millisecond,
			},
			chain: 1100 * time.Millisecond, disk: 0, cpu: 0, serial: 11 * s, maxName: "serial",
		},
		{
			// The creation measured at 20 s beside the dumps; alone it
			// writes 300 MiB at 100 MiB/s = 3 s + 3 calls of 0.5 s = 4.5 s.
			// serial 4.5 + 2·0.5 + 1 = 6.5; disk (100 + 300) MiB / 100 = 4;
			// chain 1 + 0.5 + 0 + 1 = 2.5.
			name: "a creation slowed by the dumps is bounded by its bytes",
			in: Inputs{
				Tables:          []Table{{"t", 1, s, s / 2}},
				CreateTarget:    20 * s,
				AnalyzeTarget:   s,
				DiskBytes:       100 << 20,
				DiskBytesPerSec: 100 << 20,
				TargetBytes:     300 << 20,
			},
			chain: 2500 * time.Millisecond, disk: 4 * s, cpu: 0, serial: 6500 * time.Millisecond, maxName: "serial",
		},
		{
			// The same run with the target prepared before the window:
			// neither the creation nor its 300 MiB count. serial 2·0.5 +
			// 1 = 2; disk 100 MiB / 100 = 1; chain 2.5 binds.
			name: "a prepared target is in no part of the window",
			in: Inputs{
				Tables:          []Table{{"t", 1, s, s / 2}},
				CreateTarget:    20 * s,
				AnalyzeTarget:   s,
				DiskBytes:       100 << 20,
				DiskBytesPerSec: 100 << 20,
				TargetBytes:     300 << 20,
				Prepared:        true,
			},
			chain: 2500 * time.Millisecond, disk: s, cpu: 0, serial: 2 * s, maxName: "chain",
		},
		{
			// The source's tabanalys measured at 30 s beside the dumps;
			// alone it reads 100 MiB at 10 MiB/s = 10 s + a call of 1 s =
			// 11 s, longer than the table's chain 1 + 1 + 1 + 1 = 4 (it
			// chains with neither: it overlaps them). serial 2·1 + 1 = 3.
			name: "the source's tabanalys is a chain of its own, bounded by its bytes",
			in: Inputs{
				Tables:          []Table{{"t", 100 << 20, s, s}},
				Idxbuild:        s,
				AnalyzeTarget:   s,
				AnalyzeSource:   30 * s,
				DiskBytesPerSec: 10 << 20,
			},
			chain: 11 * s, disk: 0, cpu: 0, serial: 3 * s, maxName: "chain",
		},
		{
			// The loads' least before-image is disk work too: 60 MiB of
			// data passes and 40 MiB of -i's notes at 10 MiB/s = 10 s,
			// beyond the chain 1 + 1 + 1 + 1 = 4.
			name: "the least before-image is in the disk part",
			in: Inputs{
				Tables:          []Table{{"t", 100 << 20, s, s}},
				Idxbuild:        s,
				AnalyzeTarget:   s,
				DiskBytes:       60 << 20,
				BIBytes:         40 << 20,
				DiskBytesPerSec: 10 << 20,
			},
			chain: 4 * s, disk: 10 * s, cpu: 0, serial: 3 * s, maxName: "disk",
		},
		{
			// Without the bandwidth its measured 30 s (beside the dumps)
			// drops out: chain 1 + 1 + 0 + 1 = 3, serial 3.
			name: "the source's tabanalys drops out without the bandwidth",
			in: Inputs{
				Tables:        []Table{{"t", 100 << 20, s, s}},
				AnalyzeTarget: s,
				AnalyzeSource: 30 * s,
			},
			chain: 3 * s, disk: 0, cpu: 0, serial: 3 * s, maxName: "chain",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := Compute(tt.in)
			assert.Equal(t, tt.chain, b.Chain.Time, "chain: %s", b.Chain.Note)
			assert.Equal(t, tt.disk, b.Disk.Time, "disk")
			assert.Equal(t, tt.cpu, b.CPU.Time, "cpu")
			assert.Equal(t, tt.serial, b.Serial.Time, "serial: %s", b.Serial.Note)
			assert.Equal(t, tt.maxName, b.Max().Name)
			want := max(tt.chain, tt.disk, tt.cpu, tt.serial)
			assert.InDelta(t, 2.0, b.Ratio(2*want), 1e-9, "a run twice the bound is at 2.0x")
		})
	}
}

func TestRatioWithoutBound(t *testing.T) {
	assert.Zero(t, Compute(Inputs{}).Ratio(time.Minute))
}

func TestFromJournal(t *testing.T) {
	done := func(job, kind, table string, d time.Duration, files ...journal.File) journal.Record {
		return journal.Record{Job: job, Kind: kind, State: journal.Done, Table: table, Elapsed: d, Files: files}
	}
	recs := []journal.Record{
		{Job: journal.RunJob, State: journal.Started},
		done("create-target", "create-target", "", 2*s),
		done("dump:PUB.b", "dump", "PUB.b", 3*s, journal.File{Size: 40}, journal.File{Size: 60}),
		{Job: "load:PUB.b", Kind: "load", State: journal.Failed, Table: "PUB.b", Elapsed: 9 * s}, // a failed attempt does not count
		done("load:PUB.b", "load", "PUB.b", 2*s),
		done("load:PUB.b:2", "load", "PUB.b", 4*s), // sections: the longest
		done("dump:PUB.a", "dump", "PUB.a", s),
		done("load:PUB.a", "load", "PUB.a", s),
		done("idxbuild", "idxbuild", "", 5*s),
		done("analyze-target", "analyze-target", "", s),
		done("analyze-source", "analyze-source", "", 6*s),
	}
	in := FromJournal(recs, map[string]Size{"pub.a": {0, 7}, "pub.b": {0, 1}})
	assert.Equal(t, []Table{{"PUB.a", 7, s, s}, {"PUB.b", 100, 3 * s, 4 * s}}, in.Tables, "dump file sizes win over the plan")
	assert.Equal(t, 5*s, in.Idxbuild)
	assert.Equal(t, 2*s, in.CreateTarget)
	assert.Equal(t, s, in.AnalyzeTarget)
	assert.Equal(t, 6*s, in.AnalyzeSource)
	assert.EqualValues(t, 107, in.DumpBytes())
}

// The least before-image of a table: -i's fifth of its notes, a note
// being the record and 40 bytes (docs/oesim.md, "Before-image writes"),
// for the records its dumps counted at the plan's mean record size, never
// more bytes than its dump files.
func TestFromJournalLeastBI(t *testing.T) {
	dump := func(job, table string, records int64, known bool, size int64) journal.Record {
		return journal.Record{Job: job, Kind: "dump", State: journal.Done, Table: table, Records: records, CountKnown: known,
			Files: []journal.File{{Size: size}}}
	}
	tests := []struct {
		name    string
		recs    []journal.Record
		planned map[string]Size
		want    int64
	}{
		// 0.2 · (100·60 + 100·40) = 2000.
		{"the records counted at the plan's mean", []journal.Record{dump("dump:PUB.a", "PUB.a", 100, true, 10_000)},
			map[string]Size{"pub.a": {50, 3000}}, 2000},
		// Two sections of 50: 0.2 · (100·60 + 100·40) = 2000.
		{"sections add up", []journal.Record{dump("dump:PUB.a:1", "PUB.a", 50, true, 5000), dump("dump:PUB.a:2", "PUB.a", 50, true, 5000)},
			map[string]Size{"pub.a": {100, 6000}}, 2000},
		// The table dumped again after a failed load: the new dump replaces
		// the first, it does not add to it.
		{"a dump done again counts once", []journal.Record{dump("dump:PUB.a", "PUB.a", 100, true, 10_000), dump("dump:PUB.a@r1", "PUB.a", 100, true, 10_000)},
			map[string]Size{"pub.a": {50, 3000}}, 2000},
		// The plan's 100 records when no count is known: 0.2 · (6000 + 4000).
		{"no count: the plan's", []journal.Record{dump("dump:PUB.a", "PUB.a", 0, false, 10_000)},
			map[string]Size{"pub.a": {100, 6000}}, 2000},
		// The plan's mean says 6000 bytes, the dump files hold 1000:
		// 0.2 · (1000 + 4000) = 1000.
		{"never more bytes than the dump files", []journal.Record{dump("dump:PUB.a", "PUB.a", 100, true, 1000)},
			map[string]Size{"pub.a": {100, 6000}}, 1000},
		// Without a plan the record bytes are unknown: the notes'
		// overhead alone, 0.2 · 100·40 = 800.
		{"no plan: the notes' overhead only", []journal.Record{dump("dump:PUB.a", "PUB.a", 100, true, 10_000)}, nil, 800},
		{"a table with no record writes none", []journal.Record{dump("dump:PUB.a", "PUB.a", 0, true, 100)},
			map[string]Size{"pub.a": {0, 0}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, FromJournal(tt.recs, tt.planned).BIBytes)
		})
	}
}

// A table loaded in a batch has no time of its own: its load is the
// batch's call, the longest that went through (not 0 s).
func TestFromJournalBatches(t *testing.T) {
	member := func(table, batch string, state journal.State) journal.Record {
		return journal.Record{Job: "load:" + table, Kind: "load", State: state, Table: table, Batch: batch}
	}
	call := func(id string, state journal.State, d time.Duration) journal.Record {
		return journal.Record{Job: id, Kind: "load-batch", State: state, Area: "A", Elapsed: d}
	}
	tests := []struct {
		name string
		recs []journal.Record
		want []Table
	}{
		{"one call", []journal.Record{
			call("load-batch:A:1", journal.Started, 0), member("PUB.x", "load-batch:A:1", journal.Done), member("PUB.y", "load-batch:A:1", journal.Done),
			call("load-batch:A:1", journal.Done, 2*s),
		}, []Table{{Name: "PUB.x", Load: 2 * s}, {Name: "PUB.y", Load: 2 * s}}},
		{"a failed call counts nothing; the call after the repair does", []journal.Record{
			member("PUB.x", "load-batch:A:1", journal.Failed), call("load-batch:A:1", journal.Failed, 9*s),
			member("PUB.x", "load-batch:A:1@r1", journal.Done), call("load-batch:A:1@r1", journal.Done, 3*s),
		}, []Table{{Name: "PUB.x", Load: 3 * s}}},
		{"a table loaded alone after its batch failed", []journal.Record{
			member("PUB.x", "load-batch:A:1", journal.Failed), call("load-batch:A:1", journal.Failed, 9*s),
			{Job: "load:PUB.x", Kind: "load", State: journal.Done, Table: "PUB.x", Elapsed: s},
		}, []Table{{Name: "PUB.x", Load: s}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, FromJournal(tt.recs, nil).Tables)
		})
	}
}
