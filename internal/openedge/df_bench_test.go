package openedge

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"
)

// reportCPU adds cpu-ms/op, the process CPU time (user + system, GC
// included) per operation: on a shared machine wall time measures the
// neighbours as much as the code, CPU time much less so.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		b.ReportMetric(float64((cpuTime()-start).Milliseconds())/float64(b.N), "cpu-ms/op")
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// The benchmark file: 10,000 tables of 12 fields (one of them a blob) and
// 3 indexes, written by NewDF in the Data Dictionary layout (22 MB,
// 1.22 M lines). Figures are in docs/benchmarks/formats-st-df.md.
const benchTables = 10000

var benchDF = sync.OnceValue(func() []byte {
	types := []string{"integer", "character", "decimal", "date", "logical", "int64", "character", "character", "datetime", "integer", "character"}
	tables := make([]*DFTable, benchTables)
	for i := range tables {
		t := &DFTable{Name: fmt.Sprintf("Table-%05d", i), Area: "Data", Description: "Synthetic table for the .df benchmark"}
		for j, typ := range types {
			t.Fields = append(t.Fields, &DFField{Name: fmt.Sprintf("Field%02d", j), Type: typ, Label: fmt.Sprintf("Field %d", j)})
		}
		t.Fields = append(t.Fields, &DFField{Name: "Attachment", Type: "blob", LobArea: "Lobs"})
		t.Indexes = []*DFIndex{
			{Name: "Pk", Area: "Index", Unique: true, Primary: true, Fields: []DFIndexField{{Name: "Field00"}}},
			{Name: "ByName", Area: "Index", Fields: []DFIndexField{{Name: "Field01"}, {Name: "Field03", Descending: true}}},
			{Name: "ByDate", Area: "Index", Fields: []DFIndexField{{Name: "Field03"}}},
		}
		tables[i] = t
	}
	var b bytes.Buffer
	if _, err := NewDF(tables, nil, "UTF-8").WriteTo(&b); err != nil {
		panic(err)
	}
	return b.Bytes()
})

// BenchmarkDFBaselineScanLines is the floor to compare with: reading the
// same bytes line by line and doing nothing with them.
func BenchmarkDFBaselineScanLines(b *testing.B) {
	data := benchDF()
	b.SetBytes(int64(len(data)))
	defer reportCPU(b)()
	for b.Loop() {
		sc := bufio.NewScanner(bytes.NewReader(data))
		n := 0
		for sc.Scan() {
			n++
		}
		if n == 0 {
			b.Fatal("no lines")
		}
	}
}

func BenchmarkParseDF10k(b *testing.B) {
	data := benchDF()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	defer reportCPU(b)()
	base := liveHeap()
	var d *DF
	for b.Loop() {
		var err error
		if d, err = ParseDF(bytes.NewReader(data), "bench.df"); err != nil {
			b.Fatal(err)
		}
		if len(d.Tables()) != benchTables {
			b.Fatalf("%d tables", len(d.Tables()))
		}
	}
	// What a parsed DF keeps alive: its copy of the input plus the views.
	b.ReportMetric(float64(liveHeap()-base)/(1<<20), "live-MB")
	runtime.KeepAlive(d)
}

// liveHeap is the heap in use after a full collection.
func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// BenchmarkDFRewrite10k is what oedl plan does with a source .df: parse,
// move every table, index and LOB to a new area, write the target .df.
func BenchmarkDFRewrite10k(b *testing.B) {
	data := benchDF()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		d, err := ParseDF(bytes.NewReader(data), "bench.df")
		if err != nil {
			b.Fatal(err)
		}
		for i, t := range d.Tables() {
			area := fmt.Sprintf("Data %d", i%50)
			if err := d.SetTableArea(t.Name, area); err != nil {
				b.Fatal(err)
			}
			for _, ix := range t.Indexes {
				if err := d.SetIndexArea(t.Name, ix.Name, area+" Idx"); err != nil {
					b.Fatal(err)
				}
			}
			if err := d.SetLobArea(t.Name, "Attachment", area+" Lob"); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := d.WriteTo(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteDF10k(b *testing.B) {
	d, err := ParseDF(bytes.NewReader(benchDF()), "bench.df")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(benchDF())))
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		if _, err := d.WriteTo(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
