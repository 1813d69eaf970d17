package estimate

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/diskstats"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/schedule"
)

// idxbuildSample is a calibration's three rebuilds, hand-computed on a
// 100 MB/s serial disk without latency: 0.1 s start-up, 1 ms per index of
// the schema (49 of them); the large table moves 1 device byte per table
// byte, the others 4 (many wide indexes per byte).
func idxbuildSample() (*Model, [3]sample, []plan.Placement) {
	m := DefaultModel()
	m.Hardware = Hardware{Cores: 2, DiskMBps: 100, DiskModel: DiskSerial, MemoryBytes: 1 << 30}
	m.Load.StartupSec, m.Load.StartupCPUSec = 0.1, 0
	tables := []plan.Placement{
		{Table: "PUB.big", Records: 250_000, Bytes: 100e6, Indexes: 2},
		{Table: "PUB.small", Records: 10_000, Bytes: 50e6, Indexes: 38},
		{Table: "PUB.empty", Indexes: 9},
	}
	keys := float64(250_000*2 + 10_000*38)
	return m, [3]sample{
		{Job: "idxbuild of the schema", Indexes: 49, Wall: 0.1 + 0.049},
		{Job: "idxbuild PUB.big", Records: 500_000, Bytes: 100e6, Indexes: 2, Wall: 0.1 + 0.002 + 1},
		{Job: "idxbuild scratch", Records: keys, Bytes: 150e6, Indexes: 49, Wall: 0.1 + 0.049 + 1 + 2, CPU: 1},
	}, tables
}

func TestFitIdxbuildSeparatesIndexesAndSizes(t *testing.T) {
	m, idxs, _ := idxbuildSample()
	fitIdxbuild(m, idxs, 50e6, plan.Idxbuild{Threadnum: 1, Datascanthreads: 2}, false)
	ic := m.Idxbuild
	assert.InDelta(t, 0.1, ic.StartupSec, 1e-12, "a utility call's start-up, as measured on the loads")
	assert.InDelta(t, 0.001, ic.SecPerIndex, 1e-9)
	assert.InDelta(t, 1, ic.LargeDevicePerByte, 1e-6)
	assert.Equal(t, int64(50e6), ic.LargeMinBytes)
	assert.InDelta(t, 4, ic.ReadPerByte+ic.WritePerByte, 1e-6)
	// (1 s − 150 MB × 0.005 s/MB) over 880,000 keys
	assert.InDelta(t, 0.25/880_000*1e6, ic.CPUPerKeyUs, 1e-9)

	// A sample of one table: one rate.
	m, idxs, _ = idxbuildSample()
	idxs[2] = idxs[1]
	idxs[2].Indexes = 49
	idxs[2].Wall += 0.047
	idxs[2].CPU = 1
	fitIdxbuild(m, idxs, 0, plan.Idxbuild{}, false)
	assert.Zero(t, m.Idxbuild.LargeMinBytes)
	assert.InDelta(t, 1, m.Idxbuild.ReadPerByte+m.Idxbuild.WritePerByte, 1e-6)
}

// The fitted model, simulated on the sample it was fitted to, takes as long
// as the sample did: the fit and the simulator agree on what a rebuild is.
func TestFittedIdxbuildReproducesItsSample(t *testing.T) {
	m, idxs, tables := idxbuildSample()
	p := plan.Idxbuild{Threadnum: 1, Datascanthreads: 2}
	fitIdxbuild(m, idxs, 50e6, p, false)
	in := Input{Plan: &plan.Plan{Tables: tables, Idxbuild: p}, Hardware: m.Hardware}
	w := m.idxbuildWork(&schedule.Job{Kind: schedule.KindIdxbuild}, in.context())
	assert.InDelta(t, 0.1+0.049, w.startup, 1e-9, "start-up and 49 indexes")
	assert.InDelta(t, idxs[2].Wall, aloneDuration(w, m.Hardware).Seconds(), 1e-3)
	in.Plan.Tables = tables[:1]
	w = m.idxbuildWork(&schedule.Job{Kind: schedule.KindIdxbuild}, in.context())
	assert.InDelta(t, 0.1+0.002+1, aloneDuration(w, m.Hardware).Seconds(), 1e-3, "the large table alone, at its own rate")
}

