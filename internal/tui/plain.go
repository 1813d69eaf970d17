package tui

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/units"
)

// Plain prints a run for logs, pipes and `--no-tui`: one line per state
// change of a job or the run, and a summary line every so often. Nothing
// redraws, so the output reads the same in a file, in CI and over ssh.
type Plain struct {
	mu    sync.Mutex
	w     io.Writer
	s     *State
	every time.Duration
	now   func() time.Time

	ticker *time.Ticker
	stop   chan struct{}
	done   chan struct{}
}

var _ event.Sink = (*Plain)(nil)

// NewPlain prints to w, with a summary line every `every` (none when 0)
// from the start of the run to its end. Call Close when done.
func NewPlain(w io.Writer, every time.Duration) *Plain {
	return &Plain{w: w, s: NewState(), every: every, now: time.Now}
}

// Emit prints the lines e deserves.
func (p *Plain) Emit(e event.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.s.Apply(e)
	if line := p.line(e); line != "" {
		fmt.Fprintf(p.w, "%s %s\n", stamp(e.Time), oneLine(line))
	}
	switch e.Kind {
	case event.RunStarted:
		p.startTicker()
	case event.RunFinished:
		p.stopTicker()
	}
}

// Close stops the summary line. It is safe to call more than once.
func (p *Plain) Close() error {
	p.mu.Lock()
	done := p.stopTickerLocked()
	p.mu.Unlock()
	if done != nil {
		<-done
	}
	return nil
}

func (p *Plain) startTicker() {
	if p.every <= 0 || p.ticker != nil {
		return
	}
	p.ticker = time.NewTicker(p.every)
	p.stop, p.done = make(chan struct{}), make(chan struct{})
	go func(c <-chan time.Time, stop, done chan struct{}) {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-c:
				p.Summary()
			}
		}
	}(p.ticker.C, p.stop, p.done)
}

// stopTicker is called with the lock held from Emit: it must not wait for
// the goroutine, which may be waiting for the lock.
func (p *Plain) stopTicker() { p.stopTickerLocked() }

func (p *Plain) stopTickerLocked() chan struct{} {
	if p.ticker == nil {
		return nil
	}
	p.ticker.Stop()
	close(p.stop)
	done := p.done
	p.ticker, p.stop = nil, nil
	return done
}

// Summary prints the summary line now.
func (p *Plain) Summary() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.s.Finished {
		return
	}
	p.s.Advance(p.now())
	fmt.Fprintf(p.w, "%s %s\n", stamp(p.s.Now), SummaryLine(p.s))
}

// SummaryLine is the one-line picture: "[ 48%] dump+load  elapsed 12m04s
// ETA 8m10s  dump 120/120  load 60/120  idxbuild 0%  jobs 4 running, 60
// queued, 1 failed (1 table); 122 waiting for area Small64_Data (1 load
// per area; --loads-per-area)".
func SummaryLine(s *State) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%3d%%] %s  elapsed %s", percent(s.Overall()), s.CurrentPhase(), formatDuration(s.Elapsed()))
	if s.Invocation > 1 {
		fmt.Fprintf(&b, "  outage %s", formatDuration(s.Outage()))
	}
	fmt.Fprintf(&b, "  %s ", timeText(s))
	for _, p := range s.Progress() {
		if p.Tables > 0 {
			fmt.Fprintf(&b, " %s %s/%s", p.Kind, units.Thousands(int64(p.TablesDone)), units.Thousands(int64(p.Tables)))
		} else {
			fmt.Fprintf(&b, " %s %.0f%%", p.Kind, p.Fraction()*100)
		}
	}
	if r := s.Throughput(); r > 0 {
		fmt.Fprintf(&b, "  %s", units.FormatRate(r))
	}
	c := s.Counts()
	fmt.Fprintf(&b, "  jobs %s running, %s queued, %s done", units.Thousands(int64(c.Running)), units.Thousands(int64(c.Queued)), units.Thousands(int64(c.Done)))
	if c.Stalled > 0 {
		fmt.Fprintf(&b, ", %d stalled", c.Stalled)
	}
	if c.Recovered > 0 {
		fmt.Fprintf(&b, ", %d recovered", c.Recovered)
	}
	if c.Failed > 0 {
		fmt.Fprintf(&b, ", %d failed (%s)", c.Failed, plural(c.FailedTables, "table"))
	}
	if ws := s.Waiting(); len(ws) > 0 {
		fmt.Fprintf(&b, "; %s", ws[0])
	}
	return b.String()
}

