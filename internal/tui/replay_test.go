package tui

import (
	"os"
	"strconv"
	"testing"
	"time"
)

// TestReplayOnTerminal replays a synthetic run (the dispatcher on a
// simulated clock, as in the other tests) through the real live screen on
// this process's terminal, OEDL_TUI_REPLAY times faster than it happened.
// It is how the screen is looked at and recorded without OpenEdge or oesim:
//
//	go test -c -o /tmp/tui.test ./internal/tui
//	OEDL_TUI_REPLAY=10 /tmp/tui.test -test.run TestReplayOnTerminal
//
// It only runs when OEDL_TUI_REPLAY is set.
func TestReplayOnTerminal(t *testing.T) {
	speed, err := strconv.ParseFloat(os.Getenv("OEDL_TUI_REPLAY"), 64)
	if err != nil || speed <= 0 {
		t.Skip("set OEDL_TUI_REPLAY=SPEEDUP to watch a synthetic run on this terminal")
	}
	events := synthRun(t, 60, "load:PUB.t0009")
	start := time.Now()
	clock := func() time.Time { return t0.Add(time.Duration(float64(time.Since(start)) * speed)) }
	p := New(Options{Out: os.Stderr, In: os.Stdin, Source: "/db/erp", Target: "/db/erp-new", Now: clock,
		Disks: FreeSpace("dumps", os.TempDir(), "target", "/")})
	go func() {
		for _, e := range events {
			if d := time.Duration(float64(e.Time.Sub(clock())) / speed); d > 0 {
				time.Sleep(d)
			}
			p.Emit(e)
		}
		time.Sleep(time.Second)
		p.Close()
	}()
	if err := p.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
}