func TestIdxbuildPaysPerIndex(t *testing.T) {
	m := diskOnlyModel()
	m.Idxbuild.SecPerIndex = 0.5
	m.Idxbuild.KeysPerRecord = 3
	p := testPlan(100e6, 0, 50e6) // 2 indexes each
	p.Tables[1].Indexes = 5       // empty, but its indexes are rebuilt too
	p.Tables[2].Indexes = 0       // unknown: KeysPerRecord of them
	est, err := Run(context.Background(), Input{Plan: p, Hardware: Hardware{Cores: 4, DiskMBps: 100}, Model: m,
		Strategy: Strategy{DumpJobs: 2, LoadJobs: 2}})
	require.NoError(t, err)
	assert.Equal(t, "5s", phase(t, est, "idxbuild").Duration.D().String(), "0.5 s × (2 + 5 + 3) indexes")
}

// Each tabanalys call is its own rate: its time beyond a utility call's
// start-up over its table bytes, the scratch's for a loaded database and
// the source's SourceScanFactor times it. Fails on the line through the
// two calls (their difference in blocks taken for a cost per byte): on
// oesim's erp 40MB it priced the source's tabanalys at 1.87 device bytes
// per table byte where it reads 1.49.
func TestFitTabanalys(t *testing.T) {
	const mbps = 10.486 // 10 MiB/s
	hw := Hardware{Cores: 2, DiskMBps: mbps, DiskModel: DiskSerial}
	// call is a tabanalys of bytes of records that reads read bytes of
	// blocks, after a 0.15 s start-up.
	call := func(bytes, read float64) sample { return sample{Bytes: bytes, Wall: 0.15 + read/(mbps*1e6)} }
	tests := []struct {
		name               string
		src, loaded        [2]float64 // table bytes, bytes read
		wantRead, wantScan float64
	}{
		// The source's Type I areas read whole (61.4 MiB for 41.1 MiB of
		// records), the scratch's sample in packed table clusters.
		{name: "erp: a Type I source, a Type II scratch", src: [2]float64{43.1e6, 64.4e6}, loaded: [2]float64{16.4e6, 19.0e6},
			wantRead: 19.0 / 16.4, wantScan: (64.4 / 43.1) / (19.0 / 16.4)},
		// sports: the source's records sparse in their blocks.
		{name: "sports: a sparse source", src: [2]float64{422e6, 2021e6}, loaded: [2]float64{80e6, 104e6},
			wantRead: 1.3, wantScan: (2021 / 422.0) / 1.3},
		{name: "as packed as its copy", src: [2]float64{300e6, 330e6}, loaded: [2]float64{100e6, 110e6},
			wantRead: 1.1, wantScan: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := DefaultModel()
			m.Hardware = hw
			m.Load.StartupSec = 0.15
			fitTabanalys(m, []sample{call(tt.src[0], tt.src[1]), call(tt.loaded[0], tt.loaded[1])}, false)
			assert.InDelta(t, 0.15, m.Tabanalys.StartupSec, 1e-9, "a utility call's start-up")
			assert.InDelta(t, tt.wantRead, m.Tabanalys.ReadPerByte, 1e-6)
			assert.InDelta(t, tt.wantScan, m.SourceScanFactor, 1e-6)
			assert.Zero(t, m.Tabanalys.CPUPerMB)
			// What each analysis is priced to read is what its call read.
			cc := newCostContext(m.Hardware)
			read := func(k schedule.Kind, bytes float64) float64 {
				return m.work(&schedule.Job{Kind: k, Bytes: int64(bytes)}, cc).flows[0].bytes
			}
			assert.InEpsilon(t, tt.src[1], read(schedule.KindAnalyzeSource, tt.src[0]), 1e-6, "the source's tabanalys")
			assert.InEpsilon(t, tt.loaded[1], read(schedule.KindAnalyzeTarget, tt.loaded[0]), 1e-6, "a loaded database's")
		})
	}
}

