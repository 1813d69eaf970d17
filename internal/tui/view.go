package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/units"
)

type styles struct {
	title, dim, ok, bad, warn, head, key lipgloss.Style
}

func newStyles() styles {
	return styles{
		title: lipgloss.NewStyle().Bold(true),
		dim:   lipgloss.NewStyle().Foreground(lipgloss.Color("245")),
		ok:    lipgloss.NewStyle().Foreground(lipgloss.Color("2")),
		bad:   lipgloss.NewStyle().Foreground(lipgloss.Color("1")).Bold(true),
		warn:  lipgloss.NewStyle().Foreground(lipgloss.Color("3")),
		head:  lipgloss.NewStyle().Foreground(lipgloss.Color("245")).Underline(true),
		key:   lipgloss.NewStyle().Bold(true),
	}
}

// render builds the live area for the current width and height.
func (m *model) render() string {
	w := max(m.width, 40)
	var lines []string
	add := func(s string) { lines = append(lines, s) }
	s := m.st
	eta := s.ETA()
	head, extra := m.header(w, eta)
	for i, wt := range s.Waiting() {
		if i == 2 {
			break // the two that hold most back
		}
		extra = append(extra, m.sty.dim.Render(cut("⧗ "+wt.String(), w)))
	}
	// The bottom block has a fixed size; the running table gets the rest.
	bottom := m.bottom(w)
	// One line less than the terminal: a live area as tall as the screen
	// scrolls on every frame. The header's extra lines (phases,
	// throughput, critical table, why work waits) go first when the
	// terminal is short, then the running table shrinks.
	fixed := len(head) + 1 + 1 + len(s.Progress()) + 1 + 1 + len(bottom) // blanks, bars, counts
	if m.high-1-fixed-len(extra) < 3 {
		extra = nil
	}
	lines = append(lines, head...)
	lines = append(lines, extra...)
	add("")

	// Bars.
	barW := max(10, min(50, w-60))
	m.bar.SetWidth(barW)
	bar := func(name string, f float64, detail string) {
		line := fmt.Sprintf("%-9s %s %3d%%", name, m.bar.ViewAs(f), percent(f))
		if detail != "" {
			line += "  " + m.sty.dim.Render(cut(detail, w-barW-17))
		}
		add(line)
	}
	bar("overall", s.Overall(), "")
	for _, p := range s.Progress() {
		bar(p.Kind, p.Fraction(), progressDetail(p, s))
	}
	add("")
	room := m.high - 1 - len(lines) - len(bottom) - 1 // the counts line
	lines = append(lines, m.runningTable(w, room)...)
	add(cutLine(m.countsLine(), w))
	lines = append(lines, bottom...)
	return strings.Join(lines, "\n")
}

