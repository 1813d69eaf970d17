package estimate

import (
	"context"
	"time"

	"github.com/oedl/oedl/internal/schedule"
)

// simExecutor is a schedule.Executor on a simulated clock: Start hands the
// job's work to the discrete-event core, Next advances the clock to the
// next completion. A threaded dump reports each bracket's .bd section as
// it lands, with its load (Outcome.Add, before the load barrier), exactly
// as the real run does.
type simExecutor struct {
	s       *multiSim // one machine, or one per host and link
	m       *Model
	cc      costContext
	hosts   *Hosts
	ccFor   func(host string) costContext
	built   *schedule.Built
	base    time.Time
	pending []schedule.Outcome
	// perturb, when set, scales a job's work (Monte Carlo).
	perturb func(*schedule.Job, *jobWork)
}

var _ schedule.Executor = (*simExecutor)(nil)

// simEpoch is the simulated clock's zero: a fixed instant keeps every
// estimate reproducible.
var simEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

func newSimExecutor(m *Model, cc costContext, built *schedule.Built) *simExecutor {
	return &simExecutor{s: &multiSim{sims: map[string]*sim{}}, m: m, cc: cc, built: built, base: simEpoch,
		ccFor: func(string) costContext { return cc }}
}

func (e *simExecutor) Start(_ context.Context, j *schedule.Job) {
	var w jobWork
	key := ""
	hw := func() Hardware { return e.cc.hw }
	switch {
	case e.hosts == nil:
		w = e.m.work(j, e.cc)
	case j.Kind == schedule.KindMove:
		l := e.hosts.link(j.Host)
		w, key, hw = moveWork(j, l), e.hosts.simKey(j), func() Hardware { return linkHardware(l) }
	default:
		cc := e.ccFor(j.Host)
		w, key, hw = e.m.work(j, cc), e.hosts.simKey(j), func() Hardware { return cc.hw }
		if j.Host != "" {
			w.startup += remoteCalls(j.Kind) * e.hosts.link(j.Host).CallMs / 1000
		}
	}
	if e.perturb != nil {
		e.perturb(j, &w)
	}
	e.s.get(key, hw).add(j, w)
}

func (e *simExecutor) Next() schedule.Outcome {
	for len(e.pending) == 0 {
		if e.s.idle() {
			panic("estimate: Next called with no job running")
		}
		for _, ev := range e.s.step() {
			j := ev.task.ref.(*schedule.Job)
			out := schedule.Outcome{Job: j, Done: ev.taskDone}
			// A section that landed before (a live forecast starts a
			// running dump with its landed sections in the graph) is
			// not added again.
			if ev.task.sections && ev.flow >= 0 && e.built.Job(schedule.LoadID(j.Table, ev.flow+1)) == nil {
				share := bracketShares(len(ev.task.flows), e.m.BracketSkew)[ev.flow]
				out.Add = e.built.SectionJobs(j, ev.flow+1,
					int64(float64(j.Records)*share), int64(float64(j.Bytes)*share))
			}
			if out.Done || len(out.Add) > 0 {
				e.pending = append(e.pending, out)
			}
		}
	}
	out := e.pending[0]
	e.pending = e.pending[1:]
	return out
}

func (e *simExecutor) Now() time.Time { return e.base.Add(seconds(e.s.now)) }