// The larger database took no longer, or the sample was the whole
// database: a call's start-up, the rest of each call's time its reading.
func TestFitTabanalysFlat(t *testing.T) {
	hw := Hardware{Cores: 2, DiskMBps: 100, DiskModel: DiskSerial}
	tests := []struct {
		name                    string
		tabs                    []sample
		startup, read, srcRatio float64
	}{
		{name: "does not grow", tabs: []sample{{Bytes: 300e6, Wall: 0.08}, {Bytes: 100e6, Wall: 0.08}}, startup: 0.05, read: 0.03, srcRatio: 1.0 / 3},
		{name: "same bytes", tabs: []sample{{Bytes: 20e6, Wall: 0.25}, {Bytes: 20e6, Wall: 0.25}}, startup: 0.05, read: 1, srcRatio: 1},
		{name: "the scratch's call all start-up", tabs: []sample{{Bytes: 300e6, Wall: 3.05}, {Bytes: 100e6, Wall: 0.04}}, startup: 0.04, read: 1.0033333333, srcRatio: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := DefaultModel()
			m.Hardware = hw
			m.Load.StartupSec = 0.05
			fitTabanalys(m, tt.tabs, false)
			assert.InDelta(t, tt.startup, m.Tabanalys.StartupSec, 1e-9)
			assert.InDelta(t, tt.read, m.Tabanalys.ReadPerByte, 1e-6)
			assert.InDelta(t, tt.srcRatio, m.SourceScanFactor, 1e-6)
		})
	}
}

func TestQueuesWallSharesTheDisk(t *testing.T) {
	hw := Hardware{Cores: 4, DiskMBps: 100, DiskModel: DiskSerial}
	read := PhaseCost{ReadPerByte: 1}
	hundred := []*sampleTable{{bytes: 100e6}, {bytes: 100e6}}
	// A: two 100 MB jobs one after the other; B: one beside A's first.
	// They share 100 MB/s until B ends at 2 s; A's second runs alone.
	ends := queuesWall([]simQueue{read.queue(hundred, 1, hw), read.queue(hundred[:1], 1, hw)}, hw)
	assert.InDelta(t, 3, ends[0], 1e-9)
	assert.InDelta(t, 2, ends[1], 1e-9)
}

// The start-up traffic fitted for a queue that ran beside another makes the
// simulation of both end the queue when it was measured to end.
func TestFitStartupIOBesideAnotherQueue(t *testing.T) {
	m := diskOnlyModel()
	m.Hardware = Hardware{Cores: 4, DiskMBps: 100, DiskModel: DiskSerial}
	tables := []*sampleTable{{bytes: 10e6}, {bytes: 10e6}, {bytes: 10e6}, {bytes: 10e6}}
	dumps := m.Dump.queue(tables, 2, m.Hardware)
	alone := queuesWall([]simQueue{m.Load.queue(tables, 1, m.Hardware), dumps}, m.Hardware)[0]
	measured := sample{Wall: alone * 1.5}
	kb := fitStartupIO(m, m.Load, tables, measured, 1, dumps)
	assert.Positive(t, kb)
	p := m.Load
	p.StartupIOKB = kb
	assert.InDelta(t, measured.Wall, queuesWall([]simQueue{p.queue(tables, 1, m.Hardware), dumps}, m.Hardware)[0], 1e-6)
	assert.Zero(t, fitStartupIO(m, m.Load, tables, sample{Wall: alone / 2}, 1, dumps), "faster than the model without start-up traffic: none")
}

func TestSolveIncreasing(t *testing.T) {
	for _, tc := range []struct {
		name          string
		f             func(float64) float64
		target, limit float64
		want          float64
	}{
		{"linear", func(x float64) float64 { return 2 * x }, 10, 1e4, 5},
		{"already there at 0", func(x float64) float64 { return 3 + x }, 2, 1e4, 0},
		{"a step", func(x float64) float64 { return map[bool]float64{true: 1, false: 0}[x > 700] }, 1, 1e4, 700},
		{"never there: about the limit", func(x float64) float64 { return 0 }, 1, 1e3, 1024},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.InDelta(t, tc.want, solveIncreasing(tc.f, tc.target, tc.limit), 1e-6*max(1, tc.want))
		})
	}
}

