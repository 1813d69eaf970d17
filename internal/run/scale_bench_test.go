package run

import (
	"time"

	"fmt"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/report"
	"testing"

	"github.com/oedl/oedl/internal/estimate"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/schedule"
)

// scalePlan is a plan of n tables shaped like an ERP's (a few large, most
// tiny, 40 areas): what oedl's own bookkeeping sees at 1,000 to 20,000
// tables (docs/benchmarks/scale.md).
func scalePlan(n int) *plan.Plan {
	p := &plan.Plan{Version: plan.PlanVersion, BlockSize: 8192,
		Idxbuild: plan.Idxbuild{TB: 64, TM: 32, TMB: 64, SG: 64, TF: 80, Threadnum: 4, Mergethreads: 4, Datascanthreads: 8}}
	for i := range n {
		bytes := int64(1000 + i%200*100)
		if i%1000 == 7 {
			bytes = 1 << 30
		}
		p.Tables = append(p.Tables, plan.Placement{Table: fmt.Sprintf("PUB.t%05d", i), Owner: "PUB", Name: fmt.Sprintf("t%05d", i),
			Records: bytes / 100, Bytes: bytes, Indexes: 2 + i%5, DataArea: fmt.Sprintf("area%02d", i%40), IndexArea: fmt.Sprintf("area%02d_idx", i%40)})
	}
	return p
}

// BenchmarkCommandsEveryJob is what --dry-run does besides the estimate:
// the argv of every job of the graph, with the run's model sizing the job
// counts. Each call used to re-derive the job counts from every table.
func BenchmarkCommandsEveryJob(b *testing.B) {
	for _, n := range []int{1000, 5000, 20000} {
		b.Run(fmt.Sprintf("tables=%d", n), func(b *testing.B) {
			m := estimate.DefaultModel()
			cfg := Config{DLC: "/dlc", Source: "/db/src", Target: "/new/tgt", PlanDir: "/plan", Work: "/w",
				Plan: scalePlan(n), Model: m}.WithDefaults()
			built, err := schedule.Build(cfg.Plan, cfg.buildOptions())
			if err != nil {
				b.Fatal(err)
			}
			jobs := built.Graph.Jobs()
			for b.Loop() {
				for _, j := range jobs {
					Commands(cfg, j)
				}
			}
			b.ReportMetric(float64(len(jobs)), "jobs")
		})
	}
}

// scaleJournal is the journal of a finished run of scalePlan(n): every job
// of the graph started and done in queue order, a second apart, a dump
// with its file and count, a batch with a record per table it loaded.
func scaleJournal(b *testing.B, n int) ([]journal.Record, *plan.Plan) {
	p := scalePlan(n)
	built, err := schedule.Build(p, schedule.BuildOptions{})
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Date(2026, 11, 27, 19, 0, 0, 0, time.UTC)
	recs := []journal.Record{{Job: journal.RunJob, State: journal.Started, Time: t0}}
	add := func(r journal.Record) {
		r.V, r.Seq, r.Time = journal.Version, int64(len(recs)+1), t0.Add(time.Duration(len(recs))*time.Second)
		recs = append(recs, r)
	}
	for _, j := range built.Graph.Jobs() {
		r := journal.Record{Job: j.ID, Kind: string(j.Kind), Table: j.Table, Area: j.Area}
		r.State = journal.Started
		add(r)
		r.State = journal.Done
		switch j.Kind {
		case schedule.KindDump:
			r.Files, r.Records = []journal.File{{Path: "/w/dump/" + j.Table + ".bd", Size: j.Bytes}}, j.Records
		case schedule.KindLoadBatch:
			for _, m := range j.Members {
				add(journal.Record{Job: schedule.LoadID(m.Table, 0), Kind: string(schedule.KindLoad), State: journal.Done,
					Table: m.Table, Area: j.Area, Batch: j.ID, Records: m.Records, Marker: 6254})
			}
		case schedule.KindLoad:
			r.Records, r.Marker = j.Records, 6254
		}
		add(r)
	}
	add(journal.Record{Job: journal.RunJob, State: journal.Done})
	return recs, p
}

// BenchmarkJournalAtScale is what `oedl status`, `oedl report` and a
// resume's replay do with the journal of a run of n tables (20,000
// tables: about 100,000 records).
func BenchmarkJournalAtScale(b *testing.B) {
	for _, n := range []int{1000, 5000, 20000} {
		recs, p := scaleJournal(b, n)
		b.Run(fmt.Sprintf("tables=%d/replay", n), func(b *testing.B) {
			for b.Loop() {
				journal.Replay(recs)
			}
			b.ReportMetric(float64(len(recs)), "records")
		})
		b.Run(fmt.Sprintf("tables=%d/status-events", n), func(b *testing.B) {
			for b.Loop() {
				(&Status{Records: recs, Plan: p}).Events()
			}
		})
		b.Run(fmt.Sprintf("tables=%d/report-build", n), func(b *testing.B) {
			for b.Loop() {
				report.Build(recs, p, nil)
			}
		})
	}
}

// BenchmarkExecutorLookups is the executor's per-job questions to its
// journal at scale: for every table, the files of its latest dump (each
// move asks) and its plan line (each reload a repair queues asks), with
// the journal of a finished run of n tables.
func BenchmarkExecutorLookups(b *testing.B) {
	for _, n := range []int{1000, 5000, 20000} {
		recs, p := scaleJournal(b, n)
		cfg := &Config{Plan: p}
		built, err := schedule.Build(p, schedule.BuildOptions{})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("tables=%d", n), func(b *testing.B) {
			for b.Loop() {
				e := newExecutor(cfg, built, nil, recs)
				for _, t := range p.Tables {
					if len(e.dumpFiles(t.Table)) != 1 || e.placement(t.Table) == nil {
						b.Fatal("lookup missed", t.Table)
					}
				}
			}
		})
	}
}
