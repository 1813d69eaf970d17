package estimate

import (
	"math"
	"strings"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/schedule"
)

// flowDemand is what one stream of a job needs to finish: core seconds,
// device bytes, the operations the device counts (ops) and the requests
// the stream waits for (waits: traffic.go). par caps the cores the stream
// can use at once (1 for a proutil stream, the thread count for idxbuild);
// qd is the requests it keeps in flight (its waits take
// waits·latency/qd); overlap is the share of the shorter of its CPU and
// its I/O that runs under the longer (0: one after the other, a proutil
// stream; 1: fully, threads that compute while others wait).
//
// schema is the seconds the stream holds the target database's schema
// lock (a load's index deactivation, once per table), computing: no two
// streams hold it at once, and each holds a core while it does.
type flowDemand struct {
	cpu, bytes, ops, waits float64
	par, qd, overlap       float64
	schema                 float64
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
	disk     disk
	srcKB    float64                    // the source's database block, KiB: a dump's random request
	dstKB    float64                    // the target's: a load's, idxbuild's
	tables   map[string]*plan.Placement // by lower-case owner.table
	list     []*plan.Placement          // the same, in plan order (sums in a fixed order)
	idx      plan.Idxbuild
	extentKB int64 // fixed extents prostrct create writes
	// growth is what each table's load and rebuild add to variable
	// extents, formatted as they grow (vargrow.go); nil prices none.
	growth  map[string]growth
	nTables int
	// buildIndexesOnLoad moves the key work of every single-file table from
	// idxbuild into its load; threaded tables stay in idxbuild.
	buildIndexesOnLoad bool
	threaded           map[string]bool
	// loadLog is how the run's loads pay their BI notes and checkpoints,
	// calibratedLog how the loads the model was measured on did (biload.go).
	loadLog, calibratedLog openedge.LoadLogging
}

// startup is the part of the start-up that is waiting, not computing: the
// CPU part is charged with the stream's CPU work, so that many small jobs
// on few cores queue for the CPU as real process starts do.
func (p PhaseCost) startup() float64 { return math.Max(0, p.StartupSec-p.StartupCPUSec) }

// newCostContext is the context of a job with no plan around it: the
// hardware and its disk, blocks of the default size.
func newCostContext(hw Hardware) costContext {
	log := calibratedLogging(int64(defaultRandomKB * 1024))
	return costContext{hw: hw, disk: hw.disk(), srcKB: defaultRandomKB, dstKB: defaultRandomKB, loadLog: log, calibratedLog: log}
}

func (cc *costContext) src() ioEnv { return ioEnv{d: &cc.disk, blockKB: cc.srcKB} }
func (cc *costContext) dst() ioEnv { return ioEnv{d: &cc.disk, blockKB: cc.dstKB} }

// demand is one stream of the phase moving bytes of table data in
// records: its CPU, and its traffic by access pattern; the start-up's own
// traffic (opening the database, its log and before-image) is random
// block reads.
func (p PhaseCost) demand(records, bytes float64, env ioEnv) flowDemand {
	f := flowDemand{
		cpu: math.Min(p.StartupCPUSec, p.StartupSec) + records*p.CPUPerRecordUs/1e6 + bytes/1e6*p.CPUPerMB,
		par: 1, qd: 1,
	}
	f.add(p.shape(bytes, env), env.d)
	if p.StartupIOKB > 0 {
		f.add(ioShape{read: p.StartupIOKB * 1024, readRandom: 1, randomKB: env.blockKB}, env.d)
	}
	return f
}

// work is what job j asks of the machine: the utility's work, and oedl's
// own CPU for each job it journals (RunCPUPerJobSec), on the same cores.
func (m *Model) work(j *schedule.Job, cc costContext) jobWork {
	w := m.utilityWork(j, cc)
	if len(w.flows) > 0 {
		jobs := 1.0
		if j.Kind == schedule.KindLoadBatch {
			jobs = float64(len(j.Members)) // each member is journalled as a load
		}
		w.flows[0].cpu += m.RunCPUPerJobSec * jobs
	}
	return w
}

