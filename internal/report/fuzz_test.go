package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"testing"
	"time"
)

// FuzzGanttSVG draws arbitrary bars: the SVG must always be well-formed XML
// (a label is user data: a table name, an error text) or the bars rejected
// with an error, never a panic.
func FuzzGanttSVG(f *testing.F) {
	f.Add("load PUB.customer", "load", int64(0), int64(5e9), uint16(3), false, true)
	f.Add(`<&>"'`, "", int64(-1), int64(1), uint16(200), true, false)
	f.Add("x\x00y", "dump\xff", int64(1<<62), int64(1<<62+1), uint16(1), true, true)
	f.Fuzz(func(t *testing.T, label, kind string, start, end int64, n uint16, crit, failed bool) {
		var bars []Bar
		for i := range int(n % 300) {
			off := time.Duration(i) * time.Second
			bars = append(bars, Bar{Label: label, Group: kind, Kind: kind, Start: time.Duration(start) + off, End: time.Duration(end) + off,
				Critical: crit && i%2 == 0, Failed: failed && i%3 == 0})
		}
		var buf bytes.Buffer
		if err := GanttSVG(&buf, label, bars); err != nil {
			return
		}
		dec := xml.NewDecoder(&buf)
		for {
			_, err := dec.Token()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				t.Fatalf("not well-formed XML: %v", err)
			}
		}
	})
}
