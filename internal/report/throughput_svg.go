package report

import (
	"bufio"
	"fmt"
	"io"
	"time"
)

// ThroughputSVG draws dump and load throughput over time as two step lines
// on one axis: where the run was busy, where it idled waiting for one big
// table, and when the loads caught up with the dumps.
func ThroughputSVG(w io.Writer, rates []Rate) error {
	const (
		width, height = 1000.0, 220.0
		left, right   = 70.0, 20.0
		top, bottom   = 30.0, 30.0
	)
	bw := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(bw, format, a...) }
	var peak float64
	var end time.Duration
	for _, r := range rates {
		peak = max(peak, r.DumpPerSec, r.LoadPerSec)
		end = max(end, r.At+r.Width)
	}
	p(`<svg xmlns="http://www.w3.org/2000/svg" class="throughput" viewBox="0 0 %.0f %.0f" width="100%%" role="img" data-points="%d" font-family="system-ui,-apple-system,'Segoe UI',Helvetica,Arial,sans-serif" font-size="11">`+"\n", width, height, len(rates))
	p("<title>Throughput over time</title>\n")
	p(`<rect width="100%%" height="100%%" fill="#ffffff"/>` + "\n")
	if len(rates) == 0 || peak <= 0 || end <= 0 {
		p(`<text x="%.0f" y="%.0f" fill="#777">no dump or load finished</text>`+"\n</svg>\n", left, top+20)
		return bw.Flush()
	}
	chartW, chartH := width-left-right, height-top-bottom
	x := func(d time.Duration) float64 { return left + chartW*float64(d)/float64(end) }
	yMax := niceCeil(peak)
	y := func(v float64) float64 { return top + chartH*(1-v/yMax) }

	p(`<g fill="#555">` + "\n")
	for i := 0; i <= 4; i++ {
		v := yMax * float64(i) / 4
		p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e3e3e3"/><text x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n",
			left, y(v), width-right, y(v), left-6, y(v)+4, rateText(v))
	}
	step := tickStep(end)
	for t := time.Duration(0); t <= end && t >= 0; t += step {
		p(`<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", x(t), height-bottom+16, formatTick(t))
	}
	p("</g>\n")
	line := func(class, colour string, v func(Rate) float64) {
		p(`<path class="%s" fill="none" stroke="%s" stroke-width="2" d="M%.1f %.1f`, class, colour, x(0), y(v(rates[0])))
		for _, r := range rates {
			p(" L%.1f %.1f L%.1f %.1f", x(r.At), y(v(r)), x(r.At+r.Width), y(v(r)))
		}
		p(`"/>` + "\n")
	}
	line("dump", KindColour("dump"), func(r Rate) float64 { return r.DumpPerSec })
	line("load", KindColour("load"), func(r Rate) float64 { return r.LoadPerSec })
	p(`<g><rect x="%.0f" y="8" width="14" height="10" fill="%s"/><text x="%.0f" y="17">dump</text><rect x="%.0f" y="8" width="14" height="10" fill="%s"/><text x="%.0f" y="17">load</text></g>`+"\n",
		left, KindColour("dump"), left+19, left+70, KindColour("load"), left+89)
	p("</svg>\n")
	return bw.Flush()
}

// niceCeil rounds v up to 1, 2 or 5 times a power of 1024-ish steps in
// bytes, so the axis reads "50 MiB/s", not "47.3 MiB/s".
func niceCeil(v float64) float64 {
	unit := 1.0
	for unit*1024 <= v {
		unit *= 1024
	}
	for _, m := range []float64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1024} {
		if m*unit >= v {
			return m * unit
		}
	}
	return v
}
