package truebound

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/oedl/oedl/internal/journal"
)

const s = time.Second

const mb = 1 << 20

func TestCompute(t *testing.T) {
	const ms = time.Millisecond
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
			// At 10 MiB/s the call (1 s) and the bytes floor the dump at
			// 1 + 20 MiB = 3 s, the load at 3 s, the rebuild at 1 + 10 MiB
			// = 2 s, the tabanalys at 2 s: the measured times are below,
			// so they stand. chain 1 + 1 + 2 + 1 = 5; disk 10 MiB x5 +
			// 10 MiB x2 = 70 MiB = 7 s; serial 2·1 + 1 = 3.
			name: "measured times below their floors stand",
			in: Inputs{
				Tables:          []Table{{Name: "t", Bytes: 10 * mb, Data: 10 * mb, Dump: s, Load: s}},
				Idxbuild:        2 * s,
				AnalyzeTarget:   s,
				DiskBytesPerSec: 10 * mb,
			},
			chain: 5 * s, disk: 7 * s, serial: 3 * s, maxName: "disk",
		},
		{
			// seed003's defect: a load measured at 22 s in a batch on a
			// saturated disk. Alone it reads 10 MiB of dump files, writes
			// 10 MiB of records and 10 MiB of before-image: 0.5 + 3 = 3.5 s;
			// its dump reads 10 and writes 10: 0.5 + 2 = 2.5 s (measured 5);
			// the tabanalys 0.5 + 1 = 1.5 s, measured 1. chain 2.5 + 3.5 +
			// 0 + 1 = 7 (the old bound: 5 + 22 + 1 = 28); disk 50 + 20 +
			// 10 = 80 MiB = 8 s; serial 2·0.5 + 1 = 2.
			name: "a load slowed by the disk's other users counts its bytes alone",
			in: Inputs{
				Tables: []Table{
					{Name: "big", Bytes: 10 * mb, Data: 10 * mb, BI: 10 * mb, Dump: 5 * s, Load: 22 * s},
					{Name: "tiny", Dump: 500 * ms, Load: 500 * ms},
				},
				AnalyzeTarget:   s,
				DiskBytesPerSec: 10 * mb,
			},
			chain: 7 * s, disk: 8 * s, serial: 2 * s, maxName: "disk",
		},
		{
			// idxbuild and the target's tabanalys may share the disk with
			// the source's tabanalys: the share measured 10 s, alone 1 +
			// (10 + 10) MiB = 3 s; the tabanalys measured 8 s, alone 1 + 1
			// = 2 s; the source's 30 s, alone 1 + 1 = 2 s. chain 1 + 1 + 3
			// + 2 = 7; disk 50 + 20 + 10 = 80 MiB = 8 s; serial 2·1 + 2 = 4.
			name: "the rebuild and the tabanalys count their bytes alone",
			in: Inputs{
				Tables:          []Table{{Name: "t", Bytes: 10 * mb, Data: 10 * mb, Index: 10 * mb, Dump: s, Load: s}},
				Idxbuild:        10 * s,
				AnalyzeTarget:   8 * s,
				AnalyzeSource:   30 * s,
				DiskBytesPerSec: 10 * mb,
			},
			chain: 7 * s, disk: 8 * s, serial: 4 * s, maxName: "disk",
		},
		{
			// The run report's case: no bandwidth, so every job counts at
			// most the cheapest call (0.4 s): a's chain 4·0.4 = 1.6 (the
			// old bound: 3 + 20 + 5 + 2 = 30); the source's tabanalys 0.4;
			// serial: the creation (beside the dumps) three calls 1.2 +
			// 2·0.4 + 0.4 = 2.4; no disk part; cpu 18/2 = 9 binds.
			name: "bandwidth unknown: each job at most the cheapest call",
			in: Inputs{
				Tables: []Table{
					{Name: "a", Bytes: 10 * mb, Data: 10 * mb, Dump: 3 * s, Load: 20 * s},
					{Name: "b", Dump: 500 * ms, Load: 400 * ms},
				},
				Idxbuild:      5 * s,
				CreateTarget:  10 * s,
				AnalyzeTarget: 2 * s,
				AnalyzeSource: 30 * s,
				CPU:           18 * s,
				Cores:         2,
			},
			chain: 1600 * ms, disk: 0, cpu: 9 * s, serial: 2400 * ms, maxName: "cpu",
		},
		{
			// Every pass at its least, at 1 MiB/s: records 10 x5, dump
			// files 20 x2, indexes 5, before-image 2, target extents 3 =
			// 100 MiB = 100 s. No time measured: the other parts are 0.
			name: "the disk counts every pass the method makes",
			in: Inputs{
				Tables:          []Table{{Name: "t", Bytes: 20 * mb, Data: 10 * mb, Index: 5 * mb, BI: 2 * mb}},
				TargetBytes:     3 * mb,
				DiskBytesPerSec: mb,
			},
			chain: 0, disk: 100 * s, serial: 0, maxName: "disk",
		},
		{
			// The creation measured at 20 s beside the dumps; alone it
			// writes 300 MiB at 100 MiB/s = 3 s + 3 calls of 0.5 s = 4.5 s.
			// The tabanalys reads no bytes here: a call, 0.5. serial 4.5 +
			// 2·0.5 + 0.5 = 6; disk 300 MiB / 100 = 3; chain 0.5 x3 = 1.5.
			name: "a creation slowed by the dumps is bounded by its bytes",
			in: Inputs{
				Tables:          []Table{{Name: "t", Dump: s, Load: 500 * ms}},
				CreateTarget:    20 * s,
				AnalyzeTarget:   s,
				DiskBytesPerSec: 100 * mb,
				TargetBytes:     300 * mb,
			},
			chain: 1500 * ms, disk: 3 * s, serial: 6 * s, maxName: "serial",
		},
		{
			// The same run with the target prepared before the window:
			// neither the creation nor its 300 MiB count. serial 2·0.5 +
			// 0.5 = 1.5, the chain 1.5 too (the first on a tie).
			name: "a prepared target is in no part of the window",
			in: Inputs{
				Tables:          []Table{{Name: "t", Dump: s, Load: 500 * ms}},
				CreateTarget:    20 * s,
				AnalyzeTarget:   s,
				DiskBytesPerSec: 100 * mb,
				TargetBytes:     300 * mb,
				Prepared:        true,
			},
			chain: 1500 * ms, disk: 0, serial: 1500 * ms, maxName: "chain",
		},
		{
			// The source's tabanalys measured at 30 s beside the dumps;
			// alone it reads 100 MiB at 10 MiB/s = 10 s + a call of 1 s =
			// 11 s, longer than the table's chain 1 + 1 + 1 + 1 = 4 (it
			// chains with neither: it overlaps them). disk 500 + 200 MiB =
			// 70 s; serial 2·1 + 1 = 3.
			name: "the source's tabanalys is a chain of its own, bounded by its bytes",
			in: Inputs{
				Tables:          []Table{{Name: "t", Bytes: 100 * mb, Data: 100 * mb, Dump: s, Load: s}},
				Idxbuild:        s,
				AnalyzeTarget:   s,
				AnalyzeSource:   30 * s,
				DiskBytesPerSec: 10 * mb,
			},
			chain: 11 * s, disk: 70 * s, serial: 3 * s, maxName: "disk",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := Compute(tt.in)
			assert.Equal(t, tt.chain, b.Chain.Time, "chain: %s", b.Chain.Note)
			assert.Equal(t, tt.disk, b.Disk.Time, "disk: %s", b.Disk.Note)
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

// TestWeakWithoutBandwidth: without the disk's bandwidth every job counts
// only its calls, and the bound says it is weak, so that no reader takes a
// ratio to it for a verdict (the run report's 176x).
func TestWeakWithoutBandwidth(t *testing.T) {
	tables := []Table{{Name: "PUB.a", Bytes: 1 << 20, Data: 1 << 20, Dump: time.Second, Load: time.Second}}
	assert.True(t, Compute(Inputs{Tables: tables}).Weak)
	assert.False(t, Compute(Inputs{Tables: tables, DiskBytesPerSec: 10 << 20}).Weak)
	assert.True(t, Compute(Inputs{Tables: tables}).WeakMax(), "the calls bind: a floor")
	cpuBound := Compute(Inputs{Tables: tables, CPU: time.Minute, Cores: 2})
	assert.Equal(t, "cpu", cpuBound.Max().Name)
	assert.False(t, cpuBound.WeakMax(), "the CPU's part needs no bandwidth: the demo's run report")
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
	in := FromJournal(recs, map[string]Size{"pub.a": {Bytes: 7, Index: 3}, "pub.b": {Bytes: 1}})
	assert.Equal(t, []Table{{Name: "PUB.a", Bytes: 7, Dump: s, Load: s, Index: 3}, {Name: "PUB.b", Bytes: 100, Dump: 3 * s, Load: 4 * s}}, in.Tables,
		"dump file sizes win over the plan; the indexes are the plan's")
	assert.Equal(t, 5*s, in.Idxbuild)
	assert.Equal(t, 2*s, in.CreateTarget)
	assert.Equal(t, s, in.AnalyzeTarget)
	assert.Equal(t, 6*s, in.AnalyzeSource)
}

// A table's records' bytes (Data) are the records its dumps counted at
// the plan's mean record size, never more than its dump files; its least
// before-image is -i's fifth of their notes, a note being the record and
// 40 bytes (docs/oesim.md, "Before-image writes").
func TestFromJournalLeastBytes(t *testing.T) {
	dump := func(job, table string, records int64, known bool, size int64) journal.Record {
		return journal.Record{Job: job, Kind: "dump", State: journal.Done, Table: table, Records: records, CountKnown: known,
			Files: []journal.File{{Size: size}}}
	}
	tests := []struct {
		name     string
		recs     []journal.Record
		planned  map[string]Size
		data, bi int64
	}{
		// 100 records at 60 bytes: 6000; 0.2 · (6000 + 100·40) = 2000.
		{"the records counted at the plan's mean", []journal.Record{dump("dump:PUB.a", "PUB.a", 100, true, 10_000)},
			map[string]Size{"pub.a": {Records: 50, Bytes: 3000}}, 6000, 2000},
		{"sections add up", []journal.Record{dump("dump:PUB.a:1", "PUB.a", 50, true, 5000), dump("dump:PUB.a:2", "PUB.a", 50, true, 5000)},
			map[string]Size{"pub.a": {Records: 100, Bytes: 6000}}, 6000, 2000},
		// The table dumped again after a failed load: the new dump replaces
		// the first, it does not add to it.
		{"a dump done again counts once", []journal.Record{dump("dump:PUB.a", "PUB.a", 100, true, 10_000), dump("dump:PUB.a@r1", "PUB.a", 100, true, 10_000)},
			map[string]Size{"pub.a": {Records: 50, Bytes: 3000}}, 6000, 2000},
		{"no count: the plan's", []journal.Record{dump("dump:PUB.a", "PUB.a", 0, false, 10_000)},
			map[string]Size{"pub.a": {Records: 100, Bytes: 6000}}, 6000, 2000},
		// The plan's mean says 6000 bytes, the dump files hold 1000:
		// 0.2 · (1000 + 4000) = 1000.
		{"never more bytes than the dump files", []journal.Record{dump("dump:PUB.a", "PUB.a", 100, true, 1000)},
			map[string]Size{"pub.a": {Records: 100, Bytes: 6000}}, 1000, 1000},
		// Without a plan the record bytes are unknown: none, and the
		// notes' overhead alone, 0.2 · 100·40 = 800.
		{"no plan: no record bytes", []journal.Record{dump("dump:PUB.a", "PUB.a", 100, true, 10_000)}, nil, 0, 800},
		{"a table with no record writes none", []journal.Record{dump("dump:PUB.a", "PUB.a", 0, true, 100)},
			map[string]Size{"pub.a": {}}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := FromJournal(tt.recs, tt.planned).Tables
			assert.Len(t, ts, 1)
			assert.Equal(t, tt.data, ts[0].Data, "data")
			assert.Equal(t, tt.bi, ts[0].BI, "before-image")
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
