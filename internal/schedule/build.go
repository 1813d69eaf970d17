package schedule

import (
	"fmt"
	"time"

	"github.com/oedl/oedl/internal/plan"
)

// Served says whether a database is served for a number of concurrent
// utilities on it: more than one needs a broker (a second single-user
// utility is refused with (263)). The run, the estimate, the report and
// the screen decide it from the same job counts.
func Served(jobs int) bool { return jobs > 1 }

// BuildOptions shape the graph of a dump/load.
type BuildOptions struct {
	// Staged makes every load wait for every dump (the classic "dump all,
	// then load all" script). The default overlaps: a table's load starts
	// as soon as its dump exists.
	Staged bool
	// ServeSource / ServeTarget run the database under a broker while
	// several utilities use it at once. OpenEdge refuses a second
	// single-user utility on a database (263), and threaded dumps need a
	// served source, so parallel dumps need ServeSource and parallel loads
	// need ServeTarget. idxbuild always runs on the shut-down target.
	ServeSource bool
	ServeTarget bool
	// ThreadedDumpMin: tables at least this large are dumped with
	// -thread 1 -threadnum DumpThreads (requires ServeSource). Their
	// loads are not in the graph up front: the run adds one load per .bd
	// section as the section lands.
	ThreadedDumpMin int64
	DumpThreads     int
	// Cost predicts a job's duration for the queue's priority. Nil uses
	// DefaultCost.
	Cost func(*Job) time.Duration
	// Hosts places the work on several machines (nil: one machine).
	Hosts *Hosts
	// Batch loads small tables of one area through one utility call
	// (batch.go). One machine only: on several, a table's files may
	// still be on their way when its batch would start.
	Batch BatchOptions
	// DumpsAfterCreate makes the table dumps wait for create-target, for
	// a target created in the window on the device the source is on (one
	// machine). prostrct create formats the fixed extents: a stream of
	// writes as long as the target (198 MiB for a 40 MB erp, 369 for
	// seed003's 36 areas), on the disk the dumps read. Started beside the
	// dumps, it got a share of the device and ended after them; the loads
	// then waited for procopy, the .df, the BI and the broker on an idle
	// disk (1.3 s on erp at 30 MiB/s, docs/decisions.md "The unprepared
	// window"). Created first, with the source's side jobs beside it, the
	// target's broker starts while the dumps read. Off on several
	// machines, or on separate devices, where the formatting takes nothing
	// from the dumps.
	DumpsAfterCreate bool
}

// DefaultCost is a rough duration used only to order the queue when no
// calibrated model is given: a fixed start-up cost plus the bytes at a
// modest single-stream rate. Only the ratios between jobs matter here.
func DefaultCost(j *Job) time.Duration {
	const startup = 300 * time.Millisecond
	const bytesPerSecond = 50 << 20
	switch j.Kind {
	case KindDump, KindLoad, KindLoadBatch, KindIdxbuild, KindAnalyzeSource, KindAnalyzeTarget, KindAnalyzeReplica, KindMove:
		return startup + time.Duration(float64(j.Bytes)/bytesPerSecond*float64(time.Second))
	}
	return startup
}

// Built is the graph of one plan, with the IDs a run needs to extend it.
type Built struct {
	*Graph
	// LoadBarrier is the job that waits for every load: loads added while
	// the graph runs name it in Before.
	LoadBarrier string

	// What SectionLoad needs to build the load of a .bd section the same
	// way Build builds the others.
	targetReady string
	dumpsDone   string // "" unless staged
	areas       map[string]string
	cost        func(*Job) time.Duration
	hosts       *Hosts
}

