package estimate

import (
	"bytes"
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

var htmlPage = template.Must(template.New("estimate").Funcs(template.FuncMap{
	"dur":   func(s Seconds) string { return units.FormatDuration(s.D()) },
	"bytes": units.FormatIEC,
	"sub":   func(a, b Seconds) Seconds { return a - b },
}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em;max-width:1200px}
table{border-collapse:collapse;margin:1em 0}td,th{padding:.2em .8em;border-bottom:1px solid #ddd;text-align:right}
td:first-child,th:first-child{text-align:left}.big{font-size:1.6em}
pre{background:#f6f6f6;padding:1em;overflow-x:auto}
</style></head><body>
<h1>{{.Title}}</h1>
<p class="big">Outage window: <b>{{dur .E.Window}}</b>{{with .E.Range}} (P50 {{dur .P50}}, P90 {{dur .P90}}){{end}}</p>
<p>{{.E.Hardware}}<br>{{.E.Strategy.Describe}}<br>model: {{.E.ModelOrigin}}</p>
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
