package estimate

import (
	"math"
	"strings"

	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/schedule"
)

// flowDemand is what one stream of a job needs to finish: core seconds,
// device bytes and device requests. par caps the cores the stream can use
// at once (1 for a proutil stream, the thread count for idxbuild); qd is
// the requests it keeps in flight (it caps the stream's IOPS at
// qd·1000/latency).
type flowDemand struct {
	cpu, bytes, ops float64
	par, qd         float64
}

// jobWork is a job as the simulator sees it: a start-up delay, then one or
// more streams running side by side. For a threaded dump each stream is a
// bracket and its end lands one .bd section.
type jobWork struct {
	startup  float64
	flows    []flowDemand
	sections bool
}

// costContext is what the model knows besides the job: the hardware and,
// when estimating a plan, the tables (index counts, areas) and the tuned
// idxbuild parameters.
type costContext struct {
	hw       Hardware
	tables   map[string]*plan.Placement // by lower-case owner.table
	list     []*plan.Placement          // the same, in plan order (sums in a fixed order)
	idx      plan.Idxbuild
	extentKB int64 // fixed extents prostrct create writes
	nTables  int
	// buildIndexesOnLoad moves the key work of every single-file table from
	// idxbuild into its load; threaded tables stay in idxbuild.
	buildIndexesOnLoad bool
	threaded           map[string]bool
}

// startup is the part of the start-up that is waiting, not computing: the
// CPU part is charged with the stream's CPU work, so that many small jobs
// on few cores queue for the CPU as real process starts do.
func (p PhaseCost) startup() float64 { return math.Max(0, p.StartupSec-p.StartupCPUSec) }

func (p PhaseCost) demand(records, bytes float64) flowDemand {
	dev := bytes*(p.ReadPerByte+p.WritePerByte) + p.StartupIOKB*1024
	return flowDemand{
		cpu:   math.Min(p.StartupCPUSec, p.StartupSec) + records*p.CPUPerRecordUs/1e6 + bytes/1e6*p.CPUPerMB,
		bytes: dev,
		ops:   dev / (p.IOSizeKB * 1024),
		par:   1, qd: 1,
	}
}

func (m *Model) work(j *schedule.Job, cc costContext) jobWork {
	switch j.Kind {
	case schedule.KindDump:
		return m.dumpWork(j, cc)
	case schedule.KindLoad:
		w := jobWork{startup: m.Load.startup(), flows: []flowDemand{m.Load.demand(float64(j.Records), float64(j.Bytes))}}
		if cc.buildIndexesOnLoad && !cc.threaded[j.Table] {
			keys, keyBytes := m.keys(j.Table, j.Records, cc)
			f := &w.flows[0]
			f.cpu += m.Idxbuild.LoadKeyFactor * keys * m.Idxbuild.CPUPerKeyUs / 1e6
			extra := float64(j.Bytes) * m.Idxbuild.WritePerByte
			if keyBytes > m.sortMemory(cc) {
				extra += keyBytes * m.Idxbuild.SortIOPerKeyByte
			}
			f.bytes += extra
			f.ops += extra / (m.Idxbuild.IOSizeKB * 1024)
		}
		return w
	case schedule.KindIdxbuild:
		return m.idxbuildWork(j, cc)
	case schedule.KindAnalyzeSource, schedule.KindAnalyzeTarget:
		return jobWork{startup: m.Tabanalys.startup(), flows: []flowDemand{m.Tabanalys.demand(float64(j.Records), float64(j.Bytes))}}
	case schedule.KindCreateTarget:
		w := jobWork{startup: m.FixedSec[string(j.Kind)] + m.DFPerTableSec*float64(cc.nTables)}
		if cc.extentKB > 0 && m.ExtentWritePerByte > 0 {
			b := float64(cc.extentKB) * 1024 * m.ExtentWritePerByte
			w.flows = []flowDemand{{bytes: b, ops: b / (1 << 20), par: 1, qd: 1}}
		}
		return w
	}
	return jobWork{startup: m.FixedSec[string(j.Kind)]}
}

// dumpWork splits a threaded dump into brackets: the first, the largest,
// holds (1+skew)/threads of the table, the others share the rest.
func (m *Model) dumpWork(j *schedule.Job, cc costContext) jobWork {
	threads := j.Threads
	if cc.hw.Cores > 0 && threads > cc.hw.Cores {
		threads = cc.hw.Cores // threads = min(threadnum, root entries, CPUs)
	}
	w := jobWork{startup: m.Dump.startup()}
	if threads <= 1 {
		w.flows = []flowDemand{m.Dump.demand(float64(j.Records), float64(j.Bytes))}
		return w
	}
	w.sections = true
	for _, share := range bracketShares(threads, m.BracketSkew) {
		w.flows = append(w.flows, m.Dump.demand(float64(j.Records)*share, float64(j.Bytes)*share))
	}
	return w
}

