// Package truebound computes the true lower bound of a dump/load: the
// least wall time any schedule of the same work could take, whatever its
// concurrency, from the costs one run measured. It answers "how close to
// the limit is this run?" where the older figure of scripts/bench
// ("lower bound", the job times packed into oedl's own slots) only
// answers "how well does oedl fill its slots?".
//
// Four bounds, each holding for any schedule; the true lower bound is the
// largest:
//
//   - Chain: the longest chain of true dependencies. For each table, its
//     dump, then its load, then the rebuild of its indexes, then the
//     target's tabanalys (one call that reads the rebuilt target: the
//     verification needs it). The rebuild share is the measured index
//     rebuild spread over the tables by bytes (one idxbuild call rebuilt
//     them all; a schedule that rebuilt each table right after its load
//     would still do that table's share). Beside them, the source's
//     tabanalys on its own: it needs only the frozen source, so it
//     overlaps the dumps and idxbuild (schedule.SourceSide) and chains
//     with nothing but the verification.
//   - Disk: the bytes every schedule of this method moves through the
//     disk, each at its least (below), at the disk's bandwidth.
//   - CPU: the utilities' CPU time over the cores.
//   - Serial: what no parallelism overlaps: the target created before any
//     load; after the last load, at least one utility call to rebuild the
//     indexes of that table (the cheapest call of the run: a start-up);
//     the last load itself (at least the cheapest call too); then the
//     target's tabanalys that the verification needs.
//
// # Each job at most what it needs alone
//
// A time measured in oedl's run is what the job took beside the others:
// a dump measured while 20-30 others shared a saturated disk took far
// longer than any schedule needs for it (seed003 prepared at 30 MiB/s:
// one batch call of 22.57 s as a table's load, against 4.2 MiB of the
// table). A bound built from such times is too high, and a bound must
// never be. So every time in the chain and serial parts is
// min(measured, floor), the floor being what no schedule beats for that
// job: one utility call (the run's cheapest, a start-up) plus the bytes
// it must move at the disk's full bandwidth:
//
//   - a dump reads its table's records and writes its dump files;
//   - a load reads the dump files and writes the records and the least
//     before-image of them (LeastBIBytes);
//   - a table's rebuild share reads its records and writes its indexes
//     (idxbuild runs alone on the target, but the source's tabanalys may
//     run beside it);
//   - the target's tabanalys reads every record (the source's tabanalys
//     may still run beside it); the source's reads every record too
//     (measured beside 32 dumps it took 32.5 s on a 10 MiB/s disk,
//     docs/benchmarks/run.md);
//   - creating the target writes its fixed extents, in three calls
//     (prostrct create, procopy, the .df load): it runs beside the dumps.
//
// With the bandwidth unknown (the run report's case: a run does not
// record its disk) no floor has bytes, and each job counts at most the
// cheapest call: weak, but never a contended measurement presented as a
// bound.
//
// # The disk's bytes, each at its least
//
// A table's records are Data: the plan's mean record size times the
// records its dumps counted, never more than its dump files hold (the
// records plus their framing); a database holds them in blocks with
// headers and free space, so every read or write of them moves at least
// Data. Every schedule of this method, the verification included, moves:
//
//   - Data five times: the dump reads the source's records, the load
//     writes the target's, idxbuild reads them back to build the keys,
//     and each tabanalys reads its side (the verification compares the
//     two);
//   - the dump files twice (Bytes): written by the dump, read by the load;
//   - the indexes once (Index): idxbuild writes them. Index is the used
//     bytes of the source's indexes (the plan's dbanalys "Size", not its
//     blocks): the rebuilt index holds the same entries, packed at most
//     full, so it writes at least that. Its sort files are not counted:
//     with memory enough they stay in memory;
//   - the least before-image (BI) of the loads: docs/oesim.md's
//     "Before-image writes", one model with oesim's charge
//     (openedge.LoadLogging.NoteBytes): every record a load creates is
//     noted in the BI first, whatever the mode; no-integrity (-i) writes
//     the fewest notes (a fifth), crash-safe and -r all of them, so -i's
//     notes are the least. Nothing else -i does adds bytes: it syncs
//     nothing at checkpoints (a sync is an operation, and IOPS are not
//     counted), the blocks a crash-safe checkpoint flushes are the load's
//     data, counted already, and the BI block each table's commit forces
//     out only rounds the notes up;
//   - the target's fixed extents, which its creation writes, unless it
//     was prepared before the window (oedl prepare).
//
// Every input is a measured time or a count; a missing one (0) drops out
// of its bound rather than making one up, so a bound is never too high.
package truebound