// Build turns a plan into the job graph shared by run and estimate.
func Build(p *plan.Plan, o BuildOptions) (*Built, error) {
	if p == nil || len(p.Tables) == 0 {
		return nil, fmt.Errorf("plan has no tables")
	}
	cost := o.Cost
	if cost == nil {
		cost = DefaultCost
	}
	var jobs []*Job
	hs := o.Hosts
	add := func(j *Job) *Job {
		if j.Host == "" {
			j.Host = hs.hostOf(j.Kind, j.DB)
		}
		j.Slot = HostSlot(j.Slot, j.Host)
		if j.Kind != KindBarrier {
			j.Cost = cost(j)
		}
		jobs = append(jobs, j)
		return j
	}
	placed := map[string]string{} // table -> host of its dump (several hosts)
	var totalBytes, totalRecords int64
	for _, t := range p.Tables {
		totalBytes += t.Bytes
		totalRecords += t.Records
	}

	pre := add(&Job{ID: string(KindPreflight), Kind: KindPreflight})
	sourceReady := pre.ID
	if o.ServeSource {
		sourceReady = add(&Job{ID: ServeID(DBSource), Kind: KindServe, DB: DBSource, Deps: []string{pre.ID}}).ID
	}
	// The source's side jobs (its tabanalys, .df, sequences, users and
	// grants) hold no slot on a served source: they start with the first
	// dumps, all four at once. In the dump slots, ranked by their short
	// path to the end, they came after every table dump and held back the
	// source's shutdown and the target's idxbuild; in one slot of their
	// own, the small three waited for the source's tabanalys. A
	// single-user source takes one utility at a time (263): there they
	// share the dump slot with the table dumps.
	side := SlotDump
	if o.ServeSource {
		side = SlotNone
	}
	analyze := add(&Job{ID: string(KindAnalyzeSource), Kind: KindAnalyzeSource, DB: DBSource,
		Deps: []string{sourceReady}, Slot: side, Bytes: totalBytes, Records: totalRecords})
	dumpDF := add(&Job{ID: string(KindDumpDF), Kind: KindDumpDF, DB: DBSource, Deps: []string{sourceReady}, Slot: side})
	dumpSeq := add(&Job{ID: string(KindDumpSeq), Kind: KindDumpSeq, DB: DBSource, Deps: []string{sourceReady}, Slot: side})
	dumpSec := add(&Job{ID: string(KindDumpSecurity), Kind: KindDumpSecurity, DB: DBSource, Deps: []string{sourceReady}, Slot: side})
	create := add(&Job{ID: string(KindCreateTarget), Kind: KindCreateTarget, DB: DBTarget, Deps: []string{pre.ID}})
	targetReady := create.ID
	// The dumps that would take the device from the formatting: those
	// whose bytes cost more than their start-up. A smaller one waits on
	// its start-up, not on the disk, and runs beside the formatting (873
	// of seed003's tables held back behind it left the disk idle between
	// their start-ups).
	diskBoundDump := int64(-1)
	if o.DumpsAfterCreate && hs == nil {
		diskBoundDump = startupBytes(cost, KindDump, SlotDump)
	}
	dumpReady0 := func(bytes int64) []string {
		if diskBoundDump >= 0 && bytes >= diskBoundDump {
			return []string{sourceReady, create.ID}
		}
		return []string{sourceReady}
	}
	if o.ServeTarget {
		targetReady = add(&Job{ID: ServeID(DBTarget), Kind: KindServe, DB: DBTarget, Deps: []string{create.ID}}).ID
	}

	// Threaded by its records' size: how a threaded dump of a table with
	// LOBs splits them is not documented, so a LOB-heavy table with few
	// records dumps in one thread, as it always did.
	isThreaded := func(t plan.Placement) bool {
		return o.ServeSource && o.ThreadedDumpMin > 0 && t.Bytes >= o.ThreadedDumpMin && o.DumpThreads > 1
	}
	// Replicas: each proven against the source's baseline before it dumps.
	dumpReady := map[string][]string{}
	var replicaJobs []string // what each replica's shutdown waits for
	if hs != nil {
		dumpReady[hs.Source] = []string{sourceReady}
		busy := map[string]time.Duration{hs.Source: analyze.Cost + dumpDF.Cost + dumpSeq.Cost}
		for _, r := range hs.Replicas {
			ready := pre.ID
			if o.ServeSource {
				ready = add(&Job{ID: ServeID(ReplicaDB(r)), Kind: KindServe, DB: ReplicaDB(r), Deps: []string{pre.ID}}).ID
			}
			an := add(&Job{ID: AnalyzeReplicaID(r), Kind: KindAnalyzeReplica, DB: ReplicaDB(r), Deps: []string{ready},
				Slot: SlotDump, Bytes: totalBytes, Records: totalRecords})
			pr := add(&Job{ID: ProveReplicaID(r), Kind: KindProveReplica, DB: ReplicaDB(r), Deps: []string{analyze.ID, an.ID}})
			dumpReady[r] = []string{pr.ID}
			busy[r] = max(an.Cost, analyze.Cost)
			replicaJobs = append(replicaJobs, an.ID)
		}
		for table, host := range hs.place(p.Tables, busy, cost) {
			placed[table] = host
		}
	}

	var dumpIDs, loadIDs []string
	threaded := map[string]bool{}
	for _, t := range p.Tables {
		d := &Job{ID: DumpID(t.Table), Kind: KindDump, Table: t.Table, Area: "",
			Records: t.Records, Bytes: t.DumpBytes(), Deps: dumpReady0(t.DumpBytes()), Slot: SlotDump}
		if host := placed[t.Table]; host != "" {
			d.Host, d.DB, d.Deps = host, DBSource, dumpReady[host]
			if host != hs.Source {
				d.DB = ReplicaDB(host)
			}
		}
		if isThreaded(t) {
			d.Threads = o.DumpThreads
			threaded[t.Table] = true
			// Its loads come one section at a time into the table's own
			// area, one after the other: all of it is still ahead of it.
			d.TailCost = cost(&Job{Kind: KindLoad, Table: t.Table, Area: t.DataArea,
				Records: t.Records, Bytes: t.DumpBytes(), Slot: SlotLoad, Host: hs.hostOf(KindLoad, DBTarget)})
			if hs.moves(d.Host) {
				d.TailCost += cost(&Job{Kind: KindMove, Table: t.Table, Records: t.Records, Bytes: t.DumpBytes(), Host: d.Host, Slot: SlotMove})
			}
		}
		add(d)
		dumpIDs = append(dumpIDs, d.ID)
		if hs.moves(d.Host) && !threaded[t.Table] {
			// Its files go to the target's machine; the load waits for them.
			add(&Job{ID: MoveID(t.Table, 0), Kind: KindMove, Table: t.Table, Host: d.Host,
				Records: t.Records, Bytes: t.DumpBytes(), Deps: []string{d.ID}, Slot: SlotMove})
		}
	}
	// Staged: every load waits for every dump, through one barrier.
	dumpsDone := ""
	if o.Staged {
		dumpsDone = add(&Job{ID: DumpsDoneID, Kind: KindBarrier, Deps: dumpIDs}).ID
	}
	var batches []Batch
	if hs == nil {
		batches = Batches(p, o.Batch, isThreaded)
	}
	batched := map[string]bool{}
	for _, b := range batches {
		for _, m := range b.Members {
			batched[m.Table] = true
		}
	}
	for _, t := range p.Tables {
		if threaded[t.Table] || batched[t.Table] {
			continue // its loads are added section by section while it dumps, or batched
		}
		from := DumpID(t.Table)
		if hs.moves(placed[t.Table]) {
			from = MoveID(t.Table, 0)
		}
		deps := []string{from, targetReady}
		if o.Staged {
			deps = []string{targetReady, dumpsDone}
			if from != DumpID(t.Table) {
				deps = append(deps, from)
			}
		}
		l := add(&Job{ID: LoadID(t.Table, 0), Kind: KindLoad, Table: t.Table, Area: t.DataArea,
			Records: t.Records, Bytes: t.DumpBytes(), Deps: deps, Slot: SlotLoad})
		loadIDs = append(loadIDs, l.ID)
	}
	// A batch starts when every dump it loads exists.
	nth := map[string]int{}
	for _, b := range batches {
		nth[b.Area]++
		deps := []string{targetReady}
		if o.Staged {
			deps = append(deps, dumpsDone)
		} else {
			for _, m := range b.Members {
				deps = append(deps, DumpID(m.Table))
			}
		}
		l := &Job{ID: LoadBatchID(b.Area, nth[b.Area]), Kind: KindLoadBatch, Area: b.Area, Members: b.Members,
			Deps: deps, Slot: SlotLoad}
		for _, m := range b.Members {
			l.Records += m.Records
			l.Bytes += m.Bytes
		}
		add(l)
		loadIDs = append(loadIDs, l.ID)
	}
	loadSeq := add(&Job{ID: string(KindLoadSeq), Kind: KindLoadSeq, DB: DBTarget, Deps: []string{dumpSeq.ID, targetReady}})
	loadSec := add(&Job{ID: string(KindLoadSecurity), Kind: KindLoadSecurity, DB: DBTarget, Deps: []string{dumpSec.ID, targetReady}})
	if !o.ServeTarget {
		// They open the target single-user like a load: sharing the load
		// slot keeps them from meeting on the database (263).
		loadSeq.Slot, loadSec.Slot = SlotLoad, SlotLoad
	}

	// Every load, every dump (a threaded dump may still add loads) and the
	// sequences, users, grants and views come before the target is shut
	// down for idxbuild. The source's tabanalys and .df do not: idxbuild
	// works on the target only, so it overlaps them (SourceSide); verify
	// still waits for the source's tabanalys.
	barrierDeps := append(append([]string{loadSeq.ID, loadSec.ID}, loadIDs...), dumpIDs...)
	idxDeps := barrierDeps
	barrier := string(KindIdxbuild)
	// A shutdown also names its serve directly: on resume the jobs in
	// between may all be skipped, and the order must not go with them.
	if o.ServeTarget {
		st := add(&Job{ID: ShutdownID(DBTarget), Kind: KindShutdown, DB: DBTarget,
			Deps: append(barrierDeps, ServeID(DBTarget))})
		idxDeps = []string{st.ID}
		barrier = st.ID
	}
	if o.ServeSource {
		add(&Job{ID: ShutdownID(DBSource), Kind: KindShutdown, DB: DBSource,
			Deps: append(append([]string{}, dumpIDs...), analyze.ID, dumpDF.ID, dumpSeq.ID, dumpSec.ID, ServeID(DBSource))})
		if hs != nil {
			for i, r := range hs.Replicas {
				add(&Job{ID: ShutdownID(ReplicaDB(r)), Kind: KindShutdown, DB: ReplicaDB(r),
					Deps: append(append([]string{}, dumpIDs...), replicaJobs[i], ServeID(ReplicaDB(r)))})
			}
		}
	}
	idx := add(&Job{ID: string(KindIdxbuild), Kind: KindIdxbuild, DB: DBTarget, Deps: idxDeps,
		Exclusive: true, Bytes: totalBytes, Records: totalRecords})
	at := add(&Job{ID: string(KindAnalyzeTarget), Kind: KindAnalyzeTarget, DB: DBTarget, Deps: []string{idx.ID},
		Bytes: totalBytes, Records: totalRecords})
	v := add(&Job{ID: string(KindVerify), Kind: KindVerify, Deps: []string{at.ID, analyze.ID}})
	post := add(&Job{ID: string(KindPost), Kind: KindPost, DB: DBTarget, Deps: []string{v.ID}})
	if o.ServeTarget {
		// truncate bi needs the target offline, stated directly for the
		// same reason as above.
		post.Deps = append(post.Deps, ShutdownID(DBTarget))
	}

	g, err := NewGraph(jobs)
	if err != nil {
		return nil, err
	}
	areas := make(map[string]string, len(p.Tables))
	for _, t := range p.Tables {
		areas[t.Table] = t.DataArea
	}
	return &Built{Graph: g, LoadBarrier: barrier, targetReady: targetReady, dumpsDone: dumpsDone,
		areas: areas, cost: cost, hosts: hs}, nil
}