// The counters of a phase's calls give its traffic: the slope of sectors
// over table bytes is the bytes per table byte, the slope of requests
// says which share went in random block requests (read-ahead requests of
// 128 KiB and written-back requests of 512 KiB are the sequential ones);
// the intercept, a call's start-up, does not count.
func TestMeasureTraffic(t *testing.T) {
	hw := Hardware{Cores: 2, DiskMBps: 100}
	const kib = 1024
	var s []sample
	for _, mb := range []float64{1, 5, 20, 60, 100} {
		b := mb * 1e6
		read, write := 1.1*b, 1.0*b
		random := 0.2 * read
		io := diskstats.Counts{
			Reads:          uint64(math.Round(random/(8*kib)+(read-random)/(128*kib))) + 3, // + a start-up's requests
			SectorsRead:    uint64(math.Round(read/512)) + 24,
			Writes:         uint64(math.Round(write/(512*kib))) + 1,
			SectorsWritten: uint64(math.Round(write / 512)),
		}
		s = append(s, sample{Bytes: b, IO: &io})
	}
	tr, ok := measureTraffic(s, 8, hw)
	require.True(t, ok)
	assert.InDelta(t, 1.1, tr.read, 0.001)
	assert.InDelta(t, 1.0, tr.write, 0.001)
	assert.InDelta(t, 0.2, tr.readRandom, 0.002)
	assert.InDelta(t, 0, tr.writeRandom, 0.002)
	assert.InDelta(t, 4, tr.perCall, 0.5, "3 reads and a write a call, whatever its size")

	_, ok = measureTraffic(s[:1], 8, hw)
	assert.False(t, ok, "one call is no slope")
	_, ok = measureTraffic([]sample{{Bytes: 1}, {Bytes: 2}}, 8, hw)
	assert.False(t, ok, "no counters")
}

func TestFitSlope(t *testing.T) {
	a, b := fitSlope([]float64{0, 1, 2}, []float64{1, 3, 5})
	assert.InDelta(t, 1, a, 1e-12)
	assert.InDelta(t, 2, b, 1e-12)
	a, b = fitSlope([]float64{1, 2, 3}, []float64{0, 2, 4}) // intercept -2: through the origin
	assert.Zero(t, a)
	assert.InDelta(t, 16.0/14, b, 1e-12)
	a, b = fitSlope([]float64{1, 2}, []float64{5, 3}) // falling: no slope
	assert.Equal(t, []float64{4, 0}, []float64{a, b})
}

// With the traffic measured (here: 0.2 device bytes per table byte, 0.3 s
// of I/O on the 100 MB/s disk) and the CPU from rusage, the sample's
// rebuild says how much of the two overlapped, and the fitted model
// rebuilds the sample in the time it took.
func TestFitIdxbuildOverlapFromMeasuredTraffic(t *testing.T) {
	for _, tc := range []struct {
		name    string
		wall    float64 // of the whole sample's rebuild
		overlap float64
	}{
		{"fully overlapped: the longer of CPU and I/O", 0.1 + 0.049 + 0.5, 1},
		{"taking turns: their sum", 0.1 + 0.049 + 0.5 + 0.3, 0},
		{"half", 0.1 + 0.049 + 0.5 + 0.15, 0.5},
		{"longer than the sum: more CPU", 0.1 + 0.049 + 2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, idxs, tables := idxbuildSample()
			m.Idxbuild.ReadPerByte, m.Idxbuild.WritePerByte = 0.1, 0.1
			m.Idxbuild.ReadRandom, m.Idxbuild.WriteRandom = 0, 0
			p := plan.Idxbuild{Threadnum: 1, Datascanthreads: 2}
			idxs[2].Wall = tc.wall
			idxs[2].CPU = 1 // with the per-MB CPU, 0.5 s on the 2 cores the scan threads use
			fitIdxbuild(m, idxs, 50e6, p, true)
			assert.InDelta(t, 0.2, m.Idxbuild.ReadPerByte+m.Idxbuild.WritePerByte, 1e-12, "the counted traffic stays")
			assert.InDelta(t, tc.overlap, m.Idxbuild.Overlap, 1e-9)
			in := Input{Plan: &plan.Plan{Tables: tables, Idxbuild: p}, Hardware: m.Hardware}
			w := m.idxbuildWork(&schedule.Job{Kind: schedule.KindIdxbuild}, in.context())
			assert.InDelta(t, idxs[2].Wall, aloneDuration(w, m.Hardware).Seconds(), 2e-3)
		})
	}
}

