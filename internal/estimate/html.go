package estimate

import (
	"bytes"
	"fmt"
	"html/template"
	"io"

	"github.com/oedl/oedl/internal/atomicfile"
	"github.com/oedl/oedl/internal/report"
	"github.com/oedl/oedl/internal/units"
)

// WriteHTML writes a self-contained page: the window and its parts, the
// critical path, the advice, the per-table times and the Gantt chart of
// the simulated run, drawn by report.GanttSVG like the run report's, so a
// rehearsal and its estimate can be laid side by side.
func (e *Estimate) WriteHTML(w io.Writer, title string) error {
	critical := map[string]bool{}
	for _, s := range e.CriticalPath {
		critical[s.Job] = true
	}
	var svg bytes.Buffer
	if err := report.GanttSVG(&svg, title, report.BarsFromSpans(e.Result(), critical)); err != nil {
		return err
	}
	return htmlPage.Execute(w, struct {
		Title string
		E     *Estimate
		Gantt template.HTML
	}{title, e, template.HTML(svg.String())}) // the SVG is escaped by GanttSVG
}

// WriteHTMLFile writes the page to path, all or nothing.
func (e *Estimate) WriteHTMLFile(path, title string) error {
	return atomicfile.Write(path, func(w io.Writer) error { return e.WriteHTML(w, title) })
}

var htmlPage = template.Must(template.New("estimate").Funcs(pageFuncs).Parse(pageHead + `
<p class="big">Outage window: <b>{{dur .E.Window}}</b>{{with .E.Range}} (the P50; P90 {{dur .P90}}){{end}}</p>
<p>{{.E.Hardware}}<br>{{.E.Strategy.Describe}}<br>model: {{.E.ModelOrigin}}{{with .E.Integrity}}<br>loads: {{.Line}}{{end}}</p>
<h2>Phases</h2>
<table><tr><th>phase</th><th>starts</th><th>ends</th><th>duration</th><th>jobs</th></tr>
{{range .E.Phases}}<tr><td>{{.Name}}</td><td>{{dur .Start}}</td><td>{{dur .End}}</td><td>{{dur .Duration}}</td><td>{{.Jobs}}</td></tr>
{{end}}</table>
<p>Dump and load overlap: {{dur .E.Overlap.Duration}} (ε = {{printf "%.2f" .E.Overlap.Efficiency}})</p>
<h2>Gantt (simulated)</h2>
{{.Gantt}}
<h2>Critical path</h2>
<table><tr><th>job</th><th>starts</th><th>takes</th><th>queued</th></tr>
{{range .E.CriticalPath}}<tr><td>{{.Job}}</td><td>{{dur .Start}}</td><td>{{dur (sub .End .Start)}}</td><td>{{if .Waited}}{{dur .Waited}}{{end}}</td></tr>
{{end}}</table>
{{if .E.Dominant}}<h2>Tables that dominate</h2><ul>
{{range .E.Dominant}}<li><b>{{.Table}}</b> {{.Advice}}</li>
{{end}}</ul>{{end}}
{{range .E.Warnings}}<p><b>warning:</b> {{.}}</p>{{end}}
<h2>Per table</h2>
<table><tr><th>table</th><th>size</th><th>records</th><th>dump starts</th><th>dump</th><th>load ends</th><th>load</th><th>sections</th></tr>
{{range .E.Tables}}<tr><td>{{.Table}}</td><td>{{bytes .Bytes}}</td><td>{{.Records}}</td><td>{{dur .DumpStart}}</td><td>{{dur .Dump}}</td><td>{{dur .LoadEnd}}</td><td>{{dur .Load}}</td><td>{{.Sections}}</td></tr>
{{end}}</table>
</body></html>
`))

// WriteWhatIfHTMLFile writes the what-if table as a page, all or nothing.
func WriteWhatIfHTMLFile(path, title string, rows []WhatIfRow) error {
	type line struct {
		R WhatIfRow
		C whatIfCells
	}
	lines := make([]line, len(rows))
	for i, r := range rows {
		lines[i] = line{r, r.whatIfCells()}
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		return whatIfPage.Execute(w, struct {
			Title string
			Rows  []line
		}{title, lines})
	})
}

// WriteHTMLFile writes the comparison as a page, all or nothing.
func (c *Comparison) WriteHTMLFile(path, title string) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		return comparePage.Execute(w, struct {
			Title, Intro, Legend string
			C                    *Comparison
		}{title, fmt.Sprintf(comparisonIntro, c.Hardware), comparisonLegend, c})
	})
}

// pageHead is the head and style the three pages share.
const pageHead = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em;max-width:1200px}
table{border-collapse:collapse;margin:1em 0}td,th{padding:.2em .8em;border-bottom:1px solid #ddd;text-align:right}
td:first-child,th:first-child{text-align:left}.big{font-size:1.6em}
pre{background:#f6f6f6;padding:1em;overflow-x:auto}
</style></head><body>
<h1>{{.Title}}</h1>
`

var pageFuncs = template.FuncMap{
	"dur":   func(s Seconds) string { return units.FormatDuration(s.D()) },
	"bytes": units.FormatIEC,
	"sub":   func(a, b Seconds) Seconds { return a - b },
}

var whatIfPage = template.Must(template.New("whatif").Funcs(pageFuncs).Parse(pageHead + `
<p>One estimate per combination; a bursting ceiling reads baseline↑burst.</p>
<table><tr><th>cores</th><th>volume</th><th>disk MB/s</th><th>IOPS</th><th>memory</th><th>dump jobs</th><th>load jobs</th><th>loads/area</th><th>dump+load</th><th>idxbuild</th><th>window</th></tr>
{{range .Rows}}<tr><td>{{.R.Hardware.Cores}}</td><td>{{.C.Volume}}</td><td>{{.C.MBps}}</td><td>{{.C.IOPS}}</td><td>{{bytes .R.Hardware.MemoryBytes}}</td><td>{{.R.Strategy.DumpJobs}}</td><td>{{.R.Strategy.LoadJobs}}</td><td>{{.C.PerArea}}</td><td>{{dur .R.DumpLoad}}</td><td>{{dur .R.Idxbuild}}</td><td><b>{{dur .R.Window}}</b></td></tr>
{{end}}</table>
</body></html>
`))

var comparePage = template.Must(template.New("compare").Funcs(pageFuncs).Parse(pageHead + `
<p class="big">{{.C.Why}}.</p>
<p>{{.Intro}}.</p>
<table><tr><th>strategy</th><th>dump+load</th><th>ε</th><th>idxbuild</th><th>window</th></tr>
{{range .C.Candidates}}<tr><td>{{.Strategy.Name}}<br><small>{{.Strategy.Describe}}</small></td><td>{{dur .DumpLoad}}</td><td>{{printf "%.2f" .Overlap}}</td><td>{{dur .Idxbuild}}</td><td><b>{{dur .Window}}</b></td></tr>
{{end}}</table>
<p><small>{{.Legend}}.</small></p>
</body></html>
`))
