package schedule

import (
	"fmt"
	"time"
)

// Kind is what a job does.
type Kind string

const (
	KindPreflight     Kind = "preflight"
	KindServe         Kind = "serve"    // proserve a database (DB says which)
	KindShutdown      Kind = "shutdown" // proshut -by
	KindAnalyzeSource Kind = "analyze-source"
	KindDumpDF        Kind = "dump-df"
	KindDumpSeq       Kind = "dump-sequences"
	// KindDumpSecurity and KindLoadSecurity carry the users, SQL grants
	// and views (dump_security.p / load_security.p), as the sequences.
	KindDumpSecurity Kind = "dump-security"
	KindCreateTarget Kind = "create-target"
	KindDump         Kind = "dump"
	KindLoad         Kind = "load"
	// KindLoadBatch loads several small tables of one area through one
	// proutil -C load -dumplist call (batch.go). It journals and reports
	// each table as a load of its own.
	KindLoadBatch     Kind = "load-batch"
	KindRepair        Kind = "repair" // truncate an area before its tables are reloaded
	KindIdxbuild      Kind = "idxbuild"
	KindLoadSeq       Kind = "load-sequences"
	KindLoadSecurity  Kind = "load-security"
	KindAnalyzeTarget Kind = "analyze-target"
	KindVerify        Kind = "verify"
	KindPost          Kind = "post"
	// KindBarrier does no work: it stands for "all of these are done" so
	// that N jobs waiting for M others need N+M edges, not N×M. The
	// dispatcher passes it itself; executors never see one.
	KindBarrier Kind = "barrier"
)

// Slot is the resource class a job occupies while it runs.
type Slot string

const (
	SlotNone Slot = ""
	SlotDump Slot = "dump"
	SlotLoad Slot = "load"
)

// Which database a job is about.
const (
	DBSource = "source"
	DBTarget = "target"
)

// Job is one node of the graph.
type Job struct {
	ID      string // stable across runs: the journal and resume key on it
	Kind    Kind
	DB      string // DBSource / DBTarget for serve, shutdown, analyze
	Table   string // owner.table for dump / load
	Area    string // target data area of a load (the per-area cap) or of a repair
	Section int    // .bd section of a load: 1 = table.bd, N = table.bdN; 0 = every file of the dump
	Threads int    // dump threads (-threadnum) when > 1
	// Members are the tables a load batch loads, in the order of its
	// -dumplist (KindLoadBatch only).
	Members []Member
	// Host is where the job runs, by its name in the hosts file ("" = the
	// one machine; on several, the machine oedl runs on).
	Host string

	Records int64 // expected work, from the plan
	Bytes   int64

	Deps []string // jobs that must be done before this one starts
	// Before names jobs that must wait for this one. It is used when a job
	// is added while the graph runs: the dispatcher adds this job's ID to
	// their Deps.
	Before []string
	// NotDuring names jobs this one added while the graph runs must not
	// run beside: one not started yet waits for it (as Before), one
	// running is waited for (as a Dep), one done is no matter. A dump
	// queued again after a failed load and the source's shutdown: the
	// dispatcher alone knows, when it adds the dump, which of the three
	// the shutdown is (docs/decisions.md, "A dump again never meets the
	// source's shutdown").
	NotDuring []string

	Slot Slot
	// Exclusive: runs with nothing else on the target running (idxbuild,
	// the repair of a served target); jobs on the source side only go on
	// beside it (SourceSide).
	Exclusive bool
	Cost      time.Duration // predicted duration, used for priority (0 = unknown)
	// TailCost predicts the work this job will add to the graph while it
	// runs (the section loads of a threaded dump), which is not in the graph
	// yet but is still on this job's path to the end.
	TailCost time.Duration
}

func (j *Job) String() string { return j.ID }

// SourceSide reports whether j works on the source (or a replica) only:
// it does not open the target, and what it writes (a dump's files) is
// read only by jobs that wait for it. An exclusive job lets these run
// beside it. idxbuild needs the target shut down and its memory (-TF) is
// sized with a reserve of max(1G, 10%) for the OS and a broker
// (plan.tuneIdxbuild): the source's broker, a tabanalys or a dump_df.p
// client fit in it, so "alone" means alone on the target, not alone on
// the machine. Unknown kinds count as the target's: the safe side.
func SourceSide(j *Job) bool {
	switch j.Kind {
	case KindDump, KindAnalyzeSource, KindDumpDF, KindDumpSeq, KindDumpSecurity, KindAnalyzeReplica, KindProveReplica:
		return true
	case KindServe, KindShutdown:
		return j.DB != "" && j.DB != DBTarget
	}
	return false
}

// Job IDs. They are part of the journal format: do not change them lightly.
func DumpID(table string) string { return "dump:" + table }

// LoadID names the load of one section (0 = all files of the table).
func LoadID(table string, section int) string {
	if section <= 1 {
		return "load:" + table
	}
	return fmt.Sprintf("load:%s:%d", table, section)
}

// RepairID names the repair of one target area; attempt counts repairs of
// the same area within a run.
func RepairID(area string, attempt int) string { return fmt.Sprintf("repair:%s:%d", area, attempt) }

// AgainID names a job that does again what the job id did (a reload
// after a repair, a new dump of a table whose load failed): the graph
// needs a new node, so it gets a new ID; event.StableID maps it back to
// id for the events, the screen and the report.
func AgainID(id string, n int) string { return fmt.Sprintf("%s@r%d", id, n) }

// LoadBatchID names the n-th load batch (from 1) into area.
func LoadBatchID(area string, n int) string { return fmt.Sprintf("load-batch:%s:%d", area, n) }

// DumpsDoneID is the barrier that staged loads wait for.
const DumpsDoneID = "barrier:dumps-done"

func ServeID(db string) string    { return "serve:" + db }
func ShutdownID(db string) string { return "shutdown:" + db }
