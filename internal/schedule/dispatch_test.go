package schedule

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/plan"
)

// clockExec runs each job for its Cost on a fake clock: Next ends the job
// that finishes first (ties: the one started first). fail makes a job end
// with an error; add lets a job report new jobs when it ends.
type clockExec struct {
	now     time.Duration
	running []*clockRun
	seq     int
	fail    map[string]bool
	add     func(*Job) []*Job
	order   []string // start order
	maxBusy map[string]int
}

type clockRun struct {
	j   *Job
	end time.Duration
	seq int
}

var epoch = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

func (e *clockExec) Start(_ context.Context, j *Job) {
	e.running = append(e.running, &clockRun{j: j, end: e.now + j.Cost, seq: e.seq})
	e.seq++
	e.order = append(e.order, j.ID)
}

func (e *clockExec) Next() Outcome {
	sort.SliceStable(e.running, func(a, b int) bool {
		if e.running[a].end != e.running[b].end {
			return e.running[a].end < e.running[b].end
		}
		return e.running[a].seq < e.running[b].seq
	})
	r := e.running[0]
	e.running = e.running[1:]
	e.now = r.end
	out := Outcome{Job: r.j, Done: true}
	if e.fail[r.j.ID] {
		out.Err = errors.New("boom")
	}
	if e.add != nil {
		out.Add = e.add(r.j)
	}
	return out
}

func (e *clockExec) Now() time.Time { return epoch.Add(e.now) }

func job(id string, cost time.Duration, deps ...string) *Job {
	return &Job{ID: id, Kind: KindDump, Cost: cost, Deps: deps}
}

// overlaps reports whether two spans of res share time.
func spans(res *Result) map[string]Span {
	m := map[string]Span{}
	for _, s := range res.Spans {
		m[s.Job.ID] = s
	}
	return m
}

func maxConcurrent(res *Result, keep func(*Job) bool) int {
	type ev struct {
		t     time.Time
		delta int
	}
	var evs []ev
	for _, s := range res.Spans {
		if keep(s.Job) {
			evs = append(evs, ev{s.Start, 1}, ev{s.End, -1})
		}
	}
	sort.Slice(evs, func(a, b int) bool {
		if !evs[a].t.Equal(evs[b].t) {
			return evs[a].t.Before(evs[b].t)
		}
		return evs[a].delta < evs[b].delta // ends before starts at the same instant
	})
	n, best := 0, 0
	for _, e := range evs {
		n += e.delta
		best = max(best, n)
	}
	return best
}

func TestDispatchLongestPathFirstWithinSlots(t *testing.T) {
	jobs := []*Job{job("a", 1*time.Second), job("b", 5*time.Second), job("c", 3*time.Second)}
	for _, j := range jobs {
		j.Slot = SlotDump
	}
	g, err := NewGraph(jobs)
	require.NoError(t, err)
	ex := &clockExec{}
	res, err := Dispatch(context.Background(), g, ex, Options{Slots: map[Slot]int{SlotDump: 1}})
	require.NoError(t, err)
	require.NoError(t, res.Err())
	assert.Equal(t, []string{"b", "c", "a"}, ex.order)
	assert.Equal(t, 9*time.Second, res.Elapsed())
}

