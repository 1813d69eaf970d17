package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/oedl/oedl/internal/journal"
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

// FuzzBuildFromJournal builds and renders the report of arbitrary journals
// (whatever journal.Parse accepts: a run killed at any point, records out
// of order, a job that never ends, odd names): never a panic, always a
// verdict, and HTML with every bar of the Gantt chart.
func FuzzBuildFromJournal(f *testing.F) {
	var seed bytes.Buffer
	dir := fixture(f, true, false)
	b, err := os.ReadFile(filepath.Join(dir, journal.FileName))
	if err != nil {
		f.Fatal(err)
	}
	seed.Write(b)
	f.Add(seed.Bytes())
	f.Add([]byte(`{"v":1,"seq":1,"time":"2026-11-22T01:00:00Z","job":"load:T","kind":"load","state":"started","table":"<T>"}` + "\n"))
	f.Add([]byte(`{"v":1,"seq":1,"time":"2026-11-22T01:00:09Z","job":"x","kind":"dump","state":"done"}` + "\n" +
		`{"v":1,"seq":2,"time":"2026-11-22T01:00:00Z","job":"x","kind":"dump","state":"started"}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, err := journal.Parse(bytes.NewReader(data), "journal.jsonl")
		if err != nil || len(recs) == 0 {
			return
		}
		d := Build(recs, nil, nil)
		if d.Verdict.Headline == "" {
			t.Fatal("no verdict")
		}
		var page bytes.Buffer
		if err := WriteHTML(&page, d); err != nil {
			return // bars that end before they start are refused, not drawn
		}
		if n := strings.Count(page.String(), `<rect class="bar`); len(d.Bars) <= MaxGanttRows && n != len(d.Bars) {
			t.Fatalf("%d bars drawn for %d spans", n, len(d.Bars))
		}
		if err := WriteMarkdown(io.Discard, d); err != nil {
			t.Fatal(err)
		}
	})
}
