package run

import (
	"context"
	"os"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/schedule"
)

// idxbuildJob rebuilds every index of the target. idxbuild prints no
// byte or record counts while it works, but it rebuilds one area at a
// time and says which, "Processing area N : (11463)": the tables of the
// areas it has finished are its progress, which the screen and the JSON
// events show instead of 0 B for the longest job of the night.
func (e *Executor) idxbuildJob(ctx context.Context, j *schedule.Job, log *os.File) (journal.Record, error) {
	follow := newAreaProgress(e.cfg.Plan)
	rep := &progressReporter{e: e, j: j}
	stop := poll(func() { rep.report(follow.done()) })
	_, err := e.runStep(ctx, j.ID, e.cfg.idxbuildStep(), e.cfg.timeout(j), log, follow)
	stop()
	if err == nil {
		rep.report(j.Records, j.Bytes)
	}
	return journal.Record{}, err
}

// areaProgress follows idxbuild's console: an area is finished when the
// next one starts (11463) or when its sort space is reported (11483).
type areaProgress struct {
	lines   lineSplitter
	areas   map[int]areaTotal // by area number: what its tables hold
	current int               // the area being rebuilt
	started bool              // current is set
	records int64
	bytes   int64
	counted map[int]bool
}

type areaTotal struct{ records, bytes int64 }

func newAreaProgress(p *plan.Plan) *areaProgress {
	a := &areaProgress{areas: map[int]areaTotal{}, counted: map[int]bool{}}
	if p == nil {
		return a
	}
	number := map[string]int{}
	for _, ar := range p.Areas {
		number[ar.Name] = ar.Number
	}
	for _, t := range p.Tables {
		n := number[t.DataArea]
		at := a.areas[n]
		at.records += t.Records
		at.bytes += t.Bytes
		a.areas[n] = at
	}
	return a
}

func (a *areaProgress) Write(p []byte) (int, error) { return a.lines.write(p, a.line) }

func (a *areaProgress) line(l []byte) {
	m, ok := openedge.LineMessage(string(l))
	if !ok {
		return
	}
	switch m.Num {
	case openedge.MsgIdxbuildArea: // "Processing area 8 :"
		if n, ok := openedge.LastNumber(m.Text); ok {
			if a.started {
				a.finish(a.current)
			}
			a.current, a.started = n, true
		}
	case openedge.MsgAreaSortSpace: // "... was used for area 8."
		if n, ok := openedge.LastNumber(m.Text); ok {
			a.finish(n)
		}
	}
}

func (a *areaProgress) finish(area int) {
	if a.counted[area] {
		return
	}
	a.counted[area] = true
	a.records += a.areas[area].records
	a.bytes += a.areas[area].bytes
}

// done is the records and bytes of the tables in the finished areas.
func (a *areaProgress) done() (records, bytes int64) {
	a.lines.mu.Lock()
	defer a.lines.mu.Unlock()
	return a.records, a.bytes
}
