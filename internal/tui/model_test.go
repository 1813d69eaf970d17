package tui

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/units"
)

// testOptions are deterministic: no colour, a clock the test moves, fixed
// free space.
func testOptions(now *time.Time, cancel func()) Options {
	return Options{
		Out: io.Discard, Source: "/db/sports", Target: "/new/sports", Profile: colorprofile.NoTTY,
		Now:    func() time.Time { return *now },
		Cancel: cancel,
		Disks:  func() []Disk { return []Disk{{Label: "dumps", Free: 41 << 30}, {Label: "target", Free: 118 << 30}} },
	}
}

// feed pushes the events up to `until` into q and returns the rest.
func feed(q *queue, events []event.Event, until time.Time) []event.Event {
	for len(events) > 0 && !events[0].Time.After(until) {
		q.push(events[0])
		events = events[1:]
	}
	return events
}

func TestViewGoldenSizes(t *testing.T) {
	events := synthRun(t, 40, "load:PUB.t0007")
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}, {60, 14}} {
		t.Run(strings.Join([]string{itoa(size.w), itoa(size.h)}, "x"), func(t *testing.T) {
			now := at(45)
			q := newQueue()
			m := newModel(testOptions(&now, nil), q)
			m.Update(tea.WindowSizeMsg{Width: size.w, Height: size.h})
			feed(q, events, now)
			m.Update(tickMsg{})
			view := m.View().Content
			for i, line := range strings.Split(view, "\n") {
				assert.LessOrEqual(t, lipgloss.Width(line), size.w, "line %d is wider than the terminal: %q", i, line)
			}
			assert.LessOrEqual(t, strings.Count(view, "\n")+1, size.h, "the live area fits the terminal")
			assertGolden(t, "view_"+itoa(size.w)+"x"+itoa(size.h)+".golden", []byte(view+"\n"))
		})
	}
}

func itoa(n int) string { return units.Thousands(int64(n)) }

func TestQuitAsksOnceThenCancels(t *testing.T) {
	now := at(10)
	cancels := 0
	m := newModel(testOptions(&now, func() { cancels++ }), newQueue())
	m.Update(tea.KeyPressMsg{Code: 'q', Text: "q"})
	assert.Contains(t, m.View().Content, "Cancel the run?")
	assert.Zero(t, cancels, "the first q only asks")
	m.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
	assert.NotContains(t, m.View().Content, "Cancel the run?")
	assert.Zero(t, cancels)

	m.Update(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	m.Update(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	assert.Equal(t, 1, cancels, "Ctrl-C twice cancels")
	assert.Contains(t, m.View().Content, "cancelling")
	m.Update(tea.KeyPressMsg{Code: 'y', Text: "y"})
	m.Update(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	assert.Equal(t, 1, cancels, "cancel is called once")
}

// TestRedrawsAtMostTenPerSecond replays a run of 300 tables (about 40,000
// events, most of them progress) on simulated time, one frame per 100 ms,
// and counts the views built.
func TestRedrawsAtMostTenPerSecond(t *testing.T) {
	events := synthRun(t, 300)
	last := events[len(events)-1].Time
	now := t0
	q := newQueue()
	m := newModel(testOptions(&now, nil), q)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	start := m.frames
	ticks := 0
	for now = t0; !now.After(last.Add(time.Second)); now = now.Add(100 * time.Millisecond) {
		events = feed(q, events, now)
		m.Update(tickMsg{})
		ticks++
		// bubbletea calls View after every message; that must not build.
		for range 5 {
			_ = m.View()
		}
	}
	seconds := last.Sub(t0).Seconds() + 1
	frames := m.frames - start
	t.Logf("%d frames over %.0f s of simulated run (%.1f per second), %d events pushed", frames, seconds, float64(frames)/seconds, q.pushed)
	assert.LessOrEqual(t, frames, ticks)
	assert.LessOrEqual(t, float64(frames)/seconds, 10.0)
	assert.True(t, m.st.Finished)
}

func TestQueueCoalescesProgress(t *testing.T) {
	q := newQueue()
	p := func(job string, b int64) event.Event {
		return event.Event{Kind: event.JobProgress, Job: job, Bytes: b}
	}
	q.push(p("a", 1))
	q.push(p("b", 1))
	q.push(p("a", 2))
	q.push(event.Event{Kind: event.JobFinished, Job: "a"})
	q.push(p("a", 3)) // after the finish: must stay after it
	got, closed := q.drain()
	assert.False(t, closed)
	require.Len(t, got, 4)
	assert.Equal(t, int64(2), got[0].Bytes)
	assert.Equal(t, "b", got[1].Job)
	assert.Equal(t, event.JobFinished, got[2].Kind)
	assert.Equal(t, int64(3), got[3].Bytes)
	q.close()
	q.push(p("a", 4))
	got, closed = q.drain()
	assert.True(t, closed)
	assert.Empty(t, got, "nothing is queued after the run ended")
}

// TestProgramTeatest runs the real bubbletea program: events arrive through
// Emit while it runs, finished jobs are printed above the live area, and
// Close ends it with the final picture.
func TestProgramTeatest(t *testing.T) {
	events := synthRun(t, 12, "load:PUB.t0005")
	now := events[len(events)-1].Time
	opts := testOptions(&now, nil)
	opts.Interval = 10 * time.Millisecond
	p := New(opts)
	m := newModel(p.opts, p.q)
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30))
	for _, e := range events {
		p.Emit(e)
	}
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("load PUB.t0005 (attempt")) || bytes.Contains(b, []byte("✗ load PUB.t0005"))
	}, teatest.WithDuration(5*time.Second))
	p.Close()
	final := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*model)
	assert.True(t, final.over)
	assertGolden(t, "program_final_100x30.golden", []byte(final.View().Content+"\n"))
}