// header is what a DBA reads first: the databases, the clocks (this
// invocation's and the outage's, which counts across resumes), the ETA or
// how the run ended, and the free space; then, when the terminal has the
// room (extra), the phases with their durations, the throughput now and
// the critical table.
func (m *model) header(w int, eta ETA) (out, extra []string) {
	s := m.st
	title := "oedl run"
	if m.opts.Source != "" || m.opts.Target != "" {
		title += "  " + m.opts.Source + " → " + m.opts.Target
	}
	right := "phase " + s.CurrentPhase() + "  elapsed " + formatDuration(s.Elapsed())
	// A resume in place keeps the clock (State.Apply): its outage is its
	// elapsed time, said once.
	if s.Invocation-s.inPlace > 1 || s.Outage()-s.Elapsed() >= time.Second {
		right += "  outage " + formatDuration(s.Outage())
	}
	out = append(out, spread(m.sty.title.Render(cut(title, max(w-lipgloss.Width(right)-2, 12))), right, w)...)

	var etaStr string
	switch {
	case s.Finished && s.Status == event.StatusInterrupted:
		etaStr = m.sty.warn.Render("cancelled after " + formatDuration(s.Elapsed()) + ": oedl run --resume continues")
	case s.Finished && s.Err != "":
		etaStr = m.sty.bad.Render("failed after " + formatDuration(s.Elapsed()))
	case s.Finished:
		etaStr = m.sty.ok.Render("finished in " + formatDuration(s.Elapsed()))
		if v := s.Verify; v != nil && v.OK {
			etaStr += m.sty.ok.Render(": verified, " + units.Thousands(int64(v.Tables)) + " tables")
		}
	default:
		etaStr = etaText(eta)
		if b := boundText(eta); b != "" {
			etaStr += "  " + b
		}
		switch eta.Trend {
		case TrendRising:
			etaStr = m.sty.warn.Render(etaStr)
		case TrendFalling:
			etaStr = m.sty.ok.Render(etaStr)
		}
	}
	out = append(out, spread(etaStr, m.diskText(), w)...)

	strip := m.phaseStrip()
	r := s.Throughput()
	switch {
	case r > 0 && !s.Finished && strip == "":
		extra = append(extra, "moving "+units.FormatRate(r)+" now")
	case r > 0 && !s.Finished:
		extra = append(extra, spread(strip, units.FormatRate(r)+" now", w)...)
	case strip != "":
		extra = append(extra, cut(strip, w))
	}
	if b := beforeText(s, eta); b != "" && !s.Finished {
		extra = append(extra, m.sty.dim.Render(cut(b, w)))
	}
	if c, ok := s.CriticalTable(eta); ok && !s.Finished {
		line := "critical " + c.Table
		if c.Kind != "" {
			line += fmt.Sprintf("  %s %d%%", c.Kind, percent(c.Fraction()))
			if c.TotalBytes > 0 {
				line += "  " + units.FormatIEC(c.Bytes) + " of " + units.FormatIEC(c.TotalBytes)
			}
		}
		extra = append(extra, cut(line, w))
	}
	return out, extra
}