func (m *Model) utilityWork(j *schedule.Job, cc costContext) jobWork {
	switch j.Kind {
	case schedule.KindDump:
		return m.dumpWork(j, cc)
	case schedule.KindLoad, schedule.KindLoadBatch:
		// A batch is one start-up for the data of all its tables, but
		// each of its tables has its indexes deactivated, under the
		// schema lock (loadTables).
		table := math.Min(m.LoadTableSec, m.Load.startup())
		f := m.Load.demand(float64(j.Records), float64(j.Bytes), cc.dst())
		cc.addLoadLogging(&f, float64(j.Records), float64(j.Bytes), m.Load.shape(float64(j.Bytes), cc.dst()))
		cc.addMemberWaits(&f, j, cc.loadLog)
		f.schema = table * loadTables(j)
		grown := cc.loadGrowth(j)
		f.add(m.formatting(grown.data), &cc.disk)
		w := jobWork{startup: m.Load.startup() - table, flows: []flowDemand{f}}
		if cc.buildIndexesOnLoad && !cc.threaded[j.Table] {
			keys, keyBytes := m.keys(j.Table, j.Records, cc)
			f := &w.flows[0]
			f.cpu += m.Idxbuild.LoadKeyFactor * keys * m.Idxbuild.CPUPerKeyUs / 1e6
			// The index blocks written as idxbuild writes them, and the
			// sort files when the keys do not fit in memory.
			ic := m.Idxbuild.PhaseCost
			ic.ReadPerByte = 0
			f.add(ic.shape(float64(j.Bytes), cc.dst()), &cc.disk)
			if keyBytes > m.sortMemory(cc) {
				f.add(sortSpill(keyBytes*m.Idxbuild.SortIOPerKeyByte), &cc.disk)
			}
			f.add(m.formatting(grown.index), &cc.disk)
		}
		return w
	case schedule.KindIdxbuild:
		return m.idxbuildWork(j, cc)
	case schedule.KindAnalyzeSource, schedule.KindAnalyzeTarget:
		env, pc := cc.dst(), m.Tabanalys
		if j.Kind == schedule.KindAnalyzeSource {
			env = cc.src()
			if k := m.SourceScanFactor; k > 0 {
				pc.ReadPerByte *= k
			}
		}
		return jobWork{startup: pc.startup(), flows: []flowDemand{pc.demand(float64(j.Records), float64(j.Bytes), env)}}
	case schedule.KindCreateTarget:
		w := jobWork{startup: m.FixedSec[string(j.Kind)] + m.DFPerTableSec*float64(cc.nTables)}
		if cc.extentKB > 0 && m.ExtentWritePerByte > 0 {
			f := flowDemand{par: 1, qd: 1}
			f.add(ioShape{write: float64(cc.extentKB) * 1024 * m.ExtentWritePerByte}, &cc.disk) // formatted in sequence
			w.flows = []flowDemand{f}
		}
		return w
	case schedule.KindServe:
		w := jobWork{startup: m.FixedSec[string(j.Kind)]}
		if j.DB == schedule.DBTarget && (cc.loadLog.BIW || cc.loadLog.APW) {
			// The broker's helpers (probiw, proapw) after proserve, started
			// together: one start-up more (internal/run/helpers.go).
			w.startup += m.Load.startup()
		}
		return w
	}
	// A kept preparation's proof (the target's proutil -C holder and a
	// tabanalys of it, empty) runs beside the source's checks, which are
	// more calls: it adds nothing to the preflight's time
	// (internal/run/prepared_beside.go). Nor does a target to create:
	// prostrct create -validate runs beside the source's describe, a call
	// to its one (internal/run/validate.go, validateBeside; beside the .df
	// too until i12-prep, whose .df comes with the transaction id).
	return jobWork{startup: m.FixedSec[string(j.Kind)]}
}

// preflightSourceCalls are the utility calls the preflight makes one after
// another: the source's checks (internal/run/preflight.go): the one
// single-user session that reads its last transaction id and its .df
// (dump_lasttask_df.p, which also proves it free), prostrct list and
// describe. Five until i12-prep (the holder, dump_lasttask.p and
// dump_df.p apart), of which this counted four.
const preflightSourceCalls = 3

// loadTables is the number of tables whose indexes a load deactivates:
// every member of a batch; one for a table's load or its first .bd
// section (the later sections find them inactive already).
func loadTables(j *schedule.Job) float64 {
	switch {
	case j.Kind == schedule.KindLoadBatch:
		return float64(len(j.Members))
	case j.Section > 1:
		return 0
	}
	return 1
}

// dumpThreads is the sections a threaded dump writes: threads =
// min(threadnum, root entries, CPUs), the CPUs when they are known.
func dumpThreads(j *schedule.Job, cc costContext) int {
	if cc.hw.Cores > 0 && j.Threads > cc.hw.Cores {
		return cc.hw.Cores
	}
	return j.Threads
}

