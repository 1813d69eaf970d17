package estimate

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/schedule"
	"github.com/oedl/oedl/internal/units"
)

// fitStartupIO finds the disk traffic per start (KB) of the jobs of queue
// p that makes the simulated queue of the small tables end when it did,
// running beside the other queues (none, or the dumps that ran at the same
// time): bisection on the simulation, which is monotone in it.
func fitStartupIO(m *Model, p PhaseCost, tables []*sampleTable, measured sample, slots int, beside ...simQueue) float64 {
	wall := func(kb float64) float64 {
		q := p
		q.StartupIOKB = kb
		return queuesWall(append([]simQueue{q.queue(tables, slots, m.Hardware)}, beside...), m.Hardware)[0]
	}
	if m.Hardware.DiskMBps <= 0 {
		return 0
	}
	return solveIncreasing(wall, measured.Wall, 1e7)
}

// solveIncreasing finds x in [0, limit] where the increasing f reaches
// target, by bisection: 0 when f(0) is already there, limit when f never
// gets there.
func solveIncreasing(f func(float64) float64, target, limit float64) float64 {
	if f(0) >= target {
		return 0
	}
	lo, hi := 0.0, 1.0
	for f(hi) < target && hi < limit {
		hi *= 4
	}
	for range 40 {
		mid := (lo + hi) / 2
		if f(mid) < target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// simQueue is a queue of jobs with its slots, for queuesWall.
type simQueue struct {
	works []jobWork
	slots int
}

// queue is the sample's tables as jobs of this phase, slots at a time, on
// hw.
func (p PhaseCost) queue(tables []*sampleTable, slots int, hw Hardware) simQueue {
	q := simQueue{slots: slots}
	cc := newCostContext(hw)
	env := cc.dst()
	for _, t := range tables {
		q.works = append(q.works, jobWork{startup: p.startup(), flows: []flowDemand{p.demand(float64(t.records), float64(t.bytes), env)}})
	}
	return q
}

// queuesWall simulates the queues at the same time, each starting its
// works in order as its slots free, and returns when each one's last job
// ends.
func queuesWall(queues []simQueue, hw Hardware) []float64 {
	s := newSim(hw)
	next := make([]int, len(queues))
	end := make([]float64, len(queues))
	start := func(qi int) {
		q := queues[qi]
		s.add(qi, q.works[next[qi]])
		next[qi]++
	}
	for qi, q := range queues {
		for next[qi] < len(q.works) && next[qi] < max(1, q.slots) {
			start(qi)
		}
	}
	for !s.idle() {
		for _, ev := range s.step() {
			if !ev.taskDone {
				continue
			}
			qi := ev.task.ref.(int)
			end[qi] = s.now
			if next[qi] < len(queues[qi].works) {
				start(qi)
			}
		}
	}
	return end
}

// fit turns the measurements into model parameters.
//
// CPU: the utilities' rusage, fitted against records and bytes. Wall time:
// start-up + per-record + per-byte by least squares; what the wall time
// has beyond the CPU is I/O. Traffic: the disk's counters when they were
// read (calibrate_traffic.go), else the priors. The disk: as described
// when it was (KnownDisk), the single stream's I/O beyond the device time
// the model gives it being the per-request latency; otherwise measured by
// the parallel test: when n streams at once move the sample's bytes no
// faster than one stream would, the disk is the limit and its throughput
// is what they achieved; the single stream's I/O time beyond that is the
// latency.
func (c *calibrator) fit(m *Model, dumps, loads []sample, par sample, idxs [3]sample, tabs []sample, createSec float64) error {
	var err error
	dumpIO, err := fitPhase(&m.Dump, dumps)
	if err != nil {
		return fmt.Errorf("dump fit: %w", err)
	}
	loadIO, err := fitPhase(&m.Load, loads)
	if err != nil {
		return fmt.Errorf("load fit: %w", err)
	}
	measured := c.fitMeasuredTraffic(m, dumps, loads, idxs, tabs)
	c.measured = measured
	if c.cfg.KnownDisk {
		c.fitLatency(m, loadIO, measured)
	} else {
		c.measureDisk(m, loads, par, loadIO)
	}
	// The dump's device traffic per table byte, in the disk's terms, when
	// the counters did not say.
	if dumpIO > 0 && !measured["dump"] {
		dev := deviceFactor(dumpIO, m.Hardware, m.Dump, 1)
		m.Dump.ReadPerByte, m.Dump.WritePerByte = dev/2, dev/2
	}
	c.notes = append(c.notes, fitIdxbuild(m, idxs, c.largeMin, c.idx, measured["idxbuild"]))
	fitTabanalys(m, tabs, measured["tabanalys"])
	// One utility call each; preflight and verify are oedl's own Go code.
	m.FixedSec["create-target"] = createSec
	m.DFPerTableSec = 0 // createSec loaded the whole .df
	for _, k := range []string{"dump-df", "dump-sequences", "load-sequences", "dump-security", "post"} {
		m.FixedSec[k] = m.Load.StartupSec
	}
	m.FixedSec["load-security"] = 2 * m.Load.StartupSec // the load, then the read-back
	// The serve and the shutdown are proserve and proshut alone, as timed:
	// oedl run asks proutil -C holder only when one of them refuses
	// (internal/run/serve.go).
	// The preflight's checks of the source are utility calls one after
	// another (internal/run/preflight.go: dump_lasttask_df.p, whose
	// single-user session reads the last transaction id and the .df and
	// proves the source free, proutil -C holder asked only when it is
	// refused; prostrct list; proutil -C describe; the empty database's
	// copy and describe run beside them: preflightSourceCalls), before
	// the run's first event but inside
	// its outage: 1.3 s of a 26.4 s run on seed003 at 150 ms a start-up,
	// priced 0.1 s (docs/benchmarks/run.md, est-fifo). Verify is oedl's
	// own Go code.
	m.FixedSec["preflight"] = 0.1 + preflightSourceCalls*m.Load.StartupSec
	m.FixedSec["verify"] = 0.1
	return nil
}

// measureDisk fits the disk in the model's terms from the loads: device
// bytes at a MB/s ceiling (requests are folded into the throughput: IOPS
// 0), and the per-request latency of one stream.
func (c *calibrator) measureDisk(m *Model, loads []sample, par sample, loadIO float64) {
	m.Hardware.DiskIOPS = 0
	loadDev := m.Load.ReadPerByte + m.Load.WritePerByte
	single := loadIO // s of I/O per table byte, one stream
	// Aggregate: the parallel loads minus their start-ups, spread over n.
	n := float64(c.cfg.Streams)
	parCPU := loads[0].CPU * n // the same large load, n times
	parIO := par.Wall - m.Load.StartupSec - parCPU/math.Min(n, float64(m.Hardware.Cores))
	perByte := math.Max(parIO, 1e-3) / math.Max(par.Bytes, 1) // s per table byte, all streams together
	switch {
	case single <= 0:
		// The loads' time is all CPU and start-up: the disk was never the
		// limit. It gets a ceiling well above what the parallel test made
		// it do, so that it does not become one in the estimate either.
		m.Hardware.DiskMBps = 10 * loadDev * par.Bytes / math.Max(par.Wall, 1e-3) / 1e6
		m.Hardware.DiskLatencyMs = 0
		c.notes = append(c.notes, fmt.Sprintf("I/O too fast to tell from CPU: the disk is set to 10 times what the parallel test reached, %s", m.Hardware.DiskRate()))
	default:
		// The device: at least as fast as the aggregate, no faster than n
		// single streams.
		devPerByte := math.Max(perByte, single/n)
		m.Hardware.DiskMBps = loadDev / devPerByte / 1e6
		// One stream's I/O beyond its share of device time is latency.
		if waits := waitsPerByte(m.Load, m.Hardware); single > devPerByte*1.05 && waits > 0 {
			m.Hardware.DiskLatencyMs = single / waits * 1000
		} else {
			m.Hardware.DiskLatencyMs = 0
		}
		c.notes = append(c.notes, fmt.Sprintf("load I/O: %.3g s/MB one stream, %.3g s/MB with %d streams: disk %s, per-request latency %.2g ms",
			single*1e6, perByte*1e6, c.cfg.Streams, m.Hardware.DiskRate(), m.Hardware.DiskLatencyMs))
	}
}

// fitLatency keeps the described disk, its latency included (given, or
// none): a single stream's wall time cannot tell a per-request wait from
// the CPU a neighbour took, and a latency read from noise would cap every
// stream on every other disk. Without measured traffic, the load's bytes
// are scaled to its I/O time on that disk instead (the priors' access
// pattern).
func (c *calibrator) fitLatency(m *Model, loadIO float64, measured map[string]bool) {
	hw := m.Hardware
	device := ioSecondsPerByte(m.Load, hw, 1)
	if !measured["load"] && loadIO > 0 && device > 0 {
		scale := loadIO / device
		m.Load.ReadPerByte *= scale
		m.Load.WritePerByte *= scale
		c.notes = append(c.notes, fmt.Sprintf("load traffic scaled by %.2f to its I/O time on the described disk (no counters)", scale))
		return
	}
	c.notes = append(c.notes, fmt.Sprintf("load I/O: %.3g s/MB one stream, %.3g s/MB its traffic takes on %s",
		loadIO*1e6, device*1e6, hw.DiskString()))
}

// deviceFactor is the device bytes per table byte (read and written in
// p's proportion, with p's access pattern) that make a stream with qd
// requests in flight spend ioPerByte seconds of I/O per table byte on hw,
// alone: the larger of its device time and the requests it waits for ×
// latency / qd is its I/O time, and both grow with the bytes.
func deviceFactor(ioPerByte float64, hw Hardware, p PhaseCost, qd float64) float64 {
	if dev := p.ReadPerByte + p.WritePerByte; dev > 0 {
		p.ReadPerByte, p.WritePerByte = p.ReadPerByte/dev, p.WritePerByte/dev
	} else {
		p.ReadPerByte, p.WritePerByte = 0.5, 0.5
	}
	t := ioSecondsPerByte(p, hw, qd)
	if t <= 0 {
		return 0
	}
	return ioPerByte / t
}

// ioSecondsPerByte is the I/O time of one table byte of phase p for a
// stream alone on hw (burst credits full) with qd requests in flight.
func ioSecondsPerByte(p PhaseCost, hw Hardware, qd float64) float64 {
	const bytes = 1e9 // large enough that the start-up traffic does not count
	p.StartupIOKB = 0
	cc := newCostContext(hw)
	f := p.demand(0, bytes, cc.dst())
	iops, mbps := cc.disk.ceilings(true)
	t := diskSeconds(&f, cc.disk.serial, iops, mbps)
	if cc.disk.latencyMs > 0 {
		t = math.Max(t, f.waits*cc.disk.latencyMs/1000/math.Max(1, qd))
	}
	return t / bytes
}

// waitsPerByte is the requests one stream of p waits for per table byte.
func waitsPerByte(p PhaseCost, hw Hardware) float64 {
	const bytes = 1e9
	p.StartupIOKB = 0
	cc := newCostContext(hw)
	return p.demand(0, bytes, cc.dst()).waits / bytes
}

// fitPhase fits start-up, CPU and I/O costs of one kind of stream and
// returns its I/O time per table byte (0 when the CPU explains it all).
func fitPhase(p *PhaseCost, s []sample) (ioPerByte float64, err error) {
	rec, byt, wall, cpu := make([]float64, len(s)), make([]float64, len(s)), make([]float64, len(s)), make([]float64, len(s))
	for i, x := range s {
		rec[i], byt[i], wall[i], cpu[i] = x.Records, x.Bytes, x.Wall, x.CPU
	}
	t0, wr, wb, err := robustFit(rec, byt, wall)
	if err != nil {
		return 0, err
	}
	c0, cr, cb, err := fitLinear(rec, byt, cpu)
	if err != nil {
		return 0, err
	}
	p.StartupSec = t0
	p.StartupCPUSec = math.Min(c0, t0)
	p.CPUPerRecordUs = cr * 1e6
	p.CPUPerMB = cb * 1e6
	// Wall per record beyond CPU per record goes with the bytes (records
	// and bytes move together; the I/O is what is left of the wall time).
	ioPerByte = wb - cb
	if extra := wr - cr; extra > 0 {
		var r, b float64
		for i := range s {
			r += rec[i]
			b += byt[i]
		}
		if b > 0 {
			ioPerByte += extra * r / b
		}
	}
	return math.Max(0, ioPerByte), nil
}

// robustFit is fitLinear, refitted without the samples whose residual is
// beyond 3 median absolute deviations, until no more go: one call that
// lost the CPU to a neighbour for half a second must not set the per-byte
// cost, and when a burst of the neighbours' work stalls a third of the
// sample the first fit is pulled up so far that one trim keeps most of the
// stalled calls (a stall only ever adds time). At least half the samples
// stay.
func robustFit(x1, x2, y []float64) (a, b, c float64, err error) {
	a, b, c, err = fitLinear(x1, x2, y)
	if err != nil || len(y) < 6 {
		return a, b, c, err
	}
	k1, k2, ky := x1, x2, y
	for range 10 {
		res := make([]float64, len(ky))
		for i := range ky {
			res[i] = math.Abs(ky[i] - a - b*k1[i] - c*k2[i])
		}
		sorted := append([]float64(nil), res...)
		sort.Float64s(sorted)
		mad := sorted[len(sorted)/2]
		var n1, n2, ny []float64
		for i := range ky {
			if res[i] <= 3*mad || mad == 0 {
				n1, n2, ny = append(n1, k1[i]), append(n2, k2[i]), append(ny, ky[i])
			}
		}
		if len(ny) == len(ky) || 2*len(ny) < len(y) || len(ny) < 3 {
			break
		}
		fa, fb, fc, ferr := fitLinear(n1, n2, ny)
		if ferr != nil {
			break
		}
		a, b, c, k1, k2, ky = fa, fb, fc, n1, n2, ny
	}
	return a, b, c, nil
}

// residuals are log(measured / modelled alone) of the timed jobs, for the
// Monte Carlo range.
func (c *calibrator) residuals(m *Model, dumps, loads []sample) []float64 {
	var out []float64
	for _, group := range []struct {
		p PhaseCost
		s []sample
	}{{m.Dump, dumps}, {m.Load, loads}} {
		for _, x := range group.s {
			cc := newCostContext(m.Hardware)
			w := jobWork{startup: group.p.startup(), flows: []flowDemand{group.p.demand(x.Records, x.Bytes, cc.dst())}}
			pred := aloneDuration(w, m.Hardware).Seconds()
			if pred > 0 && x.Wall > 0 {
				out = append(out, math.Log(x.Wall/pred))
			}
		}
	}
	// The range is the spread around the estimate: centre the residuals,
	// and say how far off the fitted model is on its own sample.
	if len(out) > 0 {
		var mean float64
		for _, r := range out {
			mean += r
		}
		mean /= float64(len(out))
		for i := range out {
			out[i] -= mean
		}
		c.notes = append(c.notes, fmt.Sprintf("the fitted model is %+.0f%% off on its own sample jobs, on average (geometric mean)", (math.Exp(-mean)-1)*100))
	}
	return out
}

// fitIdxbuild sets the idxbuild costs from three rebuilds: the scratch's
// schema without data (idxs[0]: every index, no keys), the largest sample
// table alone (idxs[1]) and the whole sample (idxs[2]: every index, the
// sample's keys). CPU per key comes from the last one's rusage; the
// start-up is every utility call's here (the loads'). The empty rebuild
// gives the cost per index; the large table's rebuild, beyond its indexes,
// its cost per byte; what the whole sample took beyond both, the cost per
// byte of the other tables. A large table has a few narrow indexes per
// byte and small ones many, so the two rates differ: tables larger than
// largeMin (the largest of the other sample tables) are priced at the
// large table's. idxbuild runs alone, so the rest is taken as measured,
// CPU included: the simulator gives a multi-threaded job the larger of its
// CPU and its I/O, and the I/O is what the wall time shows here. It
// returns a note for the report.
func fitIdxbuild(m *Model, idxs [3]sample, largeMin int64, p plan.Idxbuild, measured bool) string {
	ic := &m.Idxbuild
	ic.StartupSec, ic.StartupCPUSec = m.Load.StartupSec, m.Load.StartupCPUSec
	empty, big, all := idxs[0], idxs[1], idxs[2]
	if all.Records <= 0 {
		return "idxbuild: the sample has no keys; idxbuild keeps its priors"
	}
	cpuKeys := math.Max(0, all.CPU-all.Bytes/1e6*ic.CPUPerMB)
	ic.CPUPerKeyUs = cpuKeys / all.Records * 1e6
	rest := func(x sample) float64 { return math.Max(0, x.Wall-ic.StartupSec) }
	ic.SecPerIndex = 0
	if empty.Indexes > 0 {
		ic.SecPerIndex = rest(empty) / empty.Indexes
	}
	bigSec := math.Max(0, rest(big)-ic.SecPerIndex*big.Indexes)
	othersSec := math.Max(0, rest(all)-ic.SecPerIndex*all.Indexes-bigSec)
	othersBytes := all.Bytes - big.Bytes
	qd := math.Max(1, math.Max(float64(p.Datascanthreads), float64(p.Threadnum)))
	perByte := func(sec, bytes float64) float64 {
		return deviceFactor(sec/math.Max(1, bytes), m.Hardware, ic.PhaseCost, qd)
	}
	switch {
	case measured:
		fitIdxbuildOverlap(m, all, rest(all)-ic.SecPerIndex*all.Indexes, p)
	case othersBytes > 0 && big.Bytes > 0 && largeMin > 0:
		dev := perByte(othersSec, othersBytes)
		ic.ReadPerByte, ic.WritePerByte = dev/2, dev/2
		ic.LargeMinBytes, ic.LargeDevicePerByte = largeMin, perByte(bigSec, big.Bytes)
	default:
		dev := perByte(bigSec+othersSec, all.Bytes)
		ic.ReadPerByte, ic.WritePerByte = dev/2, dev/2
		ic.LargeMinBytes, ic.LargeDevicePerByte = 0, 0
	}
	return fmt.Sprintf("idxbuild: %s for %.0f indexes without data, %s for %s alone, %s with the sample's %s: %.3g ms per index, %.3g s/MB for tables over %s, %.3g s/MB for the others, %.3g µs CPU per key",
		units.FormatDuration(seconds(empty.Wall)), empty.Indexes, units.FormatDuration(seconds(big.Wall)), units.FormatIEC(int64(big.Bytes)),
		units.FormatDuration(seconds(all.Wall)), units.FormatIEC(int64(all.Bytes)), ic.SecPerIndex*1e3,
		bigSec/math.Max(1, big.Bytes)*1e6, units.FormatIEC(largeMin), othersSec/math.Max(1, othersBytes)*1e6, ic.CPUPerKeyUs)
}

// fitIdxbuildOverlap: with the traffic counted (fitMeasuredTraffic) and the
// CPU from rusage, the whole sample's rebuild says how much of its CPU and
// its I/O ran at once: it took work seconds beyond its start-up and
// indexes, against max(C, I) when they overlap fully and C + I when they
// take turns (C its CPU over the cores its threads use, I its I/O on this
// disk). What it took beyond C + I is CPU the threads did not spread over
// the cores: the CPU per key grows to give it.
func fitIdxbuildOverlap(m *Model, all sample, work float64, p plan.Idxbuild) {
	ic := &m.Idxbuild
	par, qd, penalty := idxbuildThreads(p, m.Hardware.Cores, ic.ThreadPenalty)
	cpu := (all.Bytes/1e6*ic.CPUPerMB + all.Records*ic.CPUPerKeyUs/1e6) * penalty / par
	io := ioSecondsPerByte(ic.PhaseCost, m.Hardware, qd) * all.Bytes
	hi, lo := math.Max(cpu, io), math.Min(cpu, io)
	switch {
	case work <= hi:
		ic.Overlap = 1
	case work <= hi+lo:
		ic.Overlap = 1 - (work-hi)/lo
	default:
		ic.Overlap = 0
		extra := (work - cpu - io) * par / penalty
		ic.CPUPerKeyUs += extra / all.Records * 1e6
	}
}

// fitTabanalys sets tabanalys's start-up and read rate from its two calls,
// of the source and of the scratch database, when the disk's counters did
// not say (measured: calibrate_traffic.go's scanTraffic set the same two
// from them). A tabanalys reads blocks, not table bytes (a Type I area
// whole, a Type II area's table clusters: docs/oesim.md, "What an analysis
// reads"), and the two databases hold a table byte in different numbers
// of blocks: the source as it grew, the scratch packed by its load as the
// target will be. So each call is its own rate: its time beyond a utility
// call's start-up (the loads') over its table bytes. The scratch's prices
// a loaded database (the target's tabanalys), the source's is
// SourceScanFactor times it. A line through the two took their difference
// in blocks for a cost per byte: on oesim's erp 40MB (the source's Type I
// areas read whole, 61 MiB for 41 MiB of records; the scratch's table
// clusters) its intercept fell below zero and its slope priced the
// source's tabanalys at 1.87 device bytes per table byte where it reads
// 1.5 (branch cal-tba, docs/benchmarks/run.md).
func fitTabanalys(m *Model, tabs []sample, measured bool) {
	if len(tabs) != 2 {
		return
	}
	m.Tabanalys.CPUPerMB = 0
	src, loaded := tabs[0], tabs[1]
	m.Tabanalys.StartupSec = math.Min(m.Load.StartupSec, math.Min(src.Wall, loaded.Wall))
	if measured { // the counters said what each reads
		return
	}
	perByte := func(s sample) float64 {
		if s.Bytes <= 0 {
			return 0
		}
		return deviceFactor(math.Max(0, s.Wall-m.Tabanalys.StartupSec)/s.Bytes, m.Hardware, m.Tabanalys, 1)
	}
	m.Tabanalys.ReadPerByte = perByte(loaded)
	m.SourceScanFactor = 0
	if m.Tabanalys.ReadPerByte <= 0 { // the scratch read nothing the clock saw: the source's rate for both
		m.Tabanalys.ReadPerByte = perByte(src)
		return
	}
	if s := perByte(src); s > 0 {
		m.SourceScanFactor = s / m.Tabanalys.ReadPerByte
	}
}

// fitLoadKeyFactor sets the share of the key work a load with "build
// indexes" pays (Idxbuild.LoadKeyFactor) so that the simulated queue of
// the small tables' loads with build indexes, slots at a time, ends when
// the measured one did: bisection, as for the start-up traffic (the
// queue's time grows with the factor).
func (c *calibrator) fitLoadKeyFactor(m *Model, tables []*sampleTable, measured sample, slots int) {
	cc := newCostContext(m.Hardware)
	cc.idx, cc.tables, cc.threaded, cc.buildIndexesOnLoad = c.idx, map[string]*plan.Placement{}, map[string]bool{}, true
	for name, t := range c.tables {
		cc.tables[strings.ToLower(name)] = t
	}
	wall := func(f float64) float64 {
		q := *m
		q.Idxbuild.LoadKeyFactor = f
		q.RunCPUPerJobSec = 0 // calibrate's own queue, not oedl run's
		sq := simQueue{slots: slots}
		for _, t := range tables {
			j := &schedule.Job{Kind: schedule.KindLoad, Table: t.name, Records: t.records, Bytes: t.bytes}
			sq.works = append(sq.works, q.work(j, cc))
		}
		return queuesWall([]simQueue{sq}, m.Hardware)[0]
	}
	f := solveIncreasing(wall, measured.Wall, 1e4)
	m.Idxbuild.LoadKeyFactor = f
	c.notes = append(c.notes, fmt.Sprintf("%s: %s (the model without key work: %s): load key factor %.2f",
		measured.Job, units.FormatDuration(seconds(measured.Wall)), units.FormatDuration(seconds(wall(0))), f))
}

// fitLoadTableSec sets the part of a load's start-up that each table of a
// call pays again (Model.LoadTableSec) from the small tables loaded in one
// -dumplist call against the same tables loaded one call each (singles):
// each single paid one start-up S (its table's cost included) and its
// data, the batch one start-up, the same data and the cost of every table
// but the first, so
//
//	batch − Σ singles = (n − 1)·(table − S)
//
// The data's time is measured on both sides, not priced by the model: the
// model's error on the sample's largest table is not a table's cost. (It
// was: seed003's second-largest sample table, 29.8 MB, loaded alone in
// 2.17 s where the model said 1.53 — a table larger than the served
// buffer pool flushes at its checkpoints — and the difference, spread over
// the batch's 29 other tables, made 30 to 37 ms a table where a batch of
// 32 tables of a few records takes 5 to 8 ms a table on oesim. Under the
// schema lock, three concurrent batches were then forecast three times
// what they took: docs/benchmarks/eta.md, i14-reg.) The batch's tables
// also wait for their own requests (their .bd's first block, their
// commit): the model prices those apart (addMemberWaits), so they are not
// a table's cost under the lock. It returns a note for the report.
func fitLoadTableSec(m *Model, batch sample, singles []sample) string {
	m.LoadTableSec = 0
	n := len(singles)
	if n < 2 {
		return "load: too few sample tables to tell a table's cost from the start-up"
	}
	var alone float64
	for _, s := range singles {
		alone += s.Wall
	}
	// Less what the table's own waited requests take, which the model
	// prices apart, as requests (addMemberWaits).
	perTable := m.Load.StartupSec + (batch.Wall-alone)/float64(n-1) - memberWaitSec(m.Hardware)
	m.LoadTableSec = math.Min(math.Max(0, perTable), m.Load.startup())
	return fmt.Sprintf("%s: %s (the same %d tables one call each: %s, a start-up %s): %.3g ms per table of a load, under the schema lock",
		batch.Job, units.FormatDuration(seconds(batch.Wall)), n, units.FormatDuration(seconds(alone)),
		units.FormatDuration(seconds(m.Load.StartupSec)), m.LoadTableSec*1e3)
}

// fitDiskQueue finds Hardware.DiskQueueMs, the device time a request
// queued ahead of a waited one holds the device, that makes the simulated
// batch of the small tables end when it did beside the dumps of big, one
// after another: bisection on the simulation, which is monotone in it. 0
// when the batch took no longer beside them than the model gives it with
// its waited requests served at once; at most a second (a device that
// holds a request longer is not queueing, it is stalled). A figure beyond
// the dump's own request time changes nothing in that simulation (a
// request holds the device no longer than its service): the least one
// that explains the batch is kept. It returns a note for the report.
func fitDiskQueue(m *Model, tables []*sampleTable, measured sample, big *sampleTable, dumps int) string {
	batch := &schedule.Job{Kind: schedule.KindLoadBatch}
	for _, t := range tables {
		if t.file == "" {
			continue
		}
		batch.Members = append(batch.Members, schedule.Member{Table: t.name, Records: t.records, Bytes: t.bytes})
		batch.Records += t.records
		batch.Bytes += t.bytes
	}
	dump := &schedule.Job{Kind: schedule.KindDump, Table: big.name, Records: big.records, Bytes: big.bytes}
	wall := func(ms float64) float64 {
		hw := m.Hardware
		hw.DiskQueueMs = ms
		cc := newCostContext(hw)
		beside := simQueue{slots: 1}
		for range dumps {
			beside.works = append(beside.works, m.work(dump, cc))
		}
		return queuesWall([]simQueue{{works: []jobWork{m.work(batch, cc)}, slots: 1}, beside}, hw)[0]
	}
	m.Hardware.DiskQueueMs = 0
	if len(batch.Members) < 2 || measured.Wall <= 0 {
		return "disk queue: too few sample tables to time a batch beside a dump"
	}
	served := wall(0)
	m.Hardware.DiskQueueMs = solveIncreasing(wall, measured.Wall, 1000)
	return fmt.Sprintf("%s: %s (the model with waited requests served at once: %s): a request queued ahead holds the device %.3g ms",
		measured.Job, units.FormatDuration(seconds(measured.Wall)), units.FormatDuration(seconds(served)), m.Hardware.DiskQueueMs)
}

// memberWaitSec is what one table of a batch beyond the first waits for
// its own requests with the disk to itself, as calibrate's batch loads
// (crash-safe, no helper): their device time, or their latency.
func memberWaitSec(hw Hardware) float64 {
	cc := newCostContext(hw)
	one := cc.memberWaits(cc.calibratedLog)
	iops, mbps := cc.disk.ceilings(true)
	return math.Max(diskSeconds(&one, cc.disk.serial, iops, mbps), one.waits*cc.disk.latencyMs/1000)
}