// TestFitLoadTableSec: 30 small tables loaded one call each (singles) and
// then all in one call; the model has a 60 ms start-up (10 ms of it CPU).
// Each single took the start-up and its data; the batch one start-up, the
// same data and a cost for every table but the first.
func TestFitLoadTableSec(t *testing.T) {
	// singles: 29 tables of 5 ms of data, and one of 2.17 s (seed003's
	// gltr_hist, which the model prices at 1.53 s: what the data's time is
	// does not matter, it is measured on both sides).
	singles := func(n int, big bool) []sample {
		var out []sample
		if big {
			out, n = append(out, sample{Job: "load big", Bytes: 29.8e6, Wall: 0.06 + 2.17}), n-1
		}
		for range n {
			out = append(out, sample{Job: "load small", Bytes: 0.1e6, Wall: 0.06 + 0.005})
		}
		return out
	}
	data := 2.17 + 29*0.005
	// Each table after the first also waits for its .bd's first block
	// and its commit's BI block and flush: 16 KiB and 3 requests at
	// 100 MB/s, priced apart (addMemberWaits), not a cost under the lock.
	const own = 16384 / 100e6
	tests := []struct {
		name    string
		wall    float64
		singles []sample
		want    float64
	}{
		{"what the call took beyond one start-up and the tables' data as they loaded alone, per table after the first", 0.06 + 30*0.005 + 29*0.004, singles(30, false), 0.004 - own},
		{"a large table the model underprices is no table cost (the fit against the model's price of the data gave the cap, 50 ms)", 0.06 + data + 29*0.004, singles(30, true), 0.004 - own},
		{"no more than one start-up and the data: no table cost", 0.06 + data - 0.01, singles(30, true), 0},
		{"never more than the start-up's wait (the single loads paid it in their start-up)", 10, singles(30, true), 0.05},
		{"one table cannot tell", 1, singles(1, true), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := DefaultModel()
			m.Hardware = Hardware{Cores: 2, DiskMBps: 100, DiskModel: DiskSerial}
			m.Load = PhaseCost{StartupSec: 0.06, StartupCPUSec: 0.01, ReadPerByte: 0.5, WritePerByte: 0.5}
			m.LoadTableSec = 1 // whatever it was
			fitLoadTableSec(m, sample{Job: "batch", Bytes: 32.7e6, Wall: tt.wall}, tt.singles)
			assert.InDelta(t, tt.want, m.LoadTableSec, 1e-9)
		})
	}
}

func TestFastestKeepsTheFasterCall(t *testing.T) {
	tests := []struct {
		name  string
		walls []float64
		want  float64
	}{
		{"the second was slower (a neighbour's burst)", []float64{0.8, 1.2}, 0.8},
		{"the first was slower", []float64{1.2, 0.8}, 0.8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			i := 0
			s, err := fastest(func() (sample, error) {
				i++
				return sample{Wall: tt.walls[i-1]}, nil
			})
			require.NoError(t, err)
			assert.Equal(t, 2, i, "timed twice")
			assert.Equal(t, tt.want, s.Wall)
		})
	}
}