func bracketShares(threads int, skew float64) []float64 {
	first := math.Min(1, (1+skew)/float64(threads))
	shares := []float64{first}
	for i := 1; i < threads; i++ {
		shares = append(shares, (1-first)/float64(threads-1))
	}
	return shares
}

// keys returns the number of index keys of a table and their sort bytes.
func (m *Model) keys(table string, records int64, cc costContext) (keys, keyBytes float64) {
	perRecord := m.Idxbuild.KeysPerRecord
	var indexBytes int64
	if t := cc.tables[strings.ToLower(table)]; t != nil {
		if t.Indexes > 0 {
			perRecord = float64(t.Indexes)
		}
		indexBytes = t.IndexBytes
	}
	keys = float64(records) * perRecord
	keyBytes = keys * m.Idxbuild.KeyBytes
	if indexBytes > 0 {
		keyBytes = float64(indexBytes)
	}
	return keys, keyBytes
}

// sortMemory is the -TF share of memory idxbuild sorts in (KB 000037016).
func (m *Model) sortMemory(cc costContext) float64 {
	tf := cc.idx.TF
	if tf <= 0 {
		tf = 50 // the documented default
	}
	return float64(cc.hw.MemoryBytes) * float64(tf) / 100
}

// idxbuildWork is the rebuild of every index whose keys were not built
// during the load: data scan, key sort (spilling to disk when the keys do
// not fit in -TF memory) and B-tree writes, on as many cores as its threads
// can use, slowed down when they oversubscribe the cores.
func (m *Model) idxbuildWork(j *schedule.Job, cc costContext) jobWork {
	ic := m.Idxbuild
	var records, bytes, keys, keyBytes, indexes, large float64
	if len(cc.list) == 0 {
		records, bytes = float64(j.Records), float64(j.Bytes)
		keys, keyBytes = m.keys("", j.Records, cc)
	} else {
		for _, t := range cc.list {
			if cc.buildIndexesOnLoad && !cc.threaded[strings.ToLower(t.Table)] {
				continue
			}
			k, kb := m.keys(t.Table, t.Records, cc)
			records += float64(t.Records)
			bytes += float64(t.Bytes)
			keys += k
			keyBytes += kb
			indexes += m.indexesOf(t)
			if ic.LargeMinBytes > 0 && t.Bytes > ic.LargeMinBytes {
				large += float64(t.Bytes)
			}
		}
	}
	f := ic.demand(records, bytes)
	if large > 0 {
		// The large tables at their own rate (LargeDevicePerByte).
		f.bytes += large * (ic.LargeDevicePerByte - ic.ReadPerByte - ic.WritePerByte)
		f.ops = f.bytes / (ic.IOSizeKB * 1024)
	}
	f.cpu += keys * ic.CPUPerKeyUs / 1e6
	if keyBytes > m.sortMemory(cc) {
		spill := keyBytes * ic.SortIOPerKeyByte
		f.bytes += spill
		f.ops += spill / (ic.IOSizeKB * 1024)
	}
	threads, scan := float64(cc.idx.Threadnum*max(1, cc.idx.Mergethreads)), float64(cc.idx.Datascanthreads)
	cores := float64(max(1, cc.hw.Cores))
	if threads <= 0 {
		threads = cores // -threadnum defaults to the number of CPUs
	}
	f.par = math.Min(cores, math.Max(threads, scan))
	f.qd = math.Max(1, math.Max(scan, float64(cc.idx.Threadnum)))
	if over := (threads+scan)/(2*cores) - 1; over > 0 {
		f.cpu *= 1 + ic.ThreadPenalty*over
	}
	return jobWork{startup: ic.startup() + ic.SecPerIndex*indexes, flows: []flowDemand{f}}
}

// indexesOf is the number of indexes of t: the plan's count, or the
// prior's keys per record when the plan does not know it.
func (m *Model) indexesOf(t *plan.Placement) float64 {
	if t.Indexes > 0 {
		return float64(t.Indexes)
	}
	return math.Round(m.Idxbuild.KeysPerRecord)
}
