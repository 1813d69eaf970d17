package estimate

import (
	"fmt"
	"strings"
	"time"

	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/schedule"
	"github.com/oedl/oedl/internal/units"
)

// Strategy is how the run is organised: the knobs of `oedl run` that
// change the graph (staged or overlapped, threaded dumps) and the queue
// (job counts, loads per area). The estimate of a strategy executes the
// graph schedule.Build makes from it.
type Strategy struct {
	Name            string `json:"name,omitempty"`
	Staged          bool   `json:"staged"`                // every load waits for every dump
	DumpJobs        int    `json:"dump_jobs"`             // concurrent dumps
	LoadJobs        int    `json:"load_jobs"`             // concurrent loads
	LoadsPerArea    int    `json:"loads_per_area"`        // 0 = by area type (schedule.AreaLoadCaps), < 0 = no cap
	ThreadedDumpMin int64  `json:"threaded_dump_min"`     // tables at least this large dump with threads
	DumpThreads     int    `json:"dump_threads"`          // -threadnum of those dumps
	BuildIndexes    bool   `json:"build_indexes_on_load"` // `load ... build indexes` for single-file tables
	BatchLoads      bool   `json:"batch_loads,omitempty"` // small tables of an area load in batches (schedule/batch.go)
	// Prepared: the target is made before the window (oedl prepare), so
	// create-target is not in it; the estimate states its time apart.
	Prepared bool `json:"prepared,omitempty"`
	// NoIntegrity loads with -i (oedl run --no-integrity); UntunedTarget
	// serves the target with a bare proserve and OpenEdge's default BI
	// (--tune-target=false). Both change what a load writes (biload.go).
	NoIntegrity   bool `json:"no_integrity,omitempty"`
	UntunedTarget bool `json:"untuned_target,omitempty"`
	// DumpsBesideCreate: every dump starts beside the target's creation
	// (its formatting on another device than the source's, or a kit that
	// does not wait for it) instead of the disk-bound ones after it
	// (schedule.BuildOptions.DumpsAfterCreate).
	DumpsBesideCreate bool `json:"dumps_beside_create,omitempty"`
}

// DefaultStrategy is the core rule of `oedl run`'s defaults on hw, before
// DefaultJobs sizes the job counts to a plan: dumps are I/O-bound, so two
// per core (KB 15479 advises several dump sessions per CPU), one load per
// core, one load at a
// time into a Type I target area and no cap in a Type II one, and tables
// from 64 MiB up dumped with up to 4 threads; the small tables of an area
// loaded in batches, one utility call each (docs/decisions.md, "Batched
// loads": measured faster, docs/benchmarks/run.md).
func DefaultStrategy(hw Hardware) Strategy {
	cores := max(1, hw.Cores)
	return Strategy{DumpJobs: max(2, 2*cores), LoadJobs: max(2, cores),
		ThreadedDumpMin: 64 << 20, DumpThreads: min(4, max(2, cores)), BatchLoads: true}
}

// BuildOptions is the graph this strategy makes; cost orders the queue.
func (s Strategy) BuildOptions(cost func(*schedule.Job) time.Duration) schedule.BuildOptions {
	var batch schedule.BatchOptions
	if s.BatchLoads && !s.BuildIndexes {
		batch.TableMax = schedule.StartupBytes(cost)
	}
	return schedule.BuildOptions{
		Batch:           batch,
		Cost:            cost,
		Staged:          s.Staged,
		ServeSource:     schedule.Served(s.DumpJobs),
		ServeTarget:     schedule.Served(s.LoadJobs),
		ThreadedDumpMin: s.ThreadedDumpMin,
		DumpThreads:     s.DumpThreads,
		// The estimate's machine has one disk: an unprepared target is
		// formatted on the device the dumps read unless the run says it
		// is elsewhere.
		DumpsAfterCreate: !s.Prepared && !s.DumpsBesideCreate,
	}
}

// DispatchOptions are the queue rules of this strategy on plan p (whose
// area types decide the default per-area cap).
func (s Strategy) DispatchOptions(p *plan.Plan) schedule.Options {
	perArea, areas := schedule.AreaLoadCaps(p, s.LoadsPerArea)
	return schedule.Options{
		Slots:        map[schedule.Slot]int{schedule.SlotDump: max(1, s.DumpJobs), schedule.SlotLoad: max(1, s.LoadJobs)},
		LoadsPerArea: perArea,
		AreaLoads:    areas,
	}
}

// Describe is a one-line summary for reports.
func (s Strategy) Describe() string {
	var parts []string
	if s.Staged {
		parts = append(parts, "staged (all dumps, then all loads)")
	} else {
		parts = append(parts, "overlapped (a table loads as soon as its dump lands)")
	}
	parts = append(parts, fmt.Sprintf("%d dump jobs", s.DumpJobs), fmt.Sprintf("%d load jobs", s.LoadJobs))
	switch {
	case s.LoadsPerArea > 0:
		parts = append(parts, fmt.Sprintf("≤%d load per area", s.LoadsPerArea))
	case s.LoadsPerArea == 0:
		parts = append(parts, "≤1 load per Type I area")
	}
	if s.DumpThreads > 1 && s.ThreadedDumpMin > 0 {
		parts = append(parts, fmt.Sprintf("tables ≥ %s dumped with %d threads", units.FormatIEC(s.ThreadedDumpMin), s.DumpThreads))
	}
	if s.BuildIndexes {
		parts = append(parts, "indexes built during the load")
	} else {
		if s.BatchLoads {
			parts = append(parts, "small tables loaded in batches")
		}
		parts = append(parts, "idxbuild all")
	}
	if s.Prepared {
		parts = append(parts, "target prepared before the window")
	}
	return strings.Join(parts, ", ")
}

// RunStrategy is the strategy of an `oedl run` with these flag values,
// with run.Config's conventions: 0 takes the default for hw; loadsPerArea
// keeps its own (0 = by area type, negative = no cap) and a negative
// threadedDumpMin means no threaded dumps. `oedl run --dry-run` and `oedl estimate` both use it, so
// the estimate describes the run the flags ask for. With a model and a
// plan the default job counts are DefaultJobs', as run.Config's are.
func RunStrategy(hw Hardware, m *Model, p *plan.Plan, dumpJobs, loadJobs, loadsPerArea int, threadedDumpMin int64, dumpThreads int) Strategy {
	s := DefaultStrategy(hw)
	if m != nil && p != nil {
		s.DumpJobs, s.LoadJobs = DefaultJobs(m, hw, p)
	}
	if dumpJobs > 0 {
		s.DumpJobs = dumpJobs
	}
	if loadJobs > 0 {
		s.LoadJobs = loadJobs
	}
	s.LoadsPerArea = loadsPerArea
	switch {
	case threadedDumpMin > 0:
		s.ThreadedDumpMin = threadedDumpMin
	case threadedDumpMin < 0:
		s.ThreadedDumpMin = 0
	}
	if dumpThreads > 0 {
		s.DumpThreads = dumpThreads
	}
	return s
}
