package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"

	"github.com/oedl/oedl/internal/units"
)

type styles struct {
	title, dim, ok, bad, warn, head, key lipgloss.Style
}

func newStyles(r *lipgloss.Renderer) styles {
	return styles{
		title: r.NewStyle().Bold(true),
		dim:   r.NewStyle().Foreground(lipgloss.Color("245")),
		ok:    r.NewStyle().Foreground(lipgloss.Color("2")),
		bad:   r.NewStyle().Foreground(lipgloss.Color("1")).Bold(true),
		warn:  r.NewStyle().Foreground(lipgloss.Color("3")),
		head:  r.NewStyle().Foreground(lipgloss.Color("245")).Underline(true),
		key:   r.NewStyle().Bold(true),
	}
}

// render builds the live area for the current width and height.
func (m *model) render() string {
	w := max(m.width, 40)
	var lines []string
	add := func(s string) { lines = append(lines, s) }
	s := m.st

	// Header: what, where, when.
	title := "oedl run"
	if m.opts.Source != "" || m.opts.Target != "" {
		title += "  " + m.opts.Source + " → " + m.opts.Target
	}
	right := "phase " + s.CurrentPhase() + "  elapsed " + formatDuration(s.Elapsed())
	lines = append(lines, spread(m.sty.title.Render(cut(title, max(w-lipgloss.Width(right)-2, 12))), right, w)...)
	eta := s.ETA()
	etaStr := etaText(eta)
	if s.Finished {
		etaStr = "finished in " + formatDuration(s.Elapsed())
		if s.Err != "" {
			etaStr = m.sty.bad.Render("failed after " + formatDuration(s.Elapsed()))
		}
	}
	if eta.BoundBy != "" {
		etaStr += "  waiting on " + eta.BoundBy
	}
	switch eta.Trend {
	case TrendRising:
		etaStr = m.sty.warn.Render(etaStr)
	case TrendFalling:
		etaStr = m.sty.ok.Render(etaStr)
	}
	lines = append(lines, spread(etaStr, m.diskText(), w)...)
	add("")

	// Bars.
	barW := max(10, min(50, w-60))
	m.bar.Width = barW
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

	c := s.Counts()
	queued := "queued"
	if s.Finished {
		queued = "not run" // blocked by a failure, or cancelled
	}
	counts := fmt.Sprintf("jobs  %d done · %d running · %d %s", c.Done, c.Running, c.Queued, queued)
	if c.Skipped > 0 {
		counts += fmt.Sprintf(" · %d skipped", c.Skipped)
	}
	failed := fmt.Sprintf(" · %d failed", c.Failed)
	if c.Failed > 0 {
		failed = m.sty.bad.Render(failed)
	}
	counts += failed

	// The bottom block has a fixed size; the running table gets the rest.
	bottom := m.bottom(w)
	// One line less than the terminal: a live area as tall as the screen
	// scrolls on every frame.
	room := m.high - 1 - len(lines) - len(bottom) - 1 // the counts line
	lines = append(lines, m.runningTable(w, room)...)
	add(counts)
	lines = append(lines, bottom...)
	return strings.Join(lines, "\n")
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
	{"RATE", 11, true, 2, func(_ *model, j Job) string { return units.FormatRate(j.Rate) }},
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
			v := cut(cell(c), cw)
			if c.right {
				fmt.Fprintf(&b, "%*s", cw, v)
			} else {
				fmt.Fprintf(&b, "%-*s", cw, v)
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

// bottom is the failures, the warning and the key help.
func (m *model) bottom(w int) []string {
	var out []string
	fs := m.st.Failures()
	if len(fs) > 3 {
		fs = fs[len(fs)-3:]
	}
	for _, f := range fs {
		s := m.sty.bad.Render("✗ ") + f.Job
		if f.Attempt > 0 {
			s += fmt.Sprintf(" (attempt %d)", f.Attempt)
		}
		out = append(out, cutLine(s+": "+f.Err, w))
		if f.Log != "" {
			out = append(out, m.sty.dim.Render(cutLine("  log: "+f.Log, w)))
		}
	}
	if ws := m.st.Warnings(); len(ws) > 0 {
		out = append(out, m.sty.warn.Render(cutLine("! "+ws[len(ws)-1], w)))
	}
	switch {
	case m.over:
		out = append(out, m.sty.title.Render("run over"))
	case m.cancelled || m.interrupted:
		out = append(out, m.sty.warn.Render("cancelling: waiting for the running jobs to stop (the journal stays consistent)"))
	case m.confirming:
		out = append(out, m.sty.warn.Render("Cancel the run? Running jobs are stopped; resume later with --resume.  ")+
			m.sty.key.Render("y")+" yes  "+m.sty.key.Render("n")+" no")
	default:
		out = append(out, m.sty.dim.Render("q cancel the run"))
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
