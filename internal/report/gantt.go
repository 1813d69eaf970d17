package report

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/oedl/oedl/internal/units"
)

// Geometry of the chart, in SVG user units. The SVG scales to its container
// (viewBox), so these fix proportions, not pixels on screen.
const (
	svgWidth    = 1000.0
	labelWidth  = 250.0 // row labels on the left
	rightMargin = 20.0
	titleHeight = 28.0
	legendRow   = 18.0
	axisHeight  = 22.0
	rowHeight   = 18.0
	barHeight   = 12.0
	labelChars  = 38 // longer labels are cut with an ellipsis (full text in the tooltip)
)

// MaxGanttRows is how many rows a chart draws before it groups: beyond it,
// the critical, failed and longest jobs keep a row each and the rest share
// one row per Group ("load: 1,204 more jobs"), drawn as the union of their
// intervals. A manager reads 80 rows; nobody reads 3,000.
const MaxGanttRows = 80

// kindColours are fixed so the same kind has the same colour in the run
// report and in `oedl estimate --html`. Dump/load/idxbuild, which are most of
// the chart, get the strongest colours (Tableau 10, readable by most colour
// blind people).
var kindColours = map[string]string{
	"dump":           "#4e79a7",
	"load":           "#59a14f",
	"idxbuild":       "#f28e2b",
	"repair":         "#edc948",
	"verify":         "#76b7b2",
	"analyze-source": "#9c755f",
	"analyze-target": "#9c755f",
	"dump-df":        "#b07aa1",
	"dump-sequences": "#b07aa1",
	"load-sequences": "#b07aa1",
	"dump-security":  "#b07aa1",
	"load-security":  "#b07aa1",
	"create-target":  "#8cd17d",
	"serve":          "#bab0ac",
	"shutdown":       "#bab0ac",
	"preflight":      "#bab0ac",
	"post":           "#bab0ac",
}

var fallbackColours = []string{"#ff9da7", "#86bcb6", "#d4a6c8", "#a0cbe8", "#ffbe7d", "#f1ce63"}

// KindColour is the fill used for a kind of job.
func KindColour(kind string) string {
	if c, ok := kindColours[kind]; ok {
		return c
	}
	h := fnv.New32a()
	h.Write([]byte(kind))
	return fallbackColours[h.Sum32()%uint32(len(fallbackColours))]
}

// row is one line of the chart: one bar, or the merged intervals of many.
type row struct {
	label string
	kind  string
	bars  []Bar // the jobs drawn on the row
	spans []Bar // what is drawn: bars itself, or their merged intervals
	group bool
	first time.Duration
}

// GanttSVG draws bars as a self-contained SVG Gantt chart: one row per job
// in start order (grouped beyond MaxGanttRows), a time axis with round
// ticks, a colour per kind with a legend, the critical path outlined and
// failed jobs hatched in red. Every bar carries a tooltip. The output is
// deterministic for the same input, so it can be golden-tested and diffed.
//
// It is the one drawing shared by the run report and `oedl estimate --html`,
// so that predicted and actual runs look the same.
func GanttSVG(w io.Writer, title string, bars []Bar) error {
	return ganttSVG(w, title, bars, MaxGanttRows)
}

