package tui

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/oedl/oedl/internal/event"
)

// BenchmarkLiveScreenCPU runs the real program (bubbletea renderer at 10
// frames a second, 120x40, writing to a discarded terminal) for one second
// per op while a feeder replays the events of a 1,000-table run at
// eventsPerSecond — far more than a real run sends (8 jobs reporting twice a
// second is 16 a second). It reports the process CPU time per second of wall
// time as "cpu-%" of one core: an upper bound on the screen's share, since it
// also counts the feeder and the garbage collector.
func BenchmarkLiveScreenCPU(b *testing.B) {
	events := synthRun(b, 1000)
	b.Run("baseline-feeder-only", func(b *testing.B) { liveScreenCPU(b, events, 100, false) })
	for _, rate := range []int{0, 100, 2000} {
		b.Run(fmt.Sprintf("events=%d/s", rate), func(b *testing.B) { liveScreenCPU(b, events, rate, true) })
	}
}

// liveScreenCPU measures; with screen false only the feeder runs (into a
// sink that drops), which is the baseline to subtract.
func liveScreenCPU(b *testing.B, events []event.Event, eventsPerSecond int, screen bool) {
	var cpu, wall time.Duration
	for range b.N {
		now := t0
		opts := testOptions(&now, nil)
		opts.Out = io.Discard
		p := New(opts)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		runtime.GC() // the garbage of building the event stream is not the screen's
		before, start := cpuTime(), time.Now()
		var sink event.Sink = p
		if screen {
			go func() { done <- p.Run(ctx) }()
		} else {
			sink = event.SinkFunc(func(event.Event) {})
			done <- nil
		}
		tick := time.NewTicker(time.Second / 100)
		i := 0
		for time.Since(start) < time.Second {
			<-tick.C
			for range eventsPerSecond / 100 {
				e := events[i%len(events)]
				now = e.Time
				sink.Emit(e)
				i++
			}
		}
		tick.Stop()
		p.Close()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
		cancel()
		cpu += cpuTime() - before
		wall += time.Since(start)
	}
	b.ReportMetric(100*cpu.Seconds()/wall.Seconds(), "cpu-%")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