// TestRunReturnsAfterClose drives Program.Run itself, with no keyboard.
func TestRunReturnsAfterClose(t *testing.T) {
	now := at(0)
	var out bytes.Buffer
	opts := testOptions(&now, nil)
	opts.Out = &out
	opts.Interval = 5 * time.Millisecond
	p := New(opts)
	for _, e := range synthRun(t, 3) {
		p.Emit(e)
	}
	done := make(chan error, 1)
	go func() { done <- p.Run(t.Context()) }()
	p.Close()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after Close")
	}
	assert.Contains(t, out.String(), "✓ load PUB.t0000", "finished jobs are printed above the live area")
}

// TestTeatestCancelFlow types q and y into the running program: the
// question shows, then the cancel func runs once, then the screen waits for
// the run to end (Close) instead of vanishing.
func TestTeatestCancelFlow(t *testing.T) {
	now := at(30)
	cancelled := make(chan struct{})
	opts := testOptions(&now, func() { close(cancelled) })
	opts.Interval = 10 * time.Millisecond
	p := New(opts)
	tm := teatest.NewTestModel(t, newModel(p.opts, p.q), teatest.WithInitialTermSize(80, 24))
	for _, e := range synthRun(t, 8) {
		if e.Time.After(now) {
			break
		}
		p.Emit(e)
	}
	tm.Type("q")
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("Cancel the run?")) },
		teatest.WithDuration(5*time.Second))
	tm.Type("y")
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("y did not cancel the run")
	}
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("waiting for the running jobs to stop")) },
		teatest.WithDuration(5*time.Second))
	p.Emit(event.Event{Time: now, Kind: event.RunFinished, Err: "interrupted", Status: event.StatusInterrupted})
	p.Close()
	final := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*model)
	assert.True(t, final.cancelled)
	assert.Contains(t, final.View().Content, "cancelled after 30s", "a cancel is a cancel")
	assert.NotContains(t, final.View().Content, "failed")
	assertGolden(t, "program_cancelled_80x24.golden", []byte(final.View().Content+"\n"))
}

func TestResizeRedraws(t *testing.T) {
	now := at(45)
	q := newQueue()
	m := newModel(testOptions(&now, nil), q)
	feed(q, synthRun(t, 40), now)
	m.Update(tickMsg{})
	for _, w := range []int{120, 50, 200, 80} {
		before := m.frames
		m.Update(tea.WindowSizeMsg{Width: w, Height: 30})
		assert.Equal(t, before+1, m.frames, "a resize redraws at once")
		for _, line := range strings.Split(m.View().Content, "\n") {
			assert.LessOrEqual(t, lipgloss.Width(line), max(w, 40), "width %d: %q", w, line)
		}
	}
}

// TestKeyboardBytesCancel types raw terminal bytes into Program.Run: the
// Ctrl-C byte (0x03, what a terminal in raw mode sends) is the ctrl+c key
// the screen asks about, so that Ctrl-C still stops the run after bubbletea
// v2's new input parser. y alone cancels nothing: each sequence cancels only
// if its first key asked.
func TestKeyboardBytesCancel(t *testing.T) {
	for _, typed := range []string{"\x03\x03", "\x03y", "q\x03", "qy"} {
		t.Run(strconv.Quote(typed), func(t *testing.T) {
			now := at(10)
			cancelled := make(chan struct{})
			opts := testOptions(&now, func() { close(cancelled) })
			opts.Interval = 5 * time.Millisecond
			keys, typist := io.Pipe()
			opts.In = keys
			p := New(opts)
			done := make(chan error, 1)
			go func() { done <- p.Run(t.Context()) }()
			_, err := typist.Write([]byte(typed))
			require.NoError(t, err)
			select {
			case <-cancelled:
			case <-time.After(5 * time.Second):
				t.Fatalf("%q did not cancel the run", typed)
			}
			p.Close()
			require.NoError(t, <-done)
			require.NoError(t, typist.Close())
		})
	}
}
