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

// Size is a table's records and their bytes, as the plan's analysis of
// the source counted them (the records alone, no dump framing).
type Size struct{ Records, Bytes int64 }

// Planned is the plan's sizes by lower-case table name, FromJournal's
// planned.
func Planned(p *plan.Plan) map[string]Size {
	m := map[string]Size{}
	if p != nil {
		for _, t := range p.Tables {
			m[strings.ToLower(t.Table)] = Size{t.Records, t.Bytes}
		}
	}
	return m
}

// FromJournal takes the measured costs of a run from its journal: per
// table the longest successful dump and load (sections of one table can
// run side by side, so the longest is what a chain must hold), the sum of
// the index rebuilds, the target's creation and both tabanalys. A table's bytes
// are its dump files' sizes, or planned[lower-case name]'s without them.
// BIBytes is the least before-image of loading every table's records:
// the records its dumps counted (the plan's without a count) at the
// plan's mean record size, never more bytes than its dump files hold.
// Disk and CPU are the caller's to fill in.
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
		in.Tables = append(in.Tables, *t)
		in.BIBytes += leastTableBI(planned[strings.ToLower(name)], counted[name], dumped[name])
	}
	return in
}

// leastTableBI is LeastBIBytes of one table's records: those its dump
// jobs counted, or the plan's. Their bytes are the plan's mean record
// times that count, at most the dump files' bytes (which hold the records
// and their framing; no bytes without the plan: never too high).
func leastTableBI(p Size, counts map[string]int64, dumpBytes int64) int64 {
	records := p.Records
	if len(counts) > 0 {
		records = 0
		for _, n := range counts {
			records += n
		}
	}
	var bytes int64
	if p.Records > 0 {
		bytes = int64(float64(p.Bytes) / float64(p.Records) * float64(records))
	}
	if dumpBytes > 0 {
		bytes = min(bytes, dumpBytes)
	}
	return LeastBIBytes(records, bytes)
}

// DumpBytes is the bytes of the dump files of in's tables.
func (in Inputs) DumpBytes() int64 {
	var n int64
	for _, t := range in.Tables {
		n += t.Bytes
	}
	return n
}

// DiskPasses is how many times a dump/load moves its data through the
// disk whatever the schedule: the dump reads the source and writes the
// .bd files, the load reads them and writes the target, idxbuild reads
// the target, and the two tabanalys read each side once.
const DiskPasses = 7