func ganttSVG(w io.Writer, title string, bars []Bar, maxRows int) error {
	for i, b := range bars {
		if b.End < b.Start || b.Start < 0 {
			return fmt.Errorf("gantt: bar %d (%s) ends before it starts (%v..%v)", i, b.Label, b.Start, b.End)
		}
	}
	rows := layoutRows(bars, maxRows)
	kinds := kindsInOrder(bars)
	failed := slices.ContainsFunc(bars, func(b Bar) bool { return b.Failed })

	var total time.Duration
	for _, b := range bars {
		total = max(total, b.End)
	}
	step := tickStep(total)
	axisEnd := total
	if axisEnd <= 0 {
		axisEnd = time.Second
	}
	chartW := svgWidth - labelWidth - rightMargin
	x := func(d time.Duration) float64 { return labelWidth + chartW*float64(d)/float64(axisEnd) }

	legendH := legendRow * float64(legendLines(kinds, failed))
	top := titleHeight + legendH + axisHeight
	height := top + rowHeight*float64(max(len(rows), 1)) + 10

	bw := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(bw, format, a...) }

	p(`<svg xmlns="http://www.w3.org/2000/svg" class="gantt" viewBox="0 0 %.0f %.0f" width="100%%" role="img" data-bars="%d" data-rows="%d" font-family="system-ui,-apple-system,'Segoe UI',Helvetica,Arial,sans-serif" font-size="11">`+"\n",
		svgWidth, height, len(bars), len(rows))
	p("<title>%s</title>\n", esc(title))
	p(`<defs><pattern id="gantt-failed" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#f4b6b6"/><rect width="3" height="6" fill="#d62728"/></pattern></defs>` + "\n")
	p(`<rect width="100%%" height="100%%" fill="#ffffff"/>` + "\n")
	p(`<text x="10" y="19" font-size="15" font-weight="600" fill="#222">%s</text>`+"\n", esc(title))
	p(`<text x="%.1f" y="19" text-anchor="end" fill="#555">%d jobs, %s</text>`+"\n", svgWidth-rightMargin, len(bars), units.FormatDuration(total))
	writeLegend(p, kinds, failed)

	// Axis: ticks and grid lines.
	axisY := titleHeight + legendH + axisHeight - 6
	p(`<g class="axis" fill="#555" stroke="none">` + "\n")
	for t := time.Duration(0); t <= axisEnd && t >= 0; t += step { // t < 0: overflow near the largest duration
		p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e3e3e3"/>`+"\n", x(t), axisY+2, x(t), height-10)
		anchor := "middle"
		if t == 0 {
			anchor = "start"
		}
		p(`<text x="%.1f" y="%.1f" text-anchor="%s">%s</text>`+"\n", x(t), axisY-2, anchor, formatTick(t))
	}
	// What the ticks measure, where the row labels are: times from the
	// start, not clock times (nu-trial8: a manager reading an estimate).
	p(`<text x="%.1f" y="%.1f" text-anchor="end">elapsed time</text>`+"\n", labelWidth-8, axisY-2)
	p("</g>\n")

	if len(rows) == 0 {
		p(`<text x="%.1f" y="%.1f" fill="#777">no jobs</text>`+"\n", labelWidth, top+13)
	}
	for i, r := range rows {
		y := top + rowHeight*float64(i)
		if i%2 == 1 {
			p(`<rect x="0" y="%.1f" width="%.0f" height="%.0f" fill="#f7f7f7"/>`+"\n", y, svgWidth, rowHeight)
		}
		weight := ""
		if r.group {
			weight = ` font-style="italic"`
		}
		p(`<text class="row-label" x="%.1f" y="%.1f" text-anchor="end" fill="#222"%s>%s</text>`+"\n",
			labelWidth-8, y+rowHeight-5, weight, esc(cut(r.label, labelChars)))
		for _, b := range r.spans {
			writeBar(p, r, b, x, y)
		}
	}
	p("</svg>\n")
	return bw.Flush()
}

func writeBar(p func(string, ...any), r row, b Bar, x func(time.Duration) float64, y float64) {
	x0, x1 := x(b.Start), x(b.End)
	wd := max(x1-x0, 1.0) // a one-second job on a six-hour chart is still visible
	fill := KindColour(b.Kind)
	class := "bar"
	stroke := ""
	switch {
	case b.Failed:
		fill = "url(#gantt-failed)"
		class += " failed"
		stroke = ` stroke="#d62728" stroke-width="1"`
	case b.Critical:
		class += " critical"
		stroke = ` stroke="#111" stroke-width="2"`
	}
	if r.group {
		class += " grouped"
	}
	var tip string
	if r.group {
		tip = fmt.Sprintf("%s: %s busy from %s to %s", r.label, plural(countIn(r.bars, b), "job"), units.FormatDuration(b.Start), units.FormatDuration(b.End))
	} else {
		tip = fmt.Sprintf("%s (%s): %s → %s, took %s", b.Label, b.Kind, units.FormatDuration(b.Start), units.FormatDuration(b.End), units.FormatDuration(b.Duration()))
		if b.Critical {
			tip += ", critical path"
		}
		if b.Failed {
			tip += ", FAILED"
		}
	}
	p(`<rect class="%s" data-kind="%s" x="%.1f" y="%.1f" width="%.1f" height="%.0f" rx="2" fill="%s"%s><title>%s</title></rect>`+"\n",
		class, esc(b.Kind), x0, y+(rowHeight-barHeight)/2, wd, barHeight, fill, stroke, esc(tip))
}

// layoutRows gives every bar a row when they fit; otherwise the critical,
// failed and longest bars keep a row each and the others are merged per
// Group.
func layoutRows(bars []Bar, maxRows int) []row {
	sorted := append([]Bar(nil), bars...)
	sort.SliceStable(sorted, func(a, b int) bool {
		if sorted[a].Start != sorted[b].Start {
			return sorted[a].Start < sorted[b].Start
		}
		return sorted[a].Label < sorted[b].Label
	})
	var rows []row
	if len(sorted) <= maxRows {
		for _, b := range sorted {
			rows = append(rows, row{label: b.Label, kind: b.Kind, bars: []Bar{b}, spans: []Bar{b}, first: b.Start})
		}
		return rows
	}

	// Rank by importance: failed, then longest (critical first among
	// equals). A short critical job that is grouped still shows its
	// outline inside the group's row.
	idx := make([]int, len(sorted))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		ba, bb := sorted[idx[a]], sorted[idx[b]]
		if ba.Failed != bb.Failed {
			return ba.Failed
		}
		if ba.Duration() != bb.Duration() {
			return ba.Duration() > bb.Duration()
		}
		return ba.Critical && !bb.Critical
	})
	groups := map[string]int{}
	for _, b := range sorted {
		groups[b.Group]++
	}
	budget := max(maxRows-len(groups), maxRows/2)
	keep := make([]bool, len(sorted))
	left := maps.Clone(groups)
	for _, i := range idx[:min(budget, len(idx))] {
		keep[i] = true
		left[sorted[i].Group]--
	}
	// A group left with one job gets that job's own row: same row count,
	// and "1 more job" says less than the job's name.
	for i, b := range sorted {
		if !keep[i] && left[b.Group] == 1 {
			keep[i] = true
		}
	}
	rest := map[string][]Bar{}
	for i, b := range sorted {
		if keep[i] {
			rows = append(rows, row{label: b.Label, kind: b.Kind, bars: []Bar{b}, spans: []Bar{b}, first: b.Start})
		} else {
			rest[b.Group] = append(rest[b.Group], b)
		}
	}
	for g, bs := range rest {
		label := fmt.Sprintf("%s: %s more jobs", g, units.Thousands(int64(len(bs))))
		if g == "" {
			label = fmt.Sprintf("%s more jobs", units.Thousands(int64(len(bs))))
		}
		rows = append(rows, row{label: label, kind: bs[0].Kind, bars: bs, spans: mergeIntervals(bs), group: true, first: bs[0].Start})
	}
	sort.SliceStable(rows, func(a, b int) bool {
		if rows[a].first != rows[b].first {
			return rows[a].first < rows[b].first
		}
		return rows[a].label < rows[b].label
	})
	return rows
}

