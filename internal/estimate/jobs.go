package estimate

import (
	"math"

	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/schedule"
)

// MaxDefaultJobs bounds the job counts DefaultJobs picks: each job is a
// process and a client of the served database. The broker is started
// with enough users for them (run's serve step sizes -n from the job
// counts, run's brokerUsers: OpenEdge's default of 20 would refuse the 21st
// connection), so the bound is the machine's, not the broker's: at 16,
// seed 003's 873 dump start-ups of 150 ms queued 15 s on a 40 MB
// database whose disk and cores had room for twice the slots; 32 was
// measured faster (docs/benchmarks/run.md, "Dump slots from latency"),
// more was not measured on the 2-core machine the benchmarks run on. An
// explicit --dump-jobs or --load-jobs is not bounded.
const MaxDefaultJobs = 32

// DefaultJobs sizes the default dump and load concurrency of plan p on hw
// from what binds, with m's costs.
//
// A dump or load slot holds one utility for the whole of its job, but the
// job does not hold a core or the disk all that time: its start-up
// (process start, connect, database open: 0.3-0.5 s in the priors, what
// calibrate measures on the machine) and the disk requests it waits for
// one at a time are latency. Many small tables through few slots queue
// on that latency while the cores and the disk idle (issue 12: about 900
// utility calls through 4 dump and 2 load slots). So, per phase, summed
// over the utility calls the run makes (a dump per table; a load per
// table, or per batch of small tables as the default strategy batches
// them):
//
//	serial = latency + core seconds + device seconds + schema seconds
//	floor  = max(core seconds / cores, device seconds, schema seconds)
//	slots  = ceil(serial / floor)         (enough that the slots stop binding)
//
// clamped to [the core rule, MaxDefaultJobs]: the core rule (two dumps per
// core, one load per core, at least 2: DefaultStrategy) stays the least,
// so a plan bound by its cores or its disk runs as before, and one bound
// by start-ups gets the slots that overlap them. The schema seconds are
// the loads' per-table index deactivation under the target's schema lock
// (Model.LoadTableSec): one load at a time holds it, so no count of load
// slots does that part faster, and slots beyond what it leaves to overlap
// only take cores from the dumps beside them. The device seconds are
// counted as one request at a time (bytes/MBps + operations/IOPS), which
// errs on the side of fewer slots.
func DefaultJobs(m *Model, hw Hardware, p *plan.Plan) (dump, load int) {
	base := DefaultStrategy(hw)
	cc := (&Input{Plan: p, Hardware: hw}).context()
	var dumps, loads phaseDemand
	for _, t := range p.Tables {
		dumps.add(m.work(&schedule.Job{Kind: schedule.KindDump, Table: t.Table, Records: t.Records, Bytes: t.DumpBytes()}, cc), &cc.disk)
	}
	for _, j := range defaultLoadCalls(m, p) {
		loads.add(m.work(j, cc), &cc.disk)
	}
	return dumps.slots(base.DumpJobs, hw.Cores), loads.slots(base.LoadJobs, hw.Cores)
}

// defaultLoadCalls are the load calls of p under the default strategy:
// the small tables of an area in batches (schedule.Batches, sized from
// m's costs as the run sizes them), the others one call each.
func defaultLoadCalls(m *Model, p *plan.Plan) []*schedule.Job {
	batches := schedule.Batches(p, DefaultStrategy(m.Hardware).BuildOptions(m.Cost).Batch, nil)
	batched := map[string]bool{}
	var calls []*schedule.Job
	for _, b := range batches {
		j := &schedule.Job{Kind: schedule.KindLoadBatch, Area: b.Area, Members: b.Members}
		for _, mb := range b.Members {
			batched[mb.Table] = true
			j.Records += mb.Records
			j.Bytes += mb.Bytes
		}
		calls = append(calls, j)
	}
	for _, t := range p.Tables {
		if !batched[t.Table] {
			calls = append(calls, &schedule.Job{Kind: schedule.KindLoad, Table: t.Table, Area: t.DataArea, Records: t.Records, Bytes: t.DumpBytes()})
		}
	}
	return calls
}

// phaseDemand is what the jobs of one phase need, summed: seconds of
// latency (start-ups, requests waited for), core seconds, device seconds,
// and seconds under the target's schema lock (one holder at a time).
type phaseDemand struct{ latency, cpu, device, schema float64 }

func (p *phaseDemand) add(w jobWork, d *disk) {
	p.latency += w.startup
	iops, mbps := d.ceilings(true)
	for _, f := range w.flows {
		p.cpu += f.cpu
		p.schema += f.schema
		if mbps > 0 {
			p.device += f.bytes / (mbps * 1e6)
		}
		if iops > 0 {
			p.device += f.ops / iops
		}
		p.latency += f.waits * d.latencyMs / 1000 / math.Max(1, f.qd)
	}
}

// slots is the job count at which the slots stop binding (see
// DefaultJobs), at least base and at most MaxDefaultJobs.
func (p phaseDemand) slots(base, cores int) int {
	floor := math.Max(math.Max(p.cpu/float64(max(1, cores)), p.device), p.schema)
	if floor <= 0 {
		return base
	}
	n := math.Ceil((p.latency + p.cpu + p.device + p.schema) / floor)
	return max(base, int(math.Min(MaxDefaultJobs, n)))
}