// TestFitDiskQueue: the batch of small tables beside dumps of the large
// one, timed; the fit finds the queue time that makes the simulation of
// exactly that end when the batch did: the figure the measurement came
// from, 0 when the batch was no slower than its requests served at once.
func TestFitDiskQueue(t *testing.T) {
	m := DefaultModel()
	m.Hardware = Hardware{Cores: 2, DiskMBps: 30, DiskIOPS: 2000, DiskModel: DiskSerial}
	// The dumps stream: requests of 256 KiB, 8.2 ms of the device each
	// (256 KiB at 30 MB/s and one of 2000 operations a second).
	m.Dump = PhaseCost{StartupSec: 0.15, ReadPerByte: 1, WritePerByte: 1}
	var small []*sampleTable
	for i := range 30 {
		small = append(small, &sampleTable{name: fmt.Sprintf("PUB.t%d", i), file: "t.bd", records: 20, bytes: 2000})
	}
	big := &sampleTable{name: "PUB.big", file: "big.bd", records: 50000, bytes: 10 << 20}
	measured := func(queueMs float64) sample {
		hw := m.Hardware
		hw.DiskQueueMs = queueMs
		mm := *m
		mm.Hardware = hw
		mm.Hardware.DiskQueueMs = queueMs
		cc := newCostContext(mm.Hardware)
		batch := &schedule.Job{Kind: schedule.KindLoadBatch}
		for _, s := range small {
			batch.Members = append(batch.Members, schedule.Member{Table: s.name, Records: s.records, Bytes: s.bytes})
			batch.Records += s.records
			batch.Bytes += s.bytes
		}
		dumps := simQueue{slots: 1}
		for range 4 {
			dumps.works = append(dumps.works, mm.work(&schedule.Job{Kind: schedule.KindDump, Table: big.name, Records: big.records, Bytes: big.bytes}, cc))
		}
		return sample{Job: "batch beside dumps", Wall: queuesWall([]simQueue{{works: []jobWork{mm.work(batch, cc)}, slots: 1}, dumps}, mm.Hardware)[0]}
	}
	tests := []struct {
		name     string
		measured sample
		want     float64
	}{
		{"a device that holds each queued request up to 4 ms", measured(4), 4},
		{"up to 1 ms", measured(1), 1},
		{"a queue longer than the dump's requests: the dump's own, the least that explains it", measured(20), 256*1024/30e6*1e3 + 0.5},
		{"no slower than served at once", measured(0), 0},
		{"faster than the model: none", sample{Wall: measured(0).Wall / 2}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fitDiskQueue(m, small, tt.measured, big, 4)
			assert.InDelta(t, tt.want, m.Hardware.DiskQueueMs, 0.01)
		})
	}
}

// The counters read around the three rebuilds saw nothing (the page cache
// held the sample): the traffic is measured as none, and the rebuild's
// time beyond its start-up and indexes is CPU, so that the fitted model
// rebuilds the sample in the time it took with no device bytes. Before,
// "nothing counted" was "not measured", and the wall time became device
// bytes per table byte priced at the disk's rate.
func TestFitIdxbuildCountedNoTraffic(t *testing.T) {
	m, idxs, tables := idxbuildSample()
	none := diskstats.Counts{Reads: 40, SectorsRead: 800, Writes: 70, SectorsWritten: 1400}
	for i := range idxs {
		idxs[i].IO = &none
	}
	p := plan.Idxbuild{Threadnum: 1, Datascanthreads: 2}
	idxs[2].Wall, idxs[2].CPU = 0.1+0.049+2, 1
	c := &calibrator{}
	set := c.fitMeasuredTraffic(m, nil, nil, idxs, nil)
	require.True(t, set["idxbuild"], "counted, no traffic: measured")
	fitIdxbuild(m, idxs, 50e6, p, set["idxbuild"])
	assert.Zero(t, m.Idxbuild.ReadPerByte+m.Idxbuild.WritePerByte, "no device bytes")
	assert.Zero(t, m.Idxbuild.LargeDevicePerByte)
	in := Input{Plan: &plan.Plan{Tables: tables, Idxbuild: p}, Hardware: m.Hardware}
	w := m.idxbuildWork(&schedule.Job{Kind: schedule.KindIdxbuild}, in.context())
	assert.InDelta(t, idxs[2].Wall, aloneDuration(w, m.Hardware).Seconds(), 2e-3, "the sample's rebuild, all of it CPU")
}
