package estimate

import (
	"context"
	"fmt"
	"math"
	"syscall"
	"testing"
	"time"

	"github.com/oedl/oedl/internal/plan"
)

// manyTablesPlan is an ERP-like plan with n tables: a Zipf tail over 40
// shared areas, about 1 GB per 60 tables.
func manyTablesPlan(n int) *plan.Plan {
	p := &plan.Plan{Version: plan.PlanVersion, BlockSize: 8192,
		Idxbuild: plan.Idxbuild{TB: 64, TM: 32, TMB: 64, SG: 64, TF: 80, Threadnum: 4, Mergethreads: 4, Datascanthreads: 8}}
	total := float64(n) * 16e6
	var norm float64
	for i := 1; i <= n; i++ {
		norm += 1 / math.Pow(float64(i+20), 1.5)
	}
	for i := 1; i <= n; i++ {
		bytes := int64(total / math.Pow(float64(i+20), 1.5) / norm)
		p.Tables = append(p.Tables, plan.Placement{Table: fmt.Sprintf("PUB.t%05d", i), Owner: "PUB", Name: fmt.Sprintf("t%05d", i),
			Records: max(1, bytes/150), Bytes: max(1000, bytes), Indexes: 1 + i%6, DataArea: fmt.Sprintf("area%02d", i%40)})
	}
	return p
}

// BenchmarkEstimate10000Tables is the issue's "estimate for 10,000 tables
// in under 2 s": one simulated dispatch of the whole graph (about 20,000
// jobs), default model and strategy on 8 cores.
func BenchmarkEstimate10000Tables(b *testing.B) {
	p := manyTablesPlan(10000)
	hw := Hardware{Cores: 8, MemoryBytes: 32 << 30, DiskMBps: 500, DiskIOPS: 16000, DiskLatencyMs: 1}
	in := Input{Plan: p, Hardware: hw, Strategy: DefaultStrategy(hw)}
	cpu := cpuClock(b)
	for b.Loop() {
		if _, err := Run(context.Background(), in); err != nil {
			b.Fatal(err)
		}
	}
	cpu()
}

// cpuClock reports the process CPU time per op ("cpu-s/op") next to the
// wall time: on a shared machine wall time measures the neighbours too.
func cpuClock(b *testing.B) func() {
	used := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			b.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := used()
	return func() { b.ReportMetric((used()-start).Seconds()/float64(b.N), "cpu-s/op") }
}

// BenchmarkEstimate10000TablesRange adds the 20-sample Monte Carlo range.
func BenchmarkEstimate10000TablesRange(b *testing.B) {
	p := manyTablesPlan(10000)
	hw := Hardware{Cores: 8, MemoryBytes: 32 << 30, DiskMBps: 500, DiskIOPS: 16000, DiskLatencyMs: 1}
	in := Input{Plan: p, Hardware: hw, Strategy: DefaultStrategy(hw), Samples: 20, Seed: 1}
	cpu := cpuClock(b)
	for b.Loop() {
		if _, err := Run(context.Background(), in); err != nil {
			b.Fatal(err)
		}
	}
	cpu()
}

// BenchmarkEstimateScaling shows how one estimate grows with the table
// count (n log n is the target; quadratic shows up as ×100 per ×10).
func BenchmarkEstimateScaling(b *testing.B) {
	hw := Hardware{Cores: 8, MemoryBytes: 32 << 30, DiskMBps: 500, DiskIOPS: 16000, DiskLatencyMs: 1}
	for _, n := range []int{100, 1000, 10000} {
		p := manyTablesPlan(n)
		b.Run(fmt.Sprintf("tables=%d", n), func(b *testing.B) {
			in := Input{Plan: p, Hardware: hw, Strategy: DefaultStrategy(hw)}
			cpu := cpuClock(b)
			for b.Loop() {
				if _, err := Run(context.Background(), in); err != nil {
					b.Fatal(err)
				}
			}
			cpu()
		})
	}
}

// BenchmarkForecast is one live forecast halfway through a run of n
// tables (the estimate's own timeline cut there, its jobs having taken a
// third longer): the forecast alone, as the ETA makes it every few
// seconds, and with its 16-sample range.
func BenchmarkForecast(b *testing.B) {
	hw := Hardware{Cores: 2, MemoryBytes: 16 << 30, DiskMBps: 200, DiskIOPS: 4000, DiskLatencyMs: 1}
	for _, n := range []int{335, 10000} {
		in := Input{Plan: manyTablesPlan(n), Hardware: hw, Strategy: DefaultStrategy(hw)}
		est, err := Run(context.Background(), in)
		if err != nil {
			b.Fatal(err)
		}
		l, err := NewLive(in, est)
		if err != nil {
			b.Fatal(err)
		}
		left := cutAt(est, est.Window.D()/2, 4.0/3)
		for _, samples := range []int{0, 16} {
			b.Run(fmt.Sprintf("tables=%d/samples=%d", n, samples), func(b *testing.B) {
				cpu := cpuClock(b)
				for b.Loop() {
					if _, err := l.Forecast(context.Background(), left, samples, 1); err != nil {
						b.Fatal(err)
					}
				}
				cpu()
			})
		}
	}
}
