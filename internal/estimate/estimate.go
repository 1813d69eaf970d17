package estimate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/schedule"
)

// Input is one estimate: a plan on some hardware with a model and a
// strategy.
type Input struct {
	Plan     *plan.Plan
	Hardware Hardware
	Model    *Model // nil = DefaultModel()
	Strategy Strategy
	// Samples is the number of Monte Carlo runs for the P50/P90 range
	// (0 = no range); Seed makes it reproducible.
	Samples int
	Seed    uint64
	// QueueCost is the duration the queue ranks jobs by (longest path
	// first). Nil: the model's, as `oedl estimate` plans; `oedl run`
	// estimating its own graph gives the run's (run.Config.Cost, or
	// schedule.DefaultCost), so the simulated queue starts jobs in the
	// order the run will.
	QueueCost func(*schedule.Job) time.Duration
	// Hosts places the run on several machines (nil: Hardware alone).
	Hosts *Hosts

	// slots are the slot limits a tuned run has reached (Left.Slots): the
	// live forecast queues the work left through them. Only the dispatch
	// takes them; the graph stays the one the run built.
	slots map[schedule.Slot]int
}

// simulation is one dispatch of the plan's graph on the simulated clock.
type simulation struct {
	built  *schedule.Built
	result *schedule.Result
	starts []*schedule.Job // in the order the queue started them
	// preparation is create-target alone, when the strategy prepares the
	// target before the window (it is then skipped in the window).
	preparation time.Duration
}

func (in *Input) model() *Model {
	if in.Model == nil {
		return DefaultModel()
	}
	return in.Model
}

func (in *Input) validate() error {
	if in.Plan == nil || len(in.Plan.Tables) == 0 {
		return errors.New("the plan has no tables")
	}
	if err := in.Hardware.Validate(); err != nil {
		return fmt.Errorf("hardware: %w", err)
	}
	return in.model().Validate()
}

// context is the per-plan knowledge the model uses besides the job.
func (in *Input) context() costContext {
	cc := newCostContext(in.Hardware)
	if kb := float64(in.Plan.Source.BlockSize) / 1024; kb > 0 {
		cc.srcKB = kb
	}
	if kb := float64(in.Plan.BlockSize) / 1024; kb > 0 {
		cc.dstKB = kb
	}
	cc.idx, cc.nTables = in.Plan.Idxbuild, len(in.Plan.Tables)
	cc.tables = make(map[string]*plan.Placement, len(in.Plan.Tables))
	cc.buildIndexesOnLoad = in.Strategy.BuildIndexes
	cc.calibratedLog = calibratedLogging(int64(in.Plan.BlockSize))
	cc.loadLog = runLogging(in.Plan, in.Strategy)
	cc.threaded = map[string]bool{}
	for i := range in.Plan.Tables {
		t := &in.Plan.Tables[i]
		cc.tables[strings.ToLower(t.Table)] = t
		cc.list = append(cc.list, t)
		s := in.Strategy
		if s.DumpThreads > 1 && s.ThreadedDumpMin > 0 && t.Bytes >= s.ThreadedDumpMin {
			cc.threaded[strings.ToLower(t.Table)] = true
			cc.threaded[t.Table] = true
		}
	}
	// prostrct create formats every fixed extent of target.st: the data
	// and index areas', the Schema Area's, the before-image's (often the
	// largest, a BI sized for the load) and the after-image's.
	extents := append(append(append([]plan.Extent{}, in.Plan.Schema...), in.Plan.BI.Extents...), in.Plan.AI...)
	for _, a := range in.Plan.Areas {
		extents = append(extents, a.Extents...)
	}
	for _, x := range extents {
		if x.Fixed {
			cc.extentKB += x.SizeKB
		}
	}
	// and the loads and idxbuild format what they add to variable ones
	// (unless the model's rates were measured with that growth in them).
	if m := in.model(); !m.GrowthInRates {
		cc.growth = variableGrowth(in.Plan, m)
	}
	return cc
}

