package estimate

import (
	"math"

	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/schedule"
)

// MaxDefaultJobs bounds the job counts DefaultJobs picks: each job is a
// client of the served database, and oedl serves it with OpenEdge's
// default of 20 users (-n); 16 leaves room for the broker's own helpers and
// an oedl status. An explicit --dump-jobs or --load-jobs is not bounded.
const MaxDefaultJobs = 16

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
// over the plan's tables as single-stream jobs:
//
//	serial = latency + core seconds + device seconds
//	floor  = max(core seconds / cores, device seconds)   (no slot count beats it)
//	slots  = ceil(serial / floor)                        (enough that the slots stop binding)
//
// clamped to [the core rule, MaxDefaultJobs]: the core rule (two dumps per
// core, one load per core, at least 2: DefaultStrategy) stays the least,
// so a plan bound by its cores or its disk runs as before, and one bound
// by start-ups gets the slots that overlap them. The device seconds are
// counted as one request at a time (bytes/MBps + operations/IOPS), which
// errs on the side of fewer slots.
func DefaultJobs(m *Model, hw Hardware, p *plan.Plan) (dump, load int) {
	base := DefaultStrategy(hw)
	cc := (&Input{Plan: p, Hardware: hw}).context()
	var dumps, loads phaseDemand
	for _, t := range p.Tables {
		j := schedule.Job{Table: t.Table, Records: t.Records, Bytes: t.Bytes}
		j.Kind = schedule.KindDump
		dumps.add(m.work(&j, cc), &cc.disk)
		j.Kind = schedule.KindLoad
		loads.add(m.work(&j, cc), &cc.disk)
	}
	return dumps.slots(base.DumpJobs, hw.Cores), loads.slots(base.LoadJobs, hw.Cores)
}

// phaseDemand is what the jobs of one phase need, summed: seconds of
// latency (start-ups, requests waited for), core seconds, device seconds.
type phaseDemand struct{ latency, cpu, device float64 }

func (p *phaseDemand) add(w jobWork, d *disk) {
	p.latency += w.startup
	iops, mbps := d.ceilings(true)
	for _, f := range w.flows {
		p.cpu += f.cpu
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
	floor := math.Max(p.cpu/float64(max(1, cores)), p.device)
	if floor <= 0 {
		return base
	}
	n := math.Ceil((p.latency + p.cpu + p.device) / floor)
	return max(base, int(math.Min(MaxDefaultJobs, n)))
}
