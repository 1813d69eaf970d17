package run

import (
	"fmt"
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