func TestDispatchRules(t *testing.T) {
	load := func(id, area string, cost time.Duration) *Job {
		return &Job{ID: id, Kind: KindLoad, Area: area, Slot: SlotLoad, Cost: cost}
	}
	t.Run("loads per area", func(t *testing.T) {
		g, err := NewGraph([]*Job{load("l1", "A", 2*time.Second), load("l2", "A", 2*time.Second), load("l3", "B", 1*time.Second)})
		require.NoError(t, err)
		res, err := Dispatch(context.Background(), g, &clockExec{}, Options{Slots: map[Slot]int{SlotLoad: 3}, LoadsPerArea: 1})
		require.NoError(t, err)
		assert.Equal(t, 1, maxConcurrent(res, func(j *Job) bool { return j.Area == "A" }))
		assert.Equal(t, 2, maxConcurrent(res, func(j *Job) bool { return true }))
		assert.Equal(t, 4*time.Second, res.Elapsed())
	})
	t.Run("area caps by name, the rest uncapped", func(t *testing.T) {
		g, err := NewGraph([]*Job{load("l1", "A", 2*time.Second), load("l2", "A", 2*time.Second),
			load("l3", "B", 2*time.Second), load("l4", "B", 2*time.Second)})
		require.NoError(t, err)
		res, err := Dispatch(context.Background(), g, &clockExec{}, Options{Slots: map[Slot]int{SlotLoad: 4}, AreaLoads: map[string]int{"A": 1}})
		require.NoError(t, err)
		assert.Equal(t, 1, maxConcurrent(res, func(j *Job) bool { return j.Area == "A" }))
		assert.Equal(t, 2, maxConcurrent(res, func(j *Job) bool { return j.Area == "B" }))
		assert.Equal(t, 4*time.Second, res.Elapsed())
	})
	t.Run("no load starts in an area with a repair due", func(t *testing.T) {
		// l1 fails at 1 s and queues the repair of A while l2 still loads
		// into A; l3, ready all along, must wait for the repair, not
		// start into an area about to be truncated.
		l3 := load("l3", "A", time.Second)
		l3.Deps = []string{"gate"}
		g, err := NewGraph([]*Job{load("l1", "A", time.Second), load("l2", "A", 3*time.Second), job("gate", 2*time.Second), l3})
		require.NoError(t, err)
		ex := &clockExec{fail: map[string]bool{"l1": true}, add: func(j *Job) []*Job {
			if j.ID != "l1" {
				return nil
			}
			return []*Job{{ID: "repair:A:1", Kind: KindRepair, Area: "A", Cost: time.Second}}
		}}
		res, err := Dispatch(context.Background(), g, ex, Options{Slots: map[Slot]int{SlotLoad: 4}})
		require.NoError(t, err)
		sp := spans(res)
		assert.False(t, sp["repair:A:1"].Start.Before(sp["l2"].End), "the repair waits for the running load")
		assert.False(t, sp["l3"].Start.Before(sp["repair:A:1"].End), "l3 waits for the repair")
		assert.Equal(t, []string{"repair:A:1", "l3"}, ex.order[3:])
	})
	t.Run("exclusive runs alone on the target", func(t *testing.T) {
		x := job("x", 1*time.Second)
		x.Exclusive = true
		src := job("src", 3*time.Second)
		src.Kind = KindAnalyzeSource
		shut := job("shut", time.Second, "src")
		shut.Kind, shut.DB = KindShutdown, DBSource
		a, b := job("a", 3*time.Second), job("b", 1*time.Second)
		a.Kind, b.Kind = KindLoad, KindLoad
		g, err := NewGraph([]*Job{a, x, b, src, shut})
		require.NoError(t, err)
		res, err := Dispatch(context.Background(), g, &clockExec{}, Options{})
		require.NoError(t, err)
		sp := spans(res)
		overlaps := func(id string) bool { return sp[id].End.After(sp["x"].Start) && sp[id].Start.Before(sp["x"].End) }
		for _, id := range []string{"a", "b"} {
			assert.False(t, overlaps(id), "%s overlaps the exclusive job", id)
		}
		assert.True(t, overlaps("src") || overlaps("shut"), "the source's jobs go on beside the exclusive job")
	})
	t.Run("a failure blocks what depends on it", func(t *testing.T) {
		g, err := NewGraph([]*Job{job("a", time.Second), job("b", time.Second, "a"), job("c", time.Second)})
		require.NoError(t, err)
		res, err := Dispatch(context.Background(), g, &clockExec{fail: map[string]bool{"a": true}}, Options{})
		require.NoError(t, err)
		assert.Contains(t, res.Failed, "a")
		assert.Equal(t, []string{"b"}, res.Blocked)
		assert.ErrorContains(t, res.Err(), "a: boom")
	})
	t.Run("skipped jobs count as done", func(t *testing.T) {
		g, err := NewGraph([]*Job{job("a", time.Second), job("b", time.Second, "a")})
		require.NoError(t, err)
		ex := &clockExec{}
		res, err := Dispatch(context.Background(), g, ex, Options{Skip: func(j *Job) bool { return j.ID == "a" }})
		require.NoError(t, err)
		assert.Equal(t, []string{"a"}, res.Skipped)
		assert.Equal(t, []string{"b"}, ex.order)
	})
	t.Run("jobs added while running come before their barrier", func(t *testing.T) {
		g, err := NewGraph([]*Job{job("d", 2*time.Second), job("barrier", time.Second, "d")})
		require.NoError(t, err)
		ex := &clockExec{add: func(j *Job) []*Job {
			if j.ID != "d" {
				return nil
			}
			return []*Job{{ID: "extra", Kind: KindLoad, Cost: 5 * time.Second, Before: []string{"barrier"}}}
		}}
		res, err := Dispatch(context.Background(), g, ex, Options{})
		require.NoError(t, err)
		sp := spans(res)
		assert.False(t, sp["barrier"].Start.Before(sp["extra"].End))
		assert.Equal(t, 8*time.Second, res.Elapsed())
	})
	t.Run("a ready job named in Before stops being ready", func(t *testing.T) {
		// "late" is ready from the start but its one slot is busy; when
		// "first" ends it adds "extra" before "late".
		first := job("first", 2*time.Second)
		first.Slot = SlotDump
		late := job("late", 1*time.Second)
		late.Slot = SlotDump
		g, err := NewGraph([]*Job{first, late})
		require.NoError(t, err)
		ex := &clockExec{add: func(j *Job) []*Job {
			if j.ID != "first" {
				return nil
			}
			return []*Job{{ID: "extra", Kind: KindLoad, Cost: 3 * time.Second, Before: []string{"late"}}}
		}}
		res, err := Dispatch(context.Background(), g, ex, Options{Slots: map[Slot]int{SlotDump: 1}})
		require.NoError(t, err)
		assert.Equal(t, []string{"first", "extra", "late"}, ex.order)
		assert.Equal(t, 6*time.Second, res.Elapsed())
	})
}

