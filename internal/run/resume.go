package run

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/schedule"
)

// resumePlan is what the journal decides about this invocation's graph.
type resumePlan struct {
	skip       map[string]bool // jobs proven done by an earlier invocation
	repairs    []*schedule.Job // areas to repair before any load goes in
	repairNums map[string]int  // the repair number used per area
	extra      []*schedule.Job // section loads of threaded dumps that are proven
}

// planResume decides, from the journal, which jobs are done and which
// areas need a repair first. A job counts as done only when its outputs
// prove it (journal.Replayed.Proven): a dump whose files changed is dumped
// again. A load counts as done only when no failed or unfinished load
// dirtied its area since: those areas are truncated and every table placed
// in them loaded again. Anything on the target side after the loads
// (idxbuild, target analysis) runs again when any load does.
func (r *runner) planResume(b *schedule.Built, rp *journal.Replayed) *resumePlan {
	p := &resumePlan{skip: map[string]bool{}, repairNums: map[string]int{}}
	proven := func(id string) bool { ok, _ := rp.ProvenBy(id, r.fileSize); return ok }
	createRedo := !r.resumeKeepsTarget
	dirty := map[string]bool{}
	if !createRedo {
		for _, a := range rp.DirtyAreas() {
			dirty[a] = true
		}
	}
	// A threaded dump that runs again writes new sections, which need not
	// split the records as the old ones did: sections already loaded from
	// the old dump would then be loaded twice. Its area is repaired.
	for _, j := range b.Jobs() {
		if j.Kind != schedule.KindDump || j.Threads <= 1 || proven(j.ID) || createRedo {
			continue
		}
		for k, ld := range rp.Loads {
			if k.Table == j.Table && ld.State == journal.Done {
				dirty[ld.Area] = true
			}
		}
	}
	// Section loads of proven threaded dumps go into the graph up front.
	for _, j := range b.Jobs() {
		if j.Kind != schedule.KindDump || j.Threads <= 1 || !proven(j.ID) {
			continue
		}
		for _, f := range rp.Jobs[j.ID].Done.Files {
			n := sectionOf(f.Path, j.Table)
			if n > 0 {
				p.extra = append(p.extra, b.SectionJobs(j, n, 0, f.Size)...)
			}
		}
	}
	loadDone := func(j *schedule.Job) bool {
		return !createRedo && !dirty[j.Area] && rp.LoadDone(j.Table, j.Section)
	}
	// A batch loads the tables of it that are not done; one whose tables
	// are all done is skipped. (Its tables are done or not together unless
	// the journal's replay says otherwise: a repair undoes them all.)
	batchDone := func(j *schedule.Job) bool {
		var left []schedule.Member
		for _, m := range j.Members {
			if createRedo || dirty[j.Area] || !rp.LoadDone(m.Table, 0) {
				left = append(left, m)
			}
		}
		if len(left) > 0 && len(left) < len(j.Members) {
			j.Members, j.Records, j.Bytes = left, 0, 0
			for _, m := range left {
				j.Records += m.Records
				j.Bytes += m.Bytes
			}
		}
		return len(left) == 0
	}
	targetPending := createRedo || len(dirty) > 0
	for _, j := range append(b.Jobs(), p.extra...) {
		if (j.Kind == schedule.KindLoad && !loadDone(j)) || (j.Kind == schedule.KindLoadBatch && !batchDone(j)) {
			targetPending = true
		}
	}
	for _, j := range append(b.Jobs(), p.extra...) {
		var skip bool
		switch j.Kind {
		case schedule.KindAnalyzeSource, schedule.KindDumpDF, schedule.KindDumpSeq, schedule.KindDumpSecurity, schedule.KindDump, schedule.KindAnalyzeReplica:
			skip = proven(j.ID)
		case schedule.KindProveReplica:
			skip = rp.IsDone(j.ID) && proven(schedule.AnalyzeReplicaID(strings.TrimPrefix(j.DB, "replica:"))) && proven(string(schedule.KindAnalyzeSource))
		case schedule.KindMove:
			// Its copies are there with their sizes, and the files they
			// are copies of were not dumped again since.
			skip = proven(j.ID) && copiesOfLatestDump(rp, j)
		case schedule.KindCreateTarget:
			skip = !createRedo
		case schedule.KindLoad:
			skip = loadDone(j)
		case schedule.KindLoadBatch:
			skip = batchDone(j)
		case schedule.KindLoadSeq, schedule.KindLoadSecurity:
			skip = !createRedo && rp.IsDone(j.ID)
		case schedule.KindIdxbuild, schedule.KindAnalyzeTarget:
			skip = !targetPending && proven(j.ID)
		case schedule.KindPost:
			skip = !targetPending && rp.IsDone(j.ID)
		}
		if skip {
			p.skip[j.ID] = true
		}
	}
	// A broker is started only for jobs that still need it: one started
	// for nothing would hold the database while a job that needs it
	// offline (truncate bi) runs, since their order went through jobs
	// that are skipped now.
	needs := map[string]bool{}
	for _, j := range append(b.Jobs(), p.extra...) {
		if p.skip[j.ID] {
			continue
		}
		switch j.Kind {
		case schedule.KindDump, schedule.KindAnalyzeReplica:
			db := j.DB // a replica's, or the source's
			if db == "" {
				db = schedule.DBSource
			}
			needs[db] = true
		case schedule.KindAnalyzeSource, schedule.KindDumpDF, schedule.KindDumpSeq, schedule.KindDumpSecurity:
			needs[schedule.DBSource] = true
		case schedule.KindLoad, schedule.KindLoadBatch, schedule.KindLoadSeq, schedule.KindLoadSecurity, schedule.KindCreateTarget:
			needs[schedule.DBTarget] = true
		}
	}
	if len(dirty) > 0 {
		needs[schedule.DBTarget] = true
	}
	for _, j := range b.Jobs() {
		if j.Kind == schedule.KindServe && !needs[j.DB] {
			p.skip[j.ID] = true
		}
	}
	areas := make([]string, 0, len(dirty))
	for a := range dirty {
		areas = append(areas, a)
	}
	sort.Strings(areas)
	for _, a := range areas {
		n := rp.Repairs[a] + 1
		p.repairNums[a] = n
		rj := &schedule.Job{ID: schedule.RepairID(a, n), Kind: schedule.KindRepair, DB: schedule.DBTarget, Area: a,
			Deps: []string{string(schedule.KindCreateTarget)}, Host: b.Job(string(schedule.KindCreateTarget)).Host}
		if !r.cfg.served(schedule.DBTarget) {
			rj.Slot = schedule.HostSlot(schedule.SlotLoad, rj.Host)
		}
		// One truncate at a time: each opens the target single-user.
		if k := len(p.repairs); k > 0 {
			rj.Deps = append(rj.Deps, p.repairs[k-1].ID)
		}
		p.repairs = append(p.repairs, rj)
	}
	return p
}