import (
	"fmt"
	"time"

	"github.com/oedl/oedl/internal/openedge"
)

// Table is one table's measured costs and the bytes its jobs move at
// least.
type Table struct {
	Name string
	// Bytes is its dump files' bytes: what its dump writes and its load
	// reads.
	Bytes      int64
	Dump, Load time.Duration
	// Data is its records' bytes, Index its indexes' used bytes and BI
	// the least before-image its load writes (package doc).
	Data, Index, BI int64
}

// Inputs are the measured costs of one run.
type Inputs struct {
	Tables []Table
	// Idxbuild is the measured rebuild of every index (all idxbuild calls).
	Idxbuild time.Duration
	// CreateTarget is prostrct create, procopy and the .df load;
	// AnalyzeTarget and AnalyzeSource the two tabanalys.
	CreateTarget, AnalyzeTarget, AnalyzeSource time.Duration
	// DiskBytesPerSec is the disk's bandwidth (0: unknown: no disk bound,
	// and no floor has bytes).
	DiskBytesPerSec float64
	// TargetBytes is what creating the target writes (its fixed extents,
	// the BI's included).
	TargetBytes int64
	// Prepared: the target was made before the window (oedl prepare):
	// neither its creation nor the bytes of its extents are in it, whatever
	// CreateTarget and TargetBytes say.
	Prepared bool
	// CPU is the utilities' CPU time, over Cores (0: unknown).
	CPU   time.Duration
	Cores int
}

// Part is one bound.
type Part struct {
	Name string // chain, disk, cpu, serial
	Time time.Duration
	Note string // what it is made of
}

// Bound is the four bounds of one run.
type Bound struct {
	Chain, Disk, CPU, Serial Part
	// Weak: the disk's bandwidth was not known, so every job counted
	// only its utility calls. The bound still holds, but it says little
	// about how close a run came to the limit: no ratio should be drawn
	// from it (the run report's case; scripts/bench knows its disk),
	// unless the CPU binds (WeakMax).
	Weak bool
}

// WeakMax tells whether the true lower bound is a floor of calls only: a
// weak bound whose largest part is not the CPU's, which needs no
// bandwidth (the utilities' CPU time over the cores holds as measured).
func (b Bound) WeakMax() bool { return b.Weak && b.Max().Name != b.CPU.Name }

// Parts lists the bounds in a fixed order.
func (b Bound) Parts() []Part { return []Part{b.Chain, b.Disk, b.CPU, b.Serial} }

// Max is the true lower bound: the largest part (the first on a tie).
func (b Bound) Max() Part {
	m := b.Chain
	for _, p := range b.Parts()[1:] {
		if p.Time > m.Time {
			m = p
		}
	}
	return m
}

// Ratio is wall over the true lower bound (0 when the bound is 0).
func (b Bound) Ratio(wall time.Duration) float64 {
	if m := b.Max().Time; m > 0 {
		return wall.Seconds() / m.Seconds()
	}
	return 0
}

// floors caps measured times at what a job needs alone: calls utility
// calls and bytes at the disk's bandwidth (the bytes dropped when it is
// unknown).
type floors struct {
	call time.Duration
	bw   float64
}

func (f floors) cap(measured time.Duration, calls int, bytes int64) time.Duration {
	alone := time.Duration(calls) * f.call
	if f.bw > 0 {
		alone += seconds(float64(bytes) / f.bw)
	}
	return min(measured, alone)
}

