package truebound

import (
	"slices"
	"strings"
	"time"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/schedule"
)

// Size is a table's records, their bytes and its indexes' used bytes,
// as the plan's analysis of the source counted them (the records alone,
// no dump framing).
type Size struct{ Records, Bytes, Index int64 }

// Planned is the plan's sizes by lower-case table name, FromJournal's
// planned.
func Planned(p *plan.Plan) map[string]Size {
	m := map[string]Size{}
	if p != nil {
		for _, t := range p.Tables {
			m[strings.ToLower(t.Table)] = Size{t.Records, t.Bytes, t.IndexBytes}
		}
	}
	return m
}

// FromJournal takes the measured costs of a run from its journal: per
// table the longest successful dump and load (sections of one table can
// run side by side, so the longest is what a chain must hold), the sum of
// the index rebuilds, the target's creation and both tabanalys. A table's bytes
// are its dump files' sizes, or planned[lower-case name]'s without them.
// Its Data is the records its dumps counted (the plan's without a count)
// at the plan's mean record size, never more bytes than its dump files
// hold; its BI the least before-image of loading them; its Index the
// plan's. The disk's bandwidth, the target's bytes and the CPU are the
// caller's to fill in.
//
// A table loaded in a batch has a load record without time (the call
// loaded several tables; its own part is not measured): its load is the
// call's, the batch's own record. Its chain is then its dump and the
// whole call, what the same work (the same calls) takes at least.
func FromJournal(recs []journal.Record, planned map[string]Size) Inputs {
	var in Inputs
	byName := map[string]*Table{}
	var order []string
	table := func(name string) *Table {
		t := byName[name]
		if t == nil {
			t = &Table{Name: name, Bytes: planned[strings.ToLower(name)].Bytes}
			byName[name] = t
			order = append(order, name)
		}
		return t
	}
	dumped := map[string]int64{}
	counted := map[string]map[string]int64{} // table, dump job: the records it counted
	batch := map[string]time.Duration{}      // a load batch's longest successful call
	inBatch := map[string][]string{}         // the tables loaded in each batch
	for _, r := range recs {
		if r.State != journal.Done || r.Job == journal.RunJob {
			continue
		}
		if r.Batch != "" {
			inBatch[r.Batch] = append(inBatch[r.Batch], r.Table)
		}
		switch schedule.Kind(r.Kind) {
		case schedule.KindDump:
			t := table(r.Table)
			t.Dump = max(t.Dump, r.Elapsed)
			for _, f := range r.Files {
				dumped[r.Table] += f.Size
			}
			if r.CountKnown {
				if counted[r.Table] == nil {
					counted[r.Table] = map[string]int64{}
				}
				// A dump done again (a new dump after a failed load)
				// replaces the first: keyed by the job it repeats.
				counted[r.Table][event.StableID(r.Job)] = r.Records
			}
		case schedule.KindLoad:
			t := table(r.Table)
			t.Load = max(t.Load, r.Elapsed)
		case schedule.KindLoadBatch:
			batch[r.Job] = max(batch[r.Job], r.Elapsed)
		case schedule.KindIdxbuild:
			in.Idxbuild += r.Elapsed
		case schedule.KindCreateTarget:
			in.CreateTarget += r.Elapsed
		case schedule.KindAnalyzeTarget:
			in.AnalyzeTarget += r.Elapsed
		case schedule.KindAnalyzeSource:
			in.AnalyzeSource += r.Elapsed
		}
	}
	for id, tables := range inBatch {
		for _, name := range tables {
			t := table(name)
			t.Load = max(t.Load, batch[id])
		}
	}
	slices.Sort(order)
	for _, name := range order {
		t := byName[name]
		if n, ok := dumped[name]; ok {
			t.Bytes = n
		}
		p := planned[strings.ToLower(name)]
		records := leastRecords(p, counted[name])
		t.Data = leastData(p, records, dumped[name])
		t.BI = LeastBIBytes(records, t.Data)
		t.Index = p.Index
		in.Tables = append(in.Tables, *t)
	}
	return in
}

// leastRecords is the records a table's dump jobs counted, or the plan's.
func leastRecords(p Size, counts map[string]int64) int64 {
	if len(counts) == 0 {
		return p.Records
	}
	var n int64
	for _, c := range counts {
		n += c
	}
	return n
}

// leastData is the bytes of records records: the plan's mean record
// times their count, at most the dump files' bytes (which hold the
// records and their framing); no bytes without the plan: never too high.
func leastData(p Size, records, dumpBytes int64) int64 {
	var bytes int64
	if p.Records > 0 {
		bytes = int64(float64(p.Bytes) / float64(p.Records) * float64(records))
	}
	if dumpBytes > 0 {
		bytes = min(bytes, dumpBytes)
	}
	return bytes
}
