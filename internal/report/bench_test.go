package report

import (
	"fmt"
	"io"
	"testing"
)

// BenchmarkReport builds the report of the test run from its work
// directory and renders both files.
func BenchmarkReport(b *testing.B) {
	dir := fixture(b, true, false)
	b.ReportAllocs()
	for range b.N {
		d, err := FromWork(dir)
		if err != nil {
			b.Fatal(err)
		}
		if err := WriteMarkdown(io.Discard, d); err != nil {
			b.Fatal(err)
		}
		if err := WriteHTML(io.Discard, d); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGantt3000 draws 3,000 jobs (grouped to 80 rows).
func BenchmarkGantt3000(b *testing.B) {
	var bars []Bar
	for i := range 3000 {
		k := []string{"dump", "load"}[i%2]
		bars = append(bars, Bar{Label: fmt.Sprintf("%s PUB.t%04d", k, i), Group: k, Kind: k, Start: sec(float64(i)), End: sec(float64(i + 1 + i%7))})
	}
	b.ReportAllocs()
	for range b.N {
		if err := GanttSVG(io.Discard, "big", bars); err != nil {
			b.Fatal(err)
		}
	}
}