// sectionOf is the section number of a dump file of table (0 if it is
// not one).
func sectionOf(path, table string) int {
	file := filepath.Base(path)
	base := dumpBase(table) + ".bd"
	if file == base {
		return 1
	}
	if !strings.HasPrefix(file, base) {
		return 0
	}
	rest := file[len(base):]
	n, err := strconv.Atoi(rest)
	if err != nil || n < 2 || strconv.Itoa(n) != rest {
		return 0
	}
	return n
}

// finishGraph puts a resume's repairs and section loads in place in the
// built graph (the OpenEdge ordering rules themselves are schedule.Build's).
func (r *runner) finishGraph(b *schedule.Built, p *resumePlan) error {
	jobs := append([]*schedule.Job{}, b.Jobs()...)
	targetServed := r.cfg.served(schedule.DBTarget)
	byID := map[string]*schedule.Job{}
	for _, j := range jobs {
		byID[j.ID] = j
	}
	for _, rj := range p.repairs {
		// The repair truncates offline, before the broker starts (or, on a
		// target opened single-user, before any load of the area).
		if targetServed {
			byID[schedule.ServeID(schedule.DBTarget)].Deps = append(byID[schedule.ServeID(schedule.DBTarget)].Deps, rj.ID)
		} else {
			for _, j := range jobs {
				if j.Area == rj.Area && (j.Kind == schedule.KindLoad || j.Kind == schedule.KindLoadBatch) {
					j.Deps = append(j.Deps, rj.ID)
				}
			}
			for _, k := range []schedule.Kind{schedule.KindLoadSeq, schedule.KindLoadSecurity} {
				byID[string(k)].Deps = append(byID[string(k)].Deps, rj.ID)
			}
		}
		byID[b.LoadBarrier].Deps = append(byID[b.LoadBarrier].Deps, rj.ID)
		jobs = append(jobs, rj)
	}
	for _, x := range p.extra {
		for _, before := range x.Before {
			byID[before].Deps = append(byID[before].Deps, x.ID)
		}
		x.Before = nil
		jobs = append(jobs, x)
	}
	if !targetServed {
		for _, x := range p.extra {
			for _, rj := range p.repairs {
				if x.Area == rj.Area {
					x.Deps = append(x.Deps, rj.ID)
				}
			}
		}
	}
	g, err := schedule.NewGraph(jobs)
	if err != nil {
		return fmt.Errorf("job graph: %w", err)
	}
	b.Graph = g
	return nil
}

// copiesOfLatestDump reports whether every file the move copied is a
// file of the table's latest finished dump, byte for byte (the same
// SHA-256): a dump run again since writes other files.
func copiesOfLatestDump(rp *journal.Replayed, j *schedule.Job) bool {
	mv := rp.Jobs[j.ID]
	var dump *journal.Record
	for _, d := range rp.Jobs {
		if d.Kind == string(schedule.KindDump) && d.Table == j.Table && d.Done != nil && (dump == nil || d.Done.Seq > dump.Seq) {
			dump = d.Done
		}
	}
	if mv == nil || mv.Done == nil || dump == nil || len(mv.Done.Files) == 0 {
		return false
	}
	sums := map[string]string{}
	for _, f := range dump.Files {
		sums[filepath.Base(f.Path)] = f.SHA256
	}
	for _, f := range mv.Done.Files {
		if s := sums[filepath.Base(f.Path)]; s == "" || s != f.SHA256 {
			return false
		}
	}
	return true
}

// fileSize is the size of a journalled file on its host.
func (r *runner) fileSize(f journal.File) (int64, error) {
	m := r.cfg.machine(f.Host)
	if !m.remote {
		st, err := os.Stat(f.Path)
		if err != nil {
			return 0, err
		}
		return st.Size(), nil
	}
	got, err := m.fs.Lstat(context.Background(), f.Path)
	if err != nil {
		return 0, err
	}
	i, ok := got[f.Path]
	if !ok {
		return 0, fmt.Errorf("%s: %w", f.Path, fs.ErrNotExist)
	}
	return i.Size, nil
}