// phaseStrip is "preflight 0s › dump+load 3m12s › idxbuild 45s…": the
// phases entered, each with its duration, the running one last.
func (m *model) phaseStrip() string {
	ps := m.st.Phases()
	parts := make([]string, 0, len(ps))
	for i, p := range ps {
		end := p.End
		running := end.IsZero()
		if running {
			end = m.st.Now
		}
		part := p.Name + " " + formatDuration(end.Sub(p.Start)) + restartedText(p)
		if running && i == len(ps)-1 && !m.st.Finished {
			part = m.sty.title.Render(part + "…")
		} else {
			part = m.sty.dim.Render(part)
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, m.sty.dim.Render(" › "))
}

// restartedText marks a phase the run resumed in place in: " (restarted)",
// " (restarted 2×)".
func restartedText(p PhaseSpan) string {
	switch {
	case p.Restarts == 1:
		return " (restarted)"
	case p.Restarts > 1:
		return fmt.Sprintf(" (restarted %d×)", p.Restarts)
	}
	return ""
}

// countsLine is "jobs 120 done · 4 running · 60 queued · 1 failed (1
// table) · 2 recovered": a job is a table's dump or load over all its
// attempts, so a load tried three times is one.
func (m *model) countsLine() string {
	s := m.st
	c := s.Counts()
	queued := "queued"
	if s.Finished {
		queued = "not run" // blocked by a failure, or cancelled
	}
	line := fmt.Sprintf("jobs  %s done · %s running · %s %s", units.Thousands(int64(c.Done)), units.Thousands(int64(c.Running)),
		units.Thousands(int64(c.Queued)), queued)
	if c.Skipped > 0 {
		line += fmt.Sprintf(" · %s skipped", units.Thousands(int64(c.Skipped)))
	}
	if c.Stalled > 0 {
		line += m.sty.warn.Render(fmt.Sprintf(" · %d stalled", c.Stalled))
	}
	if c.Recovered > 0 {
		line += fmt.Sprintf(" · %d recovered", c.Recovered)
	}
	if c.Cancelled > 0 {
		line += m.sty.warn.Render(fmt.Sprintf(" · %d stopped", c.Cancelled))
	}
	if c.Failed > 0 {
		failed := fmt.Sprintf(" · %d failed", c.Failed)
		if c.FailedTables > 0 {
			failed += fmt.Sprintf(" (%s)", plural(c.FailedTables, "table"))
		}
		line += m.sty.bad.Render(failed)
	}
	return line
}

// column of the running-jobs table. Columns are dropped from the right
// end of the priority list when the terminal is narrow; TABLE takes what
// is left.
type column struct {
	head  string
	width int
	right bool
	prio  int // lower stays longer
	cell  func(m *model, j Job) string
}

var runningColumns = []column{
	{"KIND", 14, false, 0, func(_ *model, j Job) string { return j.Kind }},
	{"TABLE", 0, false, 0, func(_ *model, j Job) string { return jobName(j) }},
	{"AREA", 12, false, 4, func(_ *model, j Job) string { return j.Area }},
	{"ELAPSED", 7, true, 1, func(m *model, j Job) string { return formatDuration(m.st.Now.Sub(j.Started)) }},
	{"RECORDS", 12, true, 3, func(_ *model, j Job) string { return units.Thousands(j.Records) }},
	{"BYTES", 15, true, 1, func(_ *model, j Job) string {
		by := units.FormatIEC(j.Bytes)
		if j.TotalBytes > 0 && j.Bytes > 0 {
			by = fmt.Sprintf("%s %3d%%", by, percent(float64(j.Bytes)/float64(j.TotalBytes)))
		}
		return by
	}},
	{"RATE", 13, true, 2, func(m *model, j Job) string {
		if j.Stalled > 0 {
			return m.sty.warn.Render("stalled " + formatDuration(j.Stalled))
		}
		return units.FormatRate(j.Rate)
	}},
}

// layoutColumns picks the columns that fit in w with a TABLE column of at
// least 12 cells, and sizes TABLE.
func layoutColumns(w int) ([]column, int) {
	const minName, maxName = 12, 32
	for drop := 4; drop >= 0; drop-- {
		var cols []column
		used := 0
		for _, c := range runningColumns {
			if c.prio > drop {
				continue
			}
			cols = append(cols, c)
			used += c.width + 1
		}
		if name := w - used; name >= minName || drop == 0 {
			return cols, max(minName, min(maxName, name))
		}
	}
	return nil, 0
}

// runningTable lists the running jobs, longest running first, in at most
// room lines (its heading and an "and N more" line included).
func (m *model) runningTable(w, room int) []string {
	jobs := m.st.Running()
	if len(jobs) == 0 {
		return nil
	}
	cols, nameW := layoutColumns(w)
	row := func(cell func(c column) string) string {
		var b strings.Builder
		for i, c := range cols {
			cw := c.width
			if c.head == "TABLE" {
				cw = nameW
			}
			if i > 0 {
				b.WriteByte(' ')
			}
			// Padded by cells on screen, not by runes as fmt would: a
			// styled cell (RATE's "stalled") carries escape codes.
			v := cut(cell(c), cw)
			pad := strings.Repeat(" ", max(cw-lipgloss.Width(v), 0))
			if c.right {
				b.WriteString(pad + v)
			} else {
				b.WriteString(v + pad)
			}
		}
		return strings.TrimRight(b.String(), " ")
	}
	if room < 2 {
		if room == 1 {
			return []string{m.sty.dim.Render(fmt.Sprintf("%d running", len(jobs)))}
		}
		return nil
	}
	out := []string{m.sty.head.Render(row(func(c column) string { return c.head }))}
	show := min(len(jobs), room-1)
	if show < len(jobs) {
		show-- // leave the line for "and N more"
	}
	for _, j := range jobs[:show] {
		out = append(out, row(func(c column) string { return c.cell(m, j) }))
	}
	if n := len(jobs) - show; n > 0 {
		out = append(out, m.sty.dim.Render(fmt.Sprintf("… and %d more running", n)))
	}
	return out
}

// bottom is the failures, the warning and the keys. Its lines are
// wrapped to the terminal's width (a failure's text on two lines at most,
// its log path on a line of its own, never split), so nothing stale stays
// behind when it changes.
func (m *model) bottom(w int) []string {
	var out []string
	fs := lastPerJob(m.st.Failures())
	if len(fs) > 3 {
		fs = fs[len(fs)-3:]
	}
	for _, f := range fs {
		out = append(out, m.failureLines(f, w, 2)...)
	}
	if ws := m.st.Warnings(); len(ws) > 0 {
		out = append(out, m.sty.warn.Render(cutLine("! "+ws[len(ws)-1], w)))
	}
	switch {
	case m.over && m.st.Status == event.StatusInterrupted:
		out = append(out, m.sty.warn.Render(cutLine("run cancelled; the journal is consistent", w)))
	case m.over:
		out = append(out, m.sty.title.Render("run over"))
	case m.cancelled || m.interrupted:
		out = append(out, m.sty.warn.Render(cutLine("cancelling: waiting for the running jobs to stop (the journal stays consistent)", w)))
	case m.confirming:
		ask := "Cancel the run? Running jobs are stopped; resume later with --resume.  "
		if lipgloss.Width(ask)+12 > w {
			ask = "Cancel the run? (--resume continues)  "
		}
		out = append(out, m.sty.warn.Render(ask)+m.sty.key.Render("y")+" yes  "+m.sty.key.Render("n")+" no")
	case m.help:
		for _, k := range keyHelp {
			out = append(out, cutLine(m.sty.key.Render(fmt.Sprintf("  %-12s", k[0]))+k[1], w))
		}
	default:
		out = append(out, m.sty.dim.Render("q cancel the run · ? keys"))
	}
	return out
}

// lastPerJob keeps the latest failed attempt of each job, in order: the
// live area tells where each job is, the lines above it every attempt.
func lastPerJob(fs []Failure) []Failure {
	last := map[string]int{}
	for i, f := range fs {
		last[f.Job] = i
	}
	out := make([]Failure, 0, len(last))
	for i, f := range fs {
		if last[f.Job] == i {
			out = append(out, f)
		}
	}
	return out
}

// keyHelp is what ? shows.
var keyHelp = [][2]string{
	{"q, Ctrl-C", "cancel the run: asks first; the running jobs stop, oedl run --resume continues"},
	{"y, Enter", "yes, cancel (after q)"},
	{"n, Esc", "no, keep running (after q)"},
	{"?", "show or hide these keys"},
}

// failureLines tell one failed attempt in at most limit lines of text
// (0: all of it) and its log: "✗ load PUB.pt_mstr, attempt 3: proutil
// load was killed by signal 9 (SIGKILL) ...". A failure that a later
// attempt recovered is marked so, not as a failure.
func (m *model) failureLines(f Failure, w, limit int) []string {
	name := strings.TrimSpace(f.Kind + " " + f.Table)
	if f.Table == "" {
		name = f.Job
	}
	if f.Attempt > 0 {
		name += fmt.Sprintf(", attempt %d", f.Attempt)
	}
	var mark, head string
	switch {
	case f.Recovered:
		mark, head = m.sty.ok.Render("↻"), name+fmt.Sprintf(" (recovered on attempt %d): ", f.RecoveredOn)
	case f.Retrying:
		mark, head = m.sty.warn.Render("↻"), name+" (will retry): "
	default:
		mark, head = m.sty.bad.Render("✗"), name+": "
	}
	text := wrap(head+f.Err, w-2, "", limit)
	out := make([]string, 0, len(text)+1)
	for i, l := range text {
		if i == 0 {
			out = append(out, mark+" "+l)
		} else {
			out = append(out, "  "+l)
		}
	}
	if f.Log != "" && !f.Recovered {
		out = append(out, m.sty.dim.Render(pathLine("  log: ", f.Log, w)))
	}
	return out
}

func (m *model) diskText() string {
	var parts []string
	for _, d := range m.disks {
		if d.Free < 0 {
			parts = append(parts, d.Label+" ?")
			continue
		}
		parts = append(parts, d.Label+" "+units.FormatIEC(d.Free)+" free")
	}
	return strings.Join(parts, " · ")
}

// spread puts left and right on one line of width w, or on two lines
// (right aligned) when they do not fit.
func spread(left, right string, w int) []string {
	if right == "" {
		return []string{left}
	}
	gap := w - lipgloss.Width(left) - lipgloss.Width(right)
	if gap < 1 {
		pad := max(w-lipgloss.Width(right), 0)
		return []string{left, strings.Repeat(" ", pad) + cutLine(right, w)}
	}
	return []string{left + strings.Repeat(" ", gap) + right}
}

// cutLine shortens a plain line to w cells.
func cutLine(s string, w int) string {
	if lipgloss.Width(s) <= w {
		return s
	}
	return cut(s, w)
}