// mergeIntervals returns the union of the bars' intervals (bars sorted by
// start), each carrying the kind of the first bar that opened it and
// Failed/Critical if any bar inside was.
func mergeIntervals(bs []Bar) []Bar {
	var out []Bar
	for _, b := range bs {
		if n := len(out); n > 0 && b.Start <= out[n-1].End {
			last := &out[n-1]
			last.End = max(last.End, b.End)
			last.Failed = last.Failed || b.Failed
			last.Critical = last.Critical || b.Critical
			continue
		}
		out = append(out, Bar{Label: b.Group, Group: b.Group, Kind: b.Kind, Start: b.Start, End: b.End, Failed: b.Failed, Critical: b.Critical})
	}
	return out
}

func countIn(bs []Bar, span Bar) int {
	n := 0
	for _, b := range bs {
		if b.Start >= span.Start && b.End <= span.End {
			n++
		}
	}
	return n
}

func kindsInOrder(bars []Bar) []string {
	seen := map[string]bool{}
	var kinds []string
	for _, b := range bars {
		if !seen[b.Kind] {
			seen[b.Kind] = true
			kinds = append(kinds, b.Kind)
		}
	}
	sort.Strings(kinds)
	return kinds
}

const legendPerLine = 7

func legendLines(kinds []string, failed bool) int {
	markings := 1 // critical path
	if failed {
		markings++
	}
	return (len(kinds)+markings)/legendPerLine + 1
}

// writeLegend lists the kinds present, then the markings: the critical
// path, and "failed" when a bar failed (an estimate's never do: nu-trial8
// found the entry read as a prediction of failure).
func writeLegend(p func(string, ...any), kinds []string, failed bool) {
	type entry struct{ name, fill, stroke string }
	var es []entry
	for _, k := range kinds {
		es = append(es, entry{k, KindColour(k), ""})
	}
	es = append(es, entry{"critical path", "#ffffff", ` stroke="#111" stroke-width="2"`})
	if failed {
		es = append(es, entry{"failed", "url(#gantt-failed)", ` stroke="#d62728"`})
	}
	p(`<g class="legend" fill="#333">` + "\n")
	for i, e := range es {
		lx := 10 + float64(i%legendPerLine)*140
		ly := titleHeight + legendRow*float64(i/legendPerLine)
		p(`<rect x="%.1f" y="%.1f" width="14" height="10" rx="2" fill="%s"%s/><text x="%.1f" y="%.1f">%s</text>`+"\n",
			lx, ly, e.fill, e.stroke, lx+19, ly+9, esc(e.name))
	}
	p("</g>\n")
}

// niceSteps are the tick intervals a person reads without arithmetic.
var niceSteps = []time.Duration{
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour,
}

// tickStep picks the smallest nice interval giving at most 10 ticks.
func tickStep(total time.Duration) time.Duration {
	for _, s := range niceSteps {
		if total/s <= 10 {
			return s
		}
	}
	return (total/10 + 24*time.Hour - 1) / (24 * time.Hour) * 24 * time.Hour
}

// formatTick writes an axis label: "0", "30s", "2m", "1h30m".
func formatTick(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	// Ticks fall on round values: "2m", not "2m00s".
	l := units.FormatDuration(d)
	if strings.HasSuffix(l, "m00s") || strings.HasSuffix(l, "h00m") {
		l = l[:len(l)-3]
	}
	return l
}

func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;")

// esc makes s safe as XML text or attribute: escaped, and with the
// characters XML cannot carry at all (controls, invalid UTF-8) replaced.
func esc(s string) string {
	return xmlEscaper.Replace(strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return r
		case r < 0x20, r == 0xFFFE, r == 0xFFFF, r == utf8.RuneError:
			return '\uFFFD'
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD")))
}
