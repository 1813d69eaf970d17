package tui

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/oedl/oedl/internal/event"
)

// Disk is free space where the run writes, shown in the header.
type Disk struct {
	Label string // "dumps", "target"
	Free  int64  // bytes; < 0 when unknown
}

// Options configure the live screen.
type Options struct {
	Out io.Writer // the terminal (stderr)
	// In is the keyboard: stdin is used only when it is a terminal; nil
	// for none. Other readers are read as keys (tests).
	In io.Reader
	// Source and Target name the databases in the header.
	Source, Target string
	// Cancel stops the run the same way SIGINT does. The screen calls it
	// once, after the user confirmed q or Ctrl-C.
	Cancel func()
	// Disks reports free space; called at most every DiskEvery. May be nil.
	Disks     func() []Disk
	DiskEvery time.Duration // default 2s
	// Now is the clock (tests inject one). Default time.Now.
	Now func() time.Time
	// Interval between frames: the screen redraws at most once per
	// interval. Default 100ms (10 frames a second).
	Interval time.Duration
	// Profile is the colours the terminal shows; default (Unknown) is
	// detected from Out and the environment (TERM, NO_COLOR ...), which
	// asks the terminal nothing. Tests set colorprofile.NoTTY: plain text.
	Profile colorprofile.Profile
}

func (o *Options) defaults() {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Interval <= 0 {
		o.Interval = 100 * time.Millisecond
	}
	if o.DiskEvery <= 0 {
		o.DiskEvery = 2 * time.Second
	}
	if o.Cancel == nil {
		o.Cancel = func() {}
	}
	if o.Profile == colorprofile.Unknown {
		o.Profile = colorprofile.Detect(o.Out, os.Environ())
	}
}

// Program is the live screen of a run. It is an event.Sink: wire it into
// the run's event.Multi, start Run (it blocks), and call Close when the run
// has ended (also after a cancel); Run then draws the final picture and
// returns.
//
//	ui := tui.New(tui.Options{Out: os.Stderr, In: os.Stdin, Cancel: cancel, ...})
//	go func() { err = runTheRun(ctx, event.Multi{journal, ui}); ui.Close() }()
//	uiErr := ui.Run(ctx)
type Program struct {
	opts  Options
	q     *queue
	once  sync.Once
	close chan struct{}
}

var _ event.Sink = (*Program)(nil)

// New prepares the screen; nothing is drawn before Run.
func New(o Options) *Program {
	o.defaults()
	return &Program{opts: o, q: newQueue(), close: make(chan struct{})}
}

// Emit queues e for the next frame. It never blocks on the screen.
func (p *Program) Emit(e event.Event) { p.q.push(e) }

// Close tells the screen the run is over: it shows the last events and Run
// returns. Safe to call more than once and before Run.
func (p *Program) Close() {
	p.once.Do(func() {
		p.q.close()
		close(p.close)
	})
}

// Run draws until Close. When ctx ends (SIGINT from outside, or the run
// cancelled) the screen says so and keeps showing the jobs stop until
// Close, so the DBA sees the run end cleanly rather than a vanished screen.
func (p *Program) Run(ctx context.Context) error {
	m := newModel(p.opts, p.q)
	opts := []tea.ProgramOption{
		tea.WithOutput(p.opts.Out),
		tea.WithFPS(int(time.Second / p.opts.Interval)),
		// Signals are the caller's (signal.NotifyContext in cli.Main):
		// they reach us as ctx ending, and Ctrl-C in raw mode is a key.
		tea.WithoutSignalHandler(),
		tea.WithColorProfile(p.opts.Profile),
	}
	// Input is always given: bubbletea v2 opens /dev/tty when it gets
	// none, and nil is what turns the keyboard (and every terminal query,
	// whose answer would come in on it) off.
	switch in := p.opts.In.(type) {
	case nil:
		opts = append(opts, tea.WithInput(nil))
	case *os.File:
		if f, ok := keyboard(in); ok {
			opts = append(opts, tea.WithInput(f))
		} else {
			opts = append(opts, tea.WithInput(nil))
		}
	default:
		opts = append(opts, tea.WithInput(in)) // tests type keys through a reader
	}
	prog := tea.NewProgram(m, opts...)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		select {
		case <-ctx.Done():
			prog.Send(interruptedMsg{})
		case <-stop:
		}
	}()
	_, err := prog.Run()
	if errors.Is(err, tea.ErrProgramKilled) {
		return nil
	}
	return err
}
