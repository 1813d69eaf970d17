package schedule

import (
	"sort"
	"strings"
	"time"

	"github.com/oedl/oedl/internal/plan"
)

// Hosts places the graph on several machines (BuildOptions.Hosts; nil is
// one machine, and the graph is exactly the one-machine graph).
//
//   - The source's baseline (tabanalys), its .df and sequences run on the
//     source host; creating the target, the loads, idxbuild, the
//     sequences' restore, the target's tabanalys and the post steps on the
//     target host; preflight and verify on the machine oedl runs on.
//   - Every replica is proven before any dump runs there: its own
//     tabanalys (analyze-replica:NAME, on the replica) and a comparison
//     with the source's (prove-replica:NAME) that must find every table
//     with the same records and size.
//   - Each table is dumped on one of the hosts holding the data. Which one
//     is decided by the critical path: tables in the order of their
//     predicted path to the end (dump, move, load: what the queue ranks
//     them by), each placed where it would finish first (earliest finish
//     time, as in list scheduling for heterogeneous machines, HEFT), given
//     what that host's disk already has to do. Nothing fixes a count: a
//     replica that is free takes the longest tables until the source's
//     share finishes as early.
//   - A dump on a machine other than the target's is moved there (a move
//     job, per table or per threaded section), and its load waits for the
//     move, not the dump.
//   - Slots are per host: dump@HOST, load@HOST; moves share one class,
//     since they all cross the machine oedl runs on.
type Hosts struct {
	Source   string
	Replicas []string
	Target   string
	// Moves reports whether a file dumped on host h must be moved to the
	// target's machine (their machines differ).
	Moves func(h string) bool
}

// More job kinds of a graph on several hosts.
const (
	// KindMove copies a dump's files (or one section) to the target's machine.
	KindMove Kind = "move"
	// KindAnalyzeReplica is the tabanalys of a replica.
	KindAnalyzeReplica Kind = "analyze-replica"
	// KindProveReplica compares a replica's tabanalys with the source's.
	KindProveReplica Kind = "prove-replica"
)

// SlotMove is the class of the moves.
const SlotMove Slot = "move"

// HostSlot is slot class s on host h ("" = the one machine: s itself).
func HostSlot(s Slot, h string) Slot {
	if h == "" || s == SlotNone || s == SlotMove {
		return s
	}
	return s + "@" + Slot(h)
}

// ReplicaDB names a replica's database in Job.DB.
func ReplicaDB(host string) string { return "replica:" + host }

// MoveID names the move of a table's dump (section 0: every file) or of
// one section.
func MoveID(table string, section int) string {
	return "move:" + strings.TrimPrefix(LoadID(table, section), "load:")
}

// AnalyzeReplicaID and ProveReplicaID name a replica's proof.
func AnalyzeReplicaID(host string) string { return string(KindAnalyzeReplica) + ":" + host }
func ProveReplicaID(host string) string   { return string(KindProveReplica) + ":" + host }

// hostOf is where a job of kind k about db runs.
func (h *Hosts) hostOf(k Kind, db string) string {
	if h == nil {
		return ""
	}
	switch k {
	case KindPreflight, KindVerify, KindBarrier, KindProveReplica:
		return ""
	case KindAnalyzeSource, KindDumpDF, KindDumpSeq, KindDumpSecurity:
		return h.Source
	case KindCreateTarget, KindLoad, KindRepair, KindIdxbuild, KindLoadSeq, KindLoadSecurity, KindAnalyzeTarget, KindPost:
		return h.Target
	}
	switch db {
	case DBSource:
		return h.Source
	case DBTarget:
		return h.Target
	}
	for _, r := range h.Replicas {
		if db == ReplicaDB(r) {
			return r
		}
	}
	return ""
}

func (h *Hosts) moves(host string) bool { return h != nil && h.Moves != nil && h.Moves(host) }

// place decides the host of each table's dump (see Hosts). busy is the
// work each host's disk has before its first dump may start; cost
// predicts a job on the host set in it.
func (h *Hosts) place(tables []plan.Placement, busy map[string]time.Duration,
	cost func(*Job) time.Duration) map[string]string {
	copies := append([]string{h.Source}, h.Replicas...)
	at := func(kind Kind, t plan.Placement, host string) time.Duration {
		return cost(&Job{Kind: kind, Table: t.Table, Area: t.DataArea, Records: t.Records, Bytes: t.DumpBytes(), Host: host, Slot: SlotDump})
	}
	type item struct {
		t    plan.Placement
		path time.Duration
	}
	order := make([]item, len(tables))
	for i, t := range tables {
		// The path to the end that differs between tables: dump, move,
		// load (all that follows the loads is common to every table).
		order[i] = item{t, at(KindDump, t, h.Source) + at(KindLoad, t, h.Target)}
		if h.moves(h.Source) {
			order[i].path += at(KindMove, t, h.Source)
		}
	}
	sort.SliceStable(order, func(a, b int) bool {
		if order[a].path != order[b].path {
			return order[a].path > order[b].path
		}
		return order[a].t.Table < order[b].t.Table
	})
	out := make(map[string]string, len(tables))
	for _, it := range order {
		best, bestAt := "", time.Duration(0)
		for _, c := range copies {
			d := at(KindDump, it.t, c)
			finish := busy[c] + d
			if h.moves(c) {
				finish += at(KindMove, it.t, c)
			}
			if best == "" || finish < bestAt {
				best, bestAt = c, finish
			}
		}
		out[it.t.Table] = best
		busy[best] += at(KindDump, it.t, best)
	}
	return out
}

// Slots are the slot classes of a dispatch: dump and load jobs at once
// per host (on one machine, the two classes as they were), and moves at
// once (two per host holding the data: each streams through the machine
// oedl runs on, and a move waits on two hosts' disks and the network).
func (h *Hosts) Slots(dump, load int) map[Slot]int {
	if h == nil {
		return map[Slot]int{SlotDump: dump, SlotLoad: load}
	}
	out := map[Slot]int{HostSlot(SlotLoad, h.Target): load, SlotMove: 2 * (1 + len(h.Replicas))}
	for _, c := range append([]string{h.Source}, h.Replicas...) {
		out[HostSlot(SlotDump, c)] = dump
	}
	return out
}
