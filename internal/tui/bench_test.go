package tui

import (
	"fmt"
	"io"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/oedl/oedl/internal/event"
)

// The TUI's cost is what it adds to every second of a run: Emit for every
// event (on the workers' goroutines) plus one frame every 100 ms (fold the
// queued events and build the view). docs/benchmarks/tui.md turns these
// figures into a share of one core.

// BenchmarkEmit is the cost a worker pays per event.
func BenchmarkEmit(b *testing.B) {
	events := synthRun(b, 300)
	p := New(Options{Out: io.Discard})
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		p.Emit(events[i%len(events)])
		if i%4096 == 4095 {
			p.q.drain() // the screen empties the queue ten times a second
		}
	}
}

// BenchmarkFrame is one frame of a busy run: 100 ms of the events of a
// 1,000-table run with 8 jobs at once, folded and rendered at 120x40.
func BenchmarkFrame(b *testing.B) {
	events := synthRun(b, 1000)
	last := events[len(events)-1].Time
	span := last.Sub(t0)
	frames := int(span / (100 * time.Millisecond))
	perFrame := len(events) / max(frames, 1)
	b.ReportMetric(float64(perFrame), "events/frame")
	now := t0
	q := newQueue()
	m := newModel(testOptions(&now, nil), q)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	i := 0
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if i >= len(events) {
			b.StopTimer()
			i, now = 0, t0
			q = newQueue()
			m = newModel(testOptions(&now, nil), q)
			m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
			b.StartTimer()
		}
		now = now.Add(100 * time.Millisecond)
		for ; i < len(events) && !events[i].Time.After(now); i++ {
			q.push(events[i])
		}
		m.Update(tickMsg{})
		_ = m.View()
	}
}

// BenchmarkApply is the pure fold, per event.
func BenchmarkApply(b *testing.B) {
	events := synthRun(b, 300)
	s := NewState()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if i%len(events) == 0 {
			s = NewState()
		}
		s.Apply(events[i%len(events)])
	}
}

// BenchmarkRenderStatus is `oedl status` on a mid-run picture.
func BenchmarkRenderStatus(b *testing.B) {
	s := NewState()
	for _, e := range synthRun(b, 300) {
		if e.Time.After(at(30)) {
			break
		}
		s.Apply(e)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		_ = RenderStatus(io.Discard, s, 100)
	}
}

var _ event.Sink = (*Program)(nil)

// BenchmarkFrameManyDone is one frame late in a run of n tables, every
// event so far folded (thousands of jobs done): what a frame costs as a
// run of an ERP's 20,000 tables goes on (docs/benchmarks/scale.md).
func BenchmarkFrameManyDone(b *testing.B) {
	for _, n := range []int{1000, 5000, 20000} {
		b.Run(fmt.Sprintf("tables=%d", n), func(b *testing.B) {
			events := synthRun(b, n)
			now := t0
			q := newQueue()
			m := newModel(testOptions(&now, nil), q)
			m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
			cut := len(events) * 9 / 10 // late, with jobs still running
			for _, ev := range events[:cut] {
				q.push(ev)
			}
			now = events[cut-1].Time
			m.Update(tickMsg{})
			for b.Loop() {
				now = now.Add(100 * time.Millisecond)
				m.Update(tickMsg{})
				_ = m.View()
			}
		})
	}
}
