package openedge

import (
	"bufio"
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// syntheticAnalysis is a database of n tables spread over n/1000 areas,
// with indexesPerTable indexes each. One table name in 50 is long enough to
// wrap, so both row shapes are measured.
func syntheticAnalysis(n, indexesPerTable int) *Analysis {
	a := &Analysis{Database: "/db/big", BlockSize: 8192, RecSpaceSearchDepth: 5,
		Options: "tabanalys", Date: "Sun Nov 22 07:00:00 2026", RMBlocks: 123456, RMUsedPct: 77.7}
	areas := max(1, n/1000)
	for i := range areas {
		a.Areas = append(a.Areas, AreaSummary{Name: fmt.Sprintf("Data Area %d", i), Number: 7 + i})
	}
	a.Tables = make([]TableStat, 0, n)
	a.Indexes = make([]IndexStat, 0, n*indexesPerTable)
	for i := range n {
		area := a.Areas[i%areas]
		name := fmt.Sprintf("table%06d", i)
		if i%50 == 0 {
			name = "a-table-name-long-enough-to-wrap-" + name
		}
		rec := int64(i*37%100000 + 1)
		a.Tables = append(a.Tables, TableStat{Area: area.Name, AreaNum: area.Number, Owner: "PUB", Name: name,
			Records: rec, Bytes: rec * 120, MinRecord: 60, MaxRecord: 300, MeanRecord: 120,
			Fragments: rec + int64(i%7), FragFactor: 1, ScatterFactor: 1.3})
		for j := range indexesPerTable {
			a.Indexes = append(a.Indexes, IndexStat{Area: area.Name, AreaNum: area.Number, Owner: "PUB", Table: name,
				Name: fmt.Sprintf("idx%d", j), Number: 100 + i*indexesPerTable + j, Fields: 1 + j, Levels: 2,
				Blocks: rec/100 + 1, Bytes: rec * 20, Util: 66.6, Factor: 1.4})
		}
	}
	return a
}

var (
	synthOnce    sync.Once
	synthReports map[string][]byte
)

func syntheticReport(tb testing.TB, indexesPerTable int) []byte {
	synthOnce.Do(func() {
		synthReports = map[string][]byte{}
		for _, k := range []int{0, 2} {
			var buf bytes.Buffer
			if err := WriteAnalysis(&buf, syntheticAnalysis(100_000, k)); err != nil {
				panic(err)
			}
			synthReports[fmt.Sprint(k)] = buf.Bytes()
		}
	})
	return synthReports[fmt.Sprint(indexesPerTable)]
}

func benchmarkParse(b *testing.B, indexesPerTable int) {
	report := syntheticReport(b, indexesPerTable)
	b.SetBytes(int64(len(report)))
	b.ReportAllocs()
	defer reportProcessCPU(b)()
	for b.Loop() {
		a, err := ParseAnalysis(bytes.NewReader(report), "synthetic")
		if err != nil || len(a.Tables) != 100_000 {
			b.Fatalf("parse: %v", err)
		}
	}
}

// BenchmarkParseAnalysis100k: a tabanalys of 100,000 tables (the issue's
// target: under 1 s and 200 MB).
func BenchmarkParseAnalysis100k(b *testing.B) { benchmarkParse(b, 0) }

// BenchmarkParseAnalysis100kIndexes: the same with two indexes per table, as
// a dbanalys prints them (300,000 more lines).
func BenchmarkParseAnalysis100kIndexes(b *testing.B) { benchmarkParse(b, 2) }

// BenchmarkScanFields100k is the baseline the parser is compared with in
// the same run: reading the same report line by line and splitting every
// line with strings.Fields, without interpreting anything.
func BenchmarkScanFields100k(b *testing.B) {
	report := syntheticReport(b, 0)
	b.SetBytes(int64(len(report)))
	b.ReportAllocs()
	defer reportProcessCPU(b)()
	for b.Loop() {
		sc := bufio.NewScanner(bytes.NewReader(report))
		sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
		fields := 0
		for sc.Scan() {
			fields += len(strings.Fields(sc.Text()))
		}
		if fields == 0 {
			b.Fatal("no fields")
		}
	}
}

// BenchmarkWriteAnalysis100k is the simulator's side: printing the report.
func BenchmarkWriteAnalysis100k(b *testing.B) {
	a := syntheticAnalysis(100_000, 0)
	b.ReportAllocs()
	defer reportProcessCPU(b)()
	for b.Loop() {
		if err := WriteAnalysis(&countingWriter{}, a); err != nil {
			b.Fatal(err)
		}
	}
}

// reportProcessCPU adds cpu-ms/op: user + system time of the process (the
// garbage collector included) per operation. On a shared machine wall time
// measures the neighbours as much as the code; CPU time much less so.
func reportProcessCPU(b *testing.B) func() {
	start := processCPU()
	return func() {
		b.ReportMetric(float64((processCPU()-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	}
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// TestParseAnalysis100kMemory measures the heap while the 100,000-table
// report with indexes is parsed: the peak (sampled every millisecond), the
// total allocated, and what the result keeps. It checks the 200 MB
// ceiling and logs the figures for docs/benchmarks/formats-analysis.md.
func TestParseAnalysis100kMemory(t *testing.T) {
	if testing.Short() || raceDetector {
		t.Skip("generates a 100,000-table report; measured without -short and -race")
	}
	for _, k := range []int{0, 2} {
		report := syntheticReport(t, k)
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)

		var peak atomic.Uint64
		done := make(chan struct{})
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			var m runtime.MemStats
			tick := time.NewTicker(time.Millisecond)
			defer tick.Stop()
			for {
				runtime.ReadMemStats(&m)
				if m.HeapInuse > peak.Load() {
					peak.Store(m.HeapInuse)
				}
				select {
				case <-done:
					return
				case <-tick.C:
				}
			}
		}()
		a, err := ParseAnalysis(bytes.NewReader(report), "synthetic")
		close(done)
		<-sampled
		require.NoError(t, err)

		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		runtime.GC()
		var kept runtime.MemStats
		runtime.ReadMemStats(&kept)
		peakMB := float64(peak.Load()-min(peak.Load(), before.HeapInuse)) / (1 << 20)
		t.Logf("indexes/table=%d report=%.1f MB lines=%d: peak heap above baseline %.1f MB, allocated %.1f MB in %d allocs, result keeps %.1f MB",
			k, float64(len(report))/(1<<20), strings.Count(string(report), "\n"), peakMB,
			float64(after.TotalAlloc-before.TotalAlloc)/(1<<20), after.Mallocs-before.Mallocs,
			float64(kept.HeapAlloc-min(kept.HeapAlloc, before.HeapAlloc))/(1<<20))
		require.Less(t, peakMB, 200.0)
		require.Len(t, a.Tables, 100_000)
		require.Len(t, a.Indexes, 100_000*k)
		runtime.KeepAlive(a)
	}
}