// naiveOrder is the queue policy written the obvious way: at every event,
// sort every ready job by rank and start those the rules allow. The heap
// queue must start jobs in exactly the same order.
func naiveOrder(g *Graph, o Options) []string {
	rank := g.Ranks()
	done, started := map[string]bool{}, map[string]bool{}
	bySlot, byArea := map[Slot]int{}, map[string]int{}
	type run struct {
		j   *Job
		end time.Duration
		seq int
	}
	var running []run
	var order []string
	var now time.Duration
	exclusive := false
	onTarget := func() int { // running jobs an exclusive one must not meet
		n := 0
		for _, r := range running {
			if !SourceSide(r.j) {
				n++
			}
		}
		return n
	}
	for {
		var ready []*Job
		for _, j := range g.jobs {
			if done[j.ID] || started[j.ID] {
				continue
			}
			ok := true
			for _, d := range j.Deps {
				ok = ok && done[d]
			}
			if ok {
				ready = append(ready, j)
			}
		}
		if passed := passBarriers(ready, done); passed {
			continue
		}
		sort.SliceStable(ready, func(a, b int) bool {
			if rank[ready[a].ID] != rank[ready[b].ID] {
				return rank[ready[a].ID] > rank[ready[b].ID]
			}
			return ready[a].ID < ready[b].ID
		})
		for _, j := range ready {
			slots := o.Slots[j.Slot]
			if slots == 0 {
				slots = 1
			}
			switch {
			case exclusive && !SourceSide(j), j.Exclusive && onTarget() > 0:
			case j.Slot != SlotNone && bySlot[j.Slot] >= slots:
			case j.Kind == KindLoad && j.Area != "" && capOf(o, j.Area) > 0 && byArea[j.Area] >= capOf(o, j.Area):
			default:
				started[j.ID] = true
				bySlot[j.Slot]++
				byArea[j.Area]++
				exclusive = exclusive || j.Exclusive
				running = append(running, run{j, now + j.Cost, len(order)})
				order = append(order, j.ID)
			}
		}
		if len(running) == 0 {
			return order
		}
		sort.SliceStable(running, func(a, b int) bool {
			if running[a].end != running[b].end {
				return running[a].end < running[b].end
			}
			return running[a].seq < running[b].seq
		})
		r := running[0]
		running = running[1:]
		now = r.end
		done[r.j.ID] = true
		bySlot[r.j.Slot]--
		byArea[r.j.Area]--
		if r.j.Exclusive {
			exclusive = false
		}
	}
}

func TestDispatchMatchesNaivePolicy(t *testing.T) {
	for seed := range uint64(20) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 1))
			p := &plan.Plan{}
			for i := range 30 + rng.IntN(60) {
				p.Tables = append(p.Tables, plan.Placement{Table: fmt.Sprintf("PUB.t%02d", i),
					Bytes: int64(rng.IntN(1000)+1) << 20, Records: int64(rng.IntN(1e6)), DataArea: fmt.Sprintf("a%d", rng.IntN(5))})
			}
			b, err := Build(p, BuildOptions{Staged: seed%3 == 0, ServeSource: true, ServeTarget: true})
			require.NoError(t, err)
			o := Options{Slots: map[Slot]int{SlotDump: 1 + rng.IntN(6), SlotLoad: 1 + rng.IntN(4)}, LoadsPerArea: rng.IntN(3)}
			if seed%2 == 1 {
				o.AreaLoads = map[string]int{"a1": 1, "a3": 2}
			}
			want := naiveOrder(b.Graph, o)
			ex := &clockExec{}
			res, err := Dispatch(context.Background(), b.Graph, ex, o)
			require.NoError(t, err)
			require.NoError(t, res.Err())
			assert.Equal(t, want, ex.order)
		})
	}
}

// capOf is the cap of area under o, written out for naiveOrder.
func capOf(o Options, area string) int {
	if n, ok := o.AreaLoads[area]; ok {
		return n
	}
	return o.LoadsPerArea
}

// passBarriers completes the ready barriers at once, as the dispatcher does
// (they run nothing and take no slot), and reports whether there were any.
func passBarriers(ready []*Job, done map[string]bool) bool {
	passed := false
	for _, j := range ready {
		if j.Kind == KindBarrier {
			done[j.ID] = true
			passed = true
		}
	}
	return passed
}