// dumpWork splits a threaded dump into brackets: the first, the largest,
// holds (1+skew)/threads of the table, the others share the rest.
func (m *Model) dumpWork(j *schedule.Job, cc costContext) jobWork {
	threads := dumpThreads(j, cc)
	w := jobWork{startup: m.Dump.startup()}
	if threads <= 1 {
		w.flows = []flowDemand{m.Dump.demand(float64(j.Records), float64(j.Bytes), cc.src())}
		return w
	}
	w.sections = true
	for _, share := range bracketShares(threads, m.BracketSkew) {
		w.flows = append(w.flows, m.Dump.demand(float64(j.Records)*share, float64(j.Bytes)*share, cc.src()))
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
		perRecord = m.keysPerRecord(t)
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
	var records, bytes, keys, keyBytes, indexes, large, grown float64
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
			grown += cc.growth[strings.ToLower(t.Table)].index
			if ic.LargeMinBytes > 0 && t.Bytes > ic.LargeMinBytes {
				large += float64(t.Bytes)
			}
		}
	}
	pc := ic.PhaseCost
	if large > 0 && pc.ReadPerByte+pc.WritePerByte > 0 {
		// The large tables at their own rate (LargeDevicePerByte), read
		// and written in the same proportion as the others.
		scale := (bytes - large + large*ic.LargeDevicePerByte/(pc.ReadPerByte+pc.WritePerByte)) / bytes
		pc.ReadPerByte *= scale
		pc.WritePerByte *= scale
	}
	f := pc.demand(records, bytes, cc.dst())
	f.cpu += keys * ic.CPUPerKeyUs / 1e6
	if keyBytes > m.sortMemory(cc) {
		f.add(sortSpill(keyBytes*ic.SortIOPerKeyByte), &cc.disk)
	}
	f.add(m.formatting(grown), &cc.disk)
	var penalty float64
	f.par, f.qd, penalty = idxbuildThreads(cc.idx, cc.hw.Cores, ic.ThreadPenalty)
	f.cpu *= penalty
	f.overlap = ic.Overlap
	return jobWork{startup: ic.startup() + ic.SecPerIndex*indexes, flows: []flowDemand{f}}
}

// idxbuildThreads is how idxbuild's threads use the machine: the cores
// they can use at once, the requests they keep in flight, and the factor
// the CPU work grows by when -threadnum × -mergethreads + -datascanthreads
// oversubscribe the cores.
func idxbuildThreads(idx plan.Idxbuild, cores int, alpha float64) (par, qd, penalty float64) {
	threads, scan := float64(idx.Threadnum*max(1, idx.Mergethreads)), float64(idx.Datascanthreads)
	c := float64(max(1, cores))
	if threads <= 0 {
		threads = c // -threadnum defaults to the number of CPUs
	}
	par = math.Min(c, math.Max(threads, scan))
	qd = math.Max(1, math.Max(scan, float64(idx.Threadnum)))
	penalty = 1
	if over := (threads+scan)/(2*c) - 1; over > 0 {
		penalty += alpha * over
	}
	return par, qd, penalty
}

// sortSpill is the traffic of sort files that do not fit in -TF memory:
// written and read back in sequence, in -TMB blocks.
func sortSpill(bytes float64) ioShape {
	return ioShape{read: bytes / 2, write: bytes / 2}
}

// keysPerRecord is the keys a record of t gives its indexes: one per
// index, and one per word for a WORD index (Idxbuild.WordKeyBytes); the
// prior's keys per record when the plan does not count its indexes.
func (m *Model) keysPerRecord(t *plan.Placement) float64 {
	if t.Indexes <= 0 {
		return m.Idxbuild.KeysPerRecord
	}
	words := 1.0
	if w := m.Idxbuild.WordKeyBytes; w > 0 {
		words = math.Max(1, float64(t.MeanRecord)/w)
	}
	plain := max(0, t.Indexes-t.WordIndexes)
	return float64(plain) + float64(t.Indexes-plain)*words
}

// indexesOf is the number of indexes of t: the plan's count, or the
// prior's keys per record when the plan does not know it.
func (m *Model) indexesOf(t *plan.Placement) float64 {
	if t.Indexes > 0 {
		return float64(t.Indexes)
	}
	return math.Round(m.Idxbuild.KeysPerRecord)
}