// line is the state-change line for e, or "" for events that only move
// numbers (queued, progress).
func (p *Plain) line(e event.Event) string {
	j, _ := p.s.Job(e.Job)
	name := strings.TrimSpace(e.JobKind + " " + e.Table)
	if e.Table == "" {
		name = e.Job
	}
	attempt := func() string {
		if e.Attempt > 1 || (e.Kind == event.JobFailed && e.Attempt > 0) {
			return fmt.Sprintf(" (attempt %d)", e.Attempt)
		}
		return ""
	}
	switch e.Kind {
	case event.RunStarted:
		s := "run started"
		switch {
		case e.InPlace:
			// The warning before it says why; the phases go on (State.applyPhase).
			s = fmt.Sprintf("run resumed in place (invocation %d; the outage began at %s)", e.Attempt, stamp(e.Since))
		case e.Attempt > 1:
			s = fmt.Sprintf("run resumed (invocation %d; the outage began at %s)", e.Attempt, stamp(e.Since))
		}
		if e.Message != "" && e.Message != "started" {
			s += ": " + e.Message
		}
		if e.TotalBytes > 0 {
			s += fmt.Sprintf(" (%s of table data)", units.FormatIEC(e.TotalBytes))
		}
		if est := e.Estimate; est != nil {
			// A prediction, not a ticking clock: written as oedl estimate
			// writes it, tenths under 10 s, so that a short window does not
			// read "estimated 0s (P50–P90 1s–1s)".
			s += "; estimated " + units.FormatDuration(est.Window)
			if e.Attempt > 1 {
				s += " for the work left" // run.openingEstimate
			}
			if est.P90 > est.P50 {
				s += " (P50–P90 " + units.FormatDuration(est.P50) + "–" + units.FormatDuration(est.P90) + ")"
			}
			if est.Priors {
				// The queue was sized from the same priors: not the one
				// oedl estimate --calibration priced.
				s += " " + event.PriorsOnly
			}
		}
		return s
	case event.RunFinished:
		switch e.Status {
		case event.StatusInterrupted:
			// The CLI's last line says the run was interrupted; this one
			// says what stopped.
			c := p.s.Counts()
			return fmt.Sprintf("run stopped after %s: %s stopped, %s not started", formatDuration(p.s.Elapsed()),
				plural(c.Cancelled, "running job"), plural(c.Queued, "job"))
		case event.StatusFailed:
			return fmt.Sprintf("run FAILED after %s: %s", formatDuration(p.s.Elapsed()), cmp.Or(e.Message, e.Err))
		}
		if e.Err != "" {
			return fmt.Sprintf("run FAILED after %s: %s", formatDuration(p.s.Elapsed()), e.Err)
		}
		s := "run finished in " + formatDuration(p.s.Elapsed())
		if v := e.Verify; v != nil && v.OK {
			s += fmt.Sprintf(": verified, %s tables, %s records, sha256 %s = %s", units.Thousands(int64(v.Tables)),
				units.Thousands(v.RecordsAfter), short(v.ChecksumBefore), short(v.ChecksumAfter))
		}
		return s
	case event.Phase:
		if p.s.phaseAgain {
			return "" // a resume in place going through a phase it printed (State.applyPhase)
		}
		return "phase " + e.Phase
	case event.Warning:
		return "warning: " + e.Message
	case event.JobStarted:
		s := "start   " + name
		if e.Area != "" {
			s += " (area " + e.Area + ")"
		}
		return s + attempt()
	case event.JobFinished:
		return "done    " + name + finishedDetail(j) + doneAgainText(j, e.Attempt)
	case event.JobFailed:
		s := "FAILED  " + name + attempt()
		if e.Retrying {
			s = "failed  " + name + attempt() + ", will retry"
		}
		if e.Err != "" {
			s += ": " + e.Err
		}
		if e.Log != "" {
			s += "; log: " + e.Log
		}
		return s
	case event.JobRetry:
		s := "retry   " + name
		if e.Attempt > 0 {
			s += fmt.Sprintf(": attempt %d", e.Attempt)
		}
		if e.Message != "" && !strings.HasPrefix(e.Message, "attempt ") {
			s += ", " + e.Message
		} else if e.Message != "" {
			s = "retry   " + name + ": " + e.Message
		}
		return s
	case event.JobCancelled:
		return "stopped " + name
	case event.JobSkipped:
		if e.Message != "" { // why, when it is not a resume's: a target prepared before the window
			return "skip    " + name + " (" + e.Message + ")"
		}
		return "skip    " + name + " (done by an earlier run)"
	}
	return ""
}

// short is the first 12 hex digits of a checksum, as verify prints it.
func short(sum string) string { return sum[:min(12, len(sum))] }

// finishedDetail is " 12,345 records, 4.2 MiB in 3s (1.4 MiB/s)".
func finishedDetail(j Job) string {
	var parts []string
	if j.Records > 0 {
		parts = append(parts, units.Thousands(j.Records)+" records")
	}
	if j.Bytes > 0 {
		parts = append(parts, units.FormatIEC(j.Bytes))
	}
	s := ""
	if len(parts) > 0 {
		s = " " + strings.Join(parts, ", ")
	}
	s += " in " + units.FormatDuration(j.Elapsed)
	if j.Bytes > 0 && j.Elapsed >= time.Second {
		s += " (" + units.FormatRate(float64(j.Bytes)/j.Elapsed.Seconds()) + ")"
	}
	return s
}

func stamp(t time.Time) string { return t.Local().Format("15:04:05") }
