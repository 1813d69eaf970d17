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
//     with nothing but the verification. Measured beside the dumps it
//     took 32.5 s beside 32 dumps on a 10 MiB/s disk (docs/benchmarks/
//     run.md), so it counts at most the tables' bytes (it reads more: the
//     least is the safe side) at the disk's bandwidth and one call, as the
//     target's creation does below, and not at all when the bandwidth is
//     unknown (the run report's case).
//   - Disk: the bytes every schedule must move through the disk (the
//     caller counts them, and the target's formatted extents), and the
//     least before-image (BI) the loads of these records write, at the
//     disk's bandwidth. The BI is docs/oesim.md's "Before-image writes",
//     one model with oesim's charge (openedge.LoadLogging.NoteBytes):
//     every record a load creates is noted in the BI first, whatever the
//     mode; no-integrity (-i) writes the fewest notes (a fifth), crash-safe
//     and -r all of them, so -i's notes are the least. Nothing else -i
//     does adds bytes: it syncs nothing at checkpoints (a sync is an
//     operation, and IOPS are not counted), the blocks a crash-safe
//     checkpoint flushes are the load's data, counted already, and the
//     BI block each table's commit forces out only rounds the notes up.
//   - CPU: the utilities' CPU time over the cores.
//   - Serial: what no parallelism overlaps: the target created before any
//     load (as measured, or its formatted bytes at the disk's bandwidth
//     and its three utility calls when that is less: the measured
//     creation may have shared the disk); after the last load, at least one utility call to rebuild the
//     indexes of that table (the cheapest call of the run: a start-up);
//     the last load itself (at least the cheapest call too); then the
//     target's tabanalys that the verification needs.
//
// Every input is a measured time or a count; a missing one (0) drops out
// of its bound rather than making one up, so a bound is never too high.
package truebound

import (
	"fmt"
	"time"

	"github.com/oedl/oedl/internal/openedge"
)

// Table is one table's measured costs.
type Table struct {
	Name       string
	Bytes      int64
	Dump, Load time.Duration
}

// Inputs are the measured costs of one run.
type Inputs struct {
	Tables []Table
	// Idxbuild is the measured rebuild of every index (all idxbuild calls).
	Idxbuild time.Duration
	// CreateTarget is prostrct create, procopy and the .df load;
	// AnalyzeTarget and AnalyzeSource the two tabanalys.
	CreateTarget, AnalyzeTarget, AnalyzeSource time.Duration
	// DiskBytes at DiskBytesPerSec (0: unknown, no disk bound).
	DiskBytes int64
	// BIBytes is the least before-image the loads write (LeastBIBytes of
	// every table's records): disk work beside DiskBytes.
	BIBytes         int64
	DiskBytesPerSec float64
	// TargetBytes is what creating the target writes (its fixed extents,
	// the BI's included): disk work of every schedule, and with the
	// bandwidth known, a floor for CreateTarget that does not depend on
	// what ran beside it (a run that creates the target while it dumps
	// measures the creation slowed by the dumps' share of the disk).
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
}

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

// Compute computes the four bounds.
func Compute(in Inputs) Bound {
	var b Bound
	var total int64
	for _, t := range in.Tables {
		total += t.Bytes
	}
	b.Chain = Part{Name: "chain", Note: "no table"}
	for _, t := range in.Tables {
		var rebuild time.Duration
		if total > 0 {
			rebuild = time.Duration(float64(in.Idxbuild) * float64(t.Bytes) / float64(total))
		}
		if c := t.Dump + t.Load + rebuild + in.AnalyzeTarget; c > b.Chain.Time || b.Chain.Note == "no table" {
			b.Chain.Time = c
			b.Chain.Note = fmt.Sprintf("%s: dump %s + load %s + its share of the index rebuild %s + target tabanalys %s",
				t.Name, r(t.Dump), r(t.Load), r(rebuild), r(in.AnalyzeTarget))
		}
	}
	call := cheapestCall(in.Tables)
	// The source's tabanalys counts only with the bandwidth known: its
	// measured time beside the dumps is not its time alone.
	var analyzeSource time.Duration
	if in.DiskBytesPerSec > 0 {
		analyzeSource = min(in.AnalyzeSource, seconds(float64(total)/in.DiskBytesPerSec)+call)
	}
	if analyzeSource > b.Chain.Time {
		b.Chain = Part{Name: "chain", Time: analyzeSource, Note: fmt.Sprintf("source tabanalys %s", r(analyzeSource))}
	}
	create := in.CreateTarget
	createNote := ""
	if in.Prepared {
		create, in.TargetBytes, createNote = 0, 0, " (prepared before the window)"
	}
	b.Disk = Part{Name: "disk", Note: "bandwidth unknown"}
	bi := ""
	if in.BIBytes > 0 {
		bi = fmt.Sprintf(", %.1f MiB of before-image notes in it (the least any load writes: -i's)", mib(in.BIBytes))
	}
	if in.DiskBytesPerSec > 0 {
		bytes := in.DiskBytes + in.TargetBytes + in.BIBytes
		b.Disk.Time = seconds(float64(bytes) / in.DiskBytesPerSec)
		b.Disk.Note = fmt.Sprintf("%.1f MiB at %.1f MiB/s%s", mib(bytes), in.DiskBytesPerSec/(1<<20), bi)
		if in.TargetBytes > 0 {
			create = min(create, seconds(float64(in.TargetBytes)/in.DiskBytesPerSec)+3*call)
		}
	}
	if in.DiskBytesPerSec <= 0 && in.BIBytes > 0 {
		b.Disk.Note = fmt.Sprintf("bandwidth unknown; %.1f MiB of before-image notes at least (-i's)", mib(in.BIBytes))
	}
	b.CPU = Part{Name: "cpu", Note: "CPU time unknown"}
	if in.Cores > 0 && in.CPU > 0 {
		b.CPU.Time = in.CPU / time.Duration(in.Cores)
		b.CPU.Note = fmt.Sprintf("%s of utility CPU over %d cores", r(in.CPU), in.Cores)
	}
	b.Serial = Part{Name: "serial", Time: create + 2*call + in.AnalyzeTarget,
		Note: fmt.Sprintf("create target %s%s + the last load and its rebuild, a call each (the cheapest call %s) + target tabanalys %s", r(create), createNote, r(call), r(in.AnalyzeTarget))}
	return b
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