// Compute computes the four bounds.
func Compute(in Inputs) Bound {
	var b Bound
	var dumped, data, index, bi int64
	for _, t := range in.Tables {
		dumped += t.Bytes
		data += t.Data
		index += t.Index
		bi += t.BI
	}
	if in.Prepared {
		in.CreateTarget, in.TargetBytes = 0, 0
	}
	f := floors{call: cheapestCall(in.Tables), bw: in.DiskBytesPerSec}
	b.Weak = in.DiskBytesPerSec <= 0
	analyzeTarget := f.cap(in.AnalyzeTarget, 1, data)
	b.Chain = Part{Name: "chain", Note: "no table"}
	for _, t := range in.Tables {
		var share time.Duration
		if dumped > 0 {
			share = time.Duration(float64(in.Idxbuild) * float64(t.Bytes) / float64(dumped))
		}
		dump := f.cap(t.Dump, 1, t.Data+t.Bytes)
		load := f.cap(t.Load, 1, t.Bytes+t.Data+t.BI)
		rebuild := f.cap(share, 1, t.Data+t.Index)
		if c := dump + load + rebuild + analyzeTarget; c > b.Chain.Time || b.Chain.Note == "no table" {
			b.Chain.Time = c
			b.Chain.Note = fmt.Sprintf("%s: dump %s + load %s + its share of the index rebuild %s + target tabanalys %s%s",
				t.Name, r(dump), r(load), r(rebuild), r(analyzeTarget), f.alone())
		}
	}
	if analyzeSource := f.cap(in.AnalyzeSource, 1, data); analyzeSource > b.Chain.Time {
		b.Chain = Part{Name: "chain", Time: analyzeSource, Note: fmt.Sprintf("source tabanalys %s%s", r(analyzeSource), f.alone())}
	}
	b.Disk = diskPart(in, dumped, data, index, bi)
	b.CPU = Part{Name: "cpu", Note: "CPU time unknown"}
	if in.Cores > 0 && in.CPU > 0 {
		b.CPU.Time = in.CPU / time.Duration(in.Cores)
		b.CPU.Note = fmt.Sprintf("%s of utility CPU over %d cores", r(in.CPU), in.Cores)
	}
	create := f.cap(in.CreateTarget, 3, in.TargetBytes)
	createNote := ""
	if in.Prepared {
		createNote = " (prepared before the window)"
	}
	b.Serial = Part{Name: "serial", Time: create + 2*f.call + analyzeTarget,
		Note: fmt.Sprintf("create target %s%s + the last load and its rebuild, a call each (the cheapest call %s) + target tabanalys %s%s", r(create), createNote, r(f.call), r(analyzeTarget), f.alone())}
	return b
}

// alone says how the chain's and the serial part's times were capped.
func (f floors) alone() string {
	if f.bw > 0 {
		return fmt.Sprintf(" (each job at most its calls and its bytes at %.1f MiB/s)", f.bw/(1<<20))
	}
	return " (bandwidth unknown: each job at most its calls, the cheapest each)"
}

// diskPart is the bytes every schedule moves (package doc) at the
// bandwidth.
func diskPart(in Inputs, dumped, data, index, bi int64) Part {
	bytes := 5*data + 2*dumped + index + bi + in.TargetBytes
	what := fmt.Sprintf("records %.1f MiB x5 (dump, load, idxbuild, two tabanalys), dump files %.1f MiB x2, indexes %.1f MiB, before-image %.1f MiB (-i's, the least), target extents %.1f MiB",
		mib(data), mib(dumped), mib(index), mib(bi), mib(in.TargetBytes))
	if in.DiskBytesPerSec <= 0 {
		return Part{Name: "disk", Note: fmt.Sprintf("bandwidth unknown; %.1f MiB at least: %s", mib(bytes), what)}
	}
	return Part{Name: "disk", Time: seconds(float64(bytes) / in.DiskBytesPerSec),
		Note: fmt.Sprintf("%.1f MiB at %.1f MiB/s: %s", mib(bytes), in.DiskBytesPerSec/(1<<20), what)}
}

// cheapestCall is the shortest measured dump or load: what any utility
// call costs at least here (its start-up).
func cheapestCall(ts []Table) time.Duration {
	var m time.Duration
	for _, t := range ts {
		for _, d := range []time.Duration{t.Dump, t.Load} {
			if d > 0 && (m == 0 || d < m) {
				m = d
			}
		}
	}
	return m
}

// leastBI is the load mode that writes the least before-image: no
// integrity (-i). The BI block size and cluster do not matter to the
// notes' bytes.
var leastBI = openedge.LoadLogging{Integrity: openedge.NoIntegrity}

// LeastBIBytes is the least before-image any load of records records of
// bytes in all writes: -i's share of their notes.
func LeastBIBytes(records, bytes int64) int64 {
	return int64(leastBI.NoteBytes(float64(records), float64(bytes)))
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

func seconds(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }

func r(d time.Duration) time.Duration { return d.Round(10 * time.Millisecond) }
