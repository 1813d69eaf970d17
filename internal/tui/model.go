package tui

import (
	"cmp"
	"strings"
	"time"

	"charm.land/bubbles/v2/progress"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/oedl/oedl/internal/event"
)

// Messages of the screen.
type (
	tickMsg        struct{}
	interruptedMsg struct{}
)

// model is the bubbletea model. It folds queued events into a State once
// per frame and keeps the rendered view, rebuilt only on a frame with
// something new, so View (called by bubbletea after every message) costs a
// string copy.
type model struct {
	opts  Options
	q     *queue
	st    *State
	sty   styles
	bar   progress.Model
	width int
	high  int

	view   string
	dirty  bool
	frames int // views built, for the redraw-rate test and benchmark
	shown  time.Duration

	help        bool // ? shows the keys
	confirming  bool // q or Ctrl-C pressed once: asking
	cancelled   bool // the user confirmed; Cancel was called
	interrupted bool // ctx ended (SIGINT from outside)
	over        bool // the run ended and the last events are shown

	disks    []Disk
	diskTime time.Time

	// ticks counts frames; held keeps the first frame's finished lines
	// for the second: until bubbletea has drawn the live area once (its
	// first tick, as long as ours) it counts the whole terminal as the
	// live area, and lines inserted above it then land the live area off
	// the screen (above.go).
	ticks int
	held  []string
}

func newModel(o Options, q *queue) *model {
	o.defaults()
	m := &model{opts: o, q: q, st: NewState(), sty: newStyles(), width: 100, high: 30, dirty: true}
	m.bar = progress.New(progress.WithoutPercentage(), progress.WithColors(lipgloss.Color("#59a14f")),
		progress.WithFillCharacters(progress.DefaultFullCharFullBlock, progress.DefaultEmptyCharBlock))
	// No Advance here: the clock moves with the first events, so that
	// events queued before the first frame keep their own times.
	m.pollDisks(o.Now())
	m.rebuild()
	return m
}

func (m *model) Init() tea.Cmd { return m.tick() }

func (m *model) tick() tea.Cmd {
	return tea.Tick(m.opts.Interval, func(time.Time) tea.Msg { return tickMsg{} })
}

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tickMsg:
		return m, m.frame()
	case tea.WindowSizeMsg:
		m.width, m.high = msg.Width, msg.Height
		m.dirty = true
		m.rebuild()
	case interruptedMsg:
		m.interrupted = true
		m.dirty = true
		m.rebuild()
	case tea.KeyPressMsg:
		m.key(msg.String())
		m.rebuild()
	}
	return m, nil
}

// frame folds the queued events, prints the finished jobs above the live
// area and rebuilds the view. It runs once per Interval.
func (m *model) frame() tea.Cmd {
	events, closed := m.q.drain()
	var lines []string
	for _, e := range events {
		m.st.Apply(e)
		if l := m.finishedLine(e); l != "" {
			lines = append(lines, l)
		}
	}
	now := m.opts.Now()
	m.st.Advance(now)
	m.pollDisks(now)
	if len(events) > 0 || m.st.Elapsed().Truncate(time.Second) != m.shown {
		m.dirty = true
	}
	if closed {
		m.over = true
		m.dirty = true
	}
	m.ticks++
	if lines = append(m.held, lines...); m.ticks == 1 && !closed {
		m.held, lines = lines, nil
	} else {
		m.held = nil
	}
	drawn := m.view
	m.rebuild()
	// In order, each group no taller than the rows above the live area
	// (above.go).
	var prints []tea.Cmd
	for _, g := range aboveChunks(lines, m.width, rowsAbove(m.high, drawn, m.view)) {
		prints = append(prints, tea.Println(m.paint(g)))
	}
	if closed {
		return tea.Sequence(append(prints, tea.Quit)...)
	}
	if len(prints) == 0 {
		return m.tick()
	}
	// The next frame after these lines: its own lines cannot come
	// between them.
	return tea.Sequence(append(prints, m.tick())...)
}

func (m *model) key(k string) {
	switch {
	case m.cancelled:
		return
	case k == "q" || k == "ctrl+c":
		if m.confirming {
			m.cancel()
		} else {
			m.confirming = true
		}
	case m.confirming && (k == "y" || k == "Y" || k == "enter"):
		m.cancel()
	case m.confirming && (k == "n" || k == "N" || k == "esc"):
		m.confirming = false
	case k == "?":
		m.help = !m.help
	default:
		return
	}
	m.dirty = true
}

func (m *model) cancel() {
	m.confirming, m.cancelled = false, true
	m.opts.Cancel()
}

func (m *model) pollDisks(now time.Time) {
	if m.opts.Disks == nil || (!m.diskTime.IsZero() && now.Sub(m.diskTime) < m.opts.DiskEvery) {
		return
	}
	m.disks, m.diskTime = m.opts.Disks(), now
	m.dirty = true
}

func (m *model) rebuild() {
	if !m.dirty {
		return
	}
	m.view = m.paint(m.render())
	m.frames++
	m.shown = m.st.Elapsed().Truncate(time.Second)
	m.dirty = false
}

func (m *model) View() tea.View { return tea.NewView(m.view) }

// paint turns the styles' colours into the ones the terminal shows (none
// at all under NoTTY). bubbletea converts the live area itself, but writes
// the lines printed above it as they are: both go through here, so the
// terminal never gets a colour it cannot show and tests see plain text.
func (m *model) paint(s string) string {
	var b strings.Builder
	w := colorprofile.Writer{Forward: &b, Profile: m.opts.Profile}
	_, _ = w.WriteString(s) // a strings.Builder never fails
	return b.String()
}

// finishedLine is the permanent text printed above the live area when a
// job ends: one line for a job done, the whole failure for a job failed
// (wrapped to the terminal's width, its log on a line of its own).
func (m *model) finishedLine(e event.Event) string {
	j, ok := m.st.Job(e.Job)
	if !ok {
		return ""
	}
	w := max(m.width, 40)
	name := jobName(j)
	if j.Table != "" {
		name = j.Kind + " " + j.Table
	}
	switch e.Kind {
	case event.JobFinished:
		line := m.sty.ok.Render("✓") + " " + cut(name, 48)
		if again := doneAgainText(j, j.Attempt); j.Failures > 0 {
			line += m.sty.ok.Render(again)
		} else {
			line += again
		}
		return cutLine(line+m.sty.dim.Render(finishedDetail(j)), w)
	case event.JobFailed:
		f := Failure{Job: j.ID, Kind: j.Kind, Table: j.Table, Attempt: j.Attempt, Err: e.Err, Log: cmp.Or(e.Log, j.Log), Retrying: e.Retrying}
		return strings.Join(m.failureLines(f, w, 0), "\n")
	case event.JobCancelled:
		return m.sty.warn.Render("■") + " " + cut(name, 48) + m.sty.dim.Render(" stopped")
	}
	return ""
}