// build makes the graph of in exactly as `oedl run` does, its queue
// ranked by m (or in.QueueCost); ccFor is the cost context of a host's
// jobs.
func (in *Input) build(m *Model, cc costContext) (*schedule.Built, func(host string) costContext, error) {
	ccs := map[string]costContext{}
	ccFor := func(host string) costContext {
		if in.Hosts == nil {
			return cc
		}
		c, ok := ccs[host]
		if !ok {
			c = cc
			c.hw = in.Hosts.hardware(host, in.Hardware)
			c.disk = c.hw.disk()
			ccs[host] = c
		}
		return c
	}
	cost := in.QueueCost
	if cost == nil {
		cost = func(j *schedule.Job) time.Duration {
			if in.Hosts != nil && j.Kind == schedule.KindMove {
				l := in.Hosts.link(j.Host)
				return aloneDuration(moveWork(j, l), linkHardware(l))
			}
			c := ccFor(j.Host)
			w := m.work(j, c)
			if in.Hosts != nil && j.Host != "" {
				w.startup += remoteCalls(j.Kind) * in.Hosts.link(j.Host).CallMs / 1000
			}
			return aloneDuration(w, c.hw)
		}
	}
	bo := in.Strategy.BuildOptions(cost)
	bo.Hosts = in.Hosts.layout()
	built, err := schedule.Build(in.Plan, bo)
	if err != nil {
		return nil, nil, err
	}
	return built, ccFor, nil
}

// simulate builds the graph exactly as `oedl run` does and dispatches it
// on the simulated executor. perturb (Monte Carlo) may be nil.
func (in *Input) simulate(ctx context.Context, m *Model, perturb func(*schedule.Job, *jobWork)) (*simulation, error) {
	return in.simulateFrom(ctx, m, perturb, nil)
}

// simulateFrom is simulate over the work left (live.go): without the jobs
// done, with the sections landed so far, the running jobs first (left nil:
// the whole run).
func (in *Input) simulateFrom(ctx context.Context, m *Model, perturb func(*schedule.Job, *jobWork), left *leftGraph) (*simulation, error) {
	cc := in.context()
	built, ccFor, err := in.build(m, cc)
	if err != nil {
		return nil, err
	}
	opts := in.Strategy.DispatchOptions(in.Plan)
	for slot, n := range in.slots {
		if _, ok := opts.Slots[slot]; ok && n > 0 {
			opts.Slots[slot] = n
		}
	}
	if left != nil {
		if err := left.extend(built); err != nil {
			return nil, err
		}
	}
	prepared := in.Strategy.Prepared
	opts.Skip = func(j *schedule.Job) bool {
		return (left != nil && left.done[j.ID]) || (prepared && j.Kind == schedule.KindCreateTarget)
	}
	sim := &simulation{built: built}
	if create := built.Job(string(schedule.KindCreateTarget)); prepared && create != nil {
		c := ccFor(create.Host)
		sim.preparation = aloneDuration(m.work(create, c), c.hw)
	}
	if in.Hosts != nil {
		opts.Slots = in.Hosts.Layout.Slots(max(1, in.Strategy.DumpJobs), max(1, in.Strategy.LoadJobs))
	}
	ex := newSimExecutor(m, cc, built)
	ex.hosts, ex.ccFor = in.Hosts, ccFor
	ex.perturb = perturb
	opts.Events = startRecorder{sim: sim, g: built.Graph}
	res, err := schedule.Dispatch(ctx, built.Graph, ex, opts)
	if err != nil {
		return nil, err
	}
	if err := res.Err(); err != nil {
		return nil, fmt.Errorf("simulated run did not complete: %w", err)
	}
	sim.result = res
	return sim, nil
}

// Run estimates the outage window of in.
func Run(ctx context.Context, in Input) (*Estimate, error) {
	if err := in.validate(); err != nil {
		return nil, err
	}
	m := in.model()
	sim, err := in.simulate(ctx, m, nil)
	if err != nil {
		return nil, err
	}
	est := summarise(&in, m, sim)
	if est.Hosts, err = hostsSummary(ctx, &in, m, sim, est.Window.D()); err != nil {
		return nil, err
	}
	if in.Samples > 0 {
		r, err := monteCarlo(ctx, &in, m, est.Window.D(), in.Samples, in.Seed)
		if err != nil {
			return nil, err
		}
		est.Range = r
	}
	return est, nil
}
