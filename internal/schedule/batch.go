package schedule

import (
	"time"

	"github.com/oedl/oedl/internal/plan"
)

// Load batches. On a database of hundreds of tiny tables the run is bound
// by utility start-ups, not by data: a table of a kilobyte costs a whole
// proutil start (150-300 ms) to load. proutil -C load -dumplist takes the
// files of several tables in one call ("the equivalent of issuing N
// individual load commands", docs/decisions.md), so the loads of small
// tables of one area go through one call.
//
// Only tables whose load the cost model prices mostly as start-up are
// batched: a table is small when its load's data time is at most the
// start-up (StartupBytes), and a batch holds at most BatchFactor start-ups'
// worth of data, so that one batch never stands long in its area while
// the loads around it wait. One area per batch: a batch that fails is
// repaired as a failed load is, by truncating its area and loading every
// table placed in it again.
//
// Why one start-up's worth, not four: a batch loads its tables one after
// the other, each committed before the next (a waited BI write), so its
// span is the sum of its members' data and commits, while the same tables
// loaded alone share the load slots and the disk side by side. On a
// saturated disk every stream gets its share and every waited request
// queues behind the others', so that sum stretches with the contention:
// seed003 40MB at 10 MiB/s (docs/benchmarks/run.md, "A batch's span"),
// batches of 32 tables took about 5.6 s with 0.04 MiB in them and about
// 2.7 s more per MiB: 22-26 s with 7-10 MiB (one to three tables of
// 0.8-4.2 MiB among small ones), longer than the largest table's load
// alone (11 MiB, 15 s). With at most one start-up's worth of data in a batch, what
// a batch adds to the span of its largest table is at most what the
// batch saves (one start-up), and two tables each near the limit load
// side by side instead of in a row (the plan lists tables largest first,
// so the largest small table of an area then loads alone).

// Member is one table of a load batch.
type Member struct {
	Table   string
	Records int64
	Bytes   int64
}

// BatchOptions group small loads into batches (the zero value: none).
type BatchOptions struct {
	// TableMax: a table of at most this many bytes joins a batch (0 = no
	// batches). StartupBytes gives it from the cost model.
	TableMax int64
	// BatchMax bounds the bytes of one batch (0 = BatchFactor × TableMax).
	BatchMax int64
	// MaxTables bounds the tables of one batch (0 = DefaultBatchTables).
	MaxTables int
}

// DefaultBatchTables bounds a batch's tables by default: enough to take
// the start-ups out of a long tail, few enough that a batch's console
// output and its retry after a failure stay small.
const DefaultBatchTables = 32

// BatchFactor is how many start-ups' worth of data a batch may hold (see
// the package's note on load batches for why one).
const BatchFactor = 1

// StartupBytes is the size of table whose load cost prices at twice an
// empty table's: below it, start-up is most of a load. It is read from
// the same cost function that orders the queue and that the estimate
// uses (a calibrated model, or DefaultCost). 0 when cost grows with
// nothing.
func StartupBytes(cost func(*Job) time.Duration) int64 {
	return startupBytes(cost, KindLoad, SlotLoad)
}

// startupBytes is StartupBytes for a job of kind k in slot s.
func startupBytes(cost func(*Job) time.Duration, k Kind, s Slot) int64 {
	if cost == nil {
		cost = DefaultCost
	}
	at := func(b int64) time.Duration { return cost(&Job{Kind: k, Bytes: b, Slot: s}) }
	empty := at(0)
	const limit = 1 << 40
	if empty <= 0 || at(limit) < 2*empty {
		return 0
	}
	lo, hi := int64(0), int64(limit) // at(lo) < 2*empty <= at(hi)
	for hi-lo > 1024 {
		mid := lo + (hi-lo)/2
		if at(mid) < 2*empty {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

func (o BatchOptions) enabled() bool { return o.TableMax > 0 }

func (o BatchOptions) limits() (bytes int64, tables int) {
	bytes, tables = o.BatchMax, o.MaxTables
	if bytes <= 0 {
		bytes = BatchFactor * o.TableMax
	}
	if tables <= 0 {
		tables = DefaultBatchTables
	}
	return bytes, tables
}

// Batch is the tables of one load batch, all placed in Area.
type Batch struct {
	Area    string
	Members []Member
}

// Batches groups the tables of p that are worth batching: per target
// area, in plan order, small tables (at most TableMax bytes) are dealt
// into batches of at most MaxTables tables and BatchMax bytes. A batch of
// one table is no batch: that table loads on its own. skip excludes
// tables (threaded dumps, whose loads come section by section). The
// result is in a stable order: the same plan and options give the same
// batches, so their job IDs hold across invocations.
func Batches(p *plan.Plan, o BatchOptions, skip func(plan.Placement) bool) []Batch {
	if !o.enabled() {
		return nil
	}
	maxBytes, maxTables := o.limits()
	var out []Batch
	open := map[string]*Batch{}
	openBytes := map[string]int64{}
	var areas []string // in the order first seen
	flush := func(area string) {
		if b := open[area]; b != nil && len(b.Members) > 1 {
			out = append(out, *b)
		}
		open[area], openBytes[area] = nil, 0
	}
	for _, t := range p.Tables {
		if t.DumpBytes() > o.TableMax || (skip != nil && skip(t)) {
			continue
		}
		a := t.DataArea
		b, seen := open[a]
		if !seen {
			areas = append(areas, a)
		}
		if b != nil && (len(b.Members) >= maxTables || openBytes[a]+t.DumpBytes() > maxBytes) {
			flush(a)
		}
		if open[a] == nil {
			open[a] = &Batch{Area: a}
		}
		open[a].Members = append(open[a].Members, Member{Table: t.Table, Records: t.Records, Bytes: t.DumpBytes()})
		openBytes[a] += t.DumpBytes()
	}
	for _, a := range areas {
		flush(a)
	}
	return out
}
