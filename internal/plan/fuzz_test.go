package plan

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/units"
)

// FuzzMake throws arbitrary table names, sizes and options at Make. Either
// Make refuses with an error, or the plan keeps every invariant and renders
// a directory whose .st validates: never a panic, never a half-valid plan.
func FuzzMake(f *testing.F) {
	f.Add("customer,order-line,_File,x y", int64(1000), int64(120), int64(units.GB), 0, int64(2*units.GB), uint8(3), 20)
	f.Add("a,A,a-,a_", int64(0), int64(0), int64(1), 2, int64(4*units.MB), uint8(0), 0)
	f.Add("ä,\"q\",$(x),o'b", int64(1<<40), int64(9000), int64(100), 1, int64(1<<50), uint8(2), 1000)
	// names with control characters: refused (safety trial 13)
	f.Add("esc\x1b]52;c;aGk=\a,\u202erev,\u009bcsi,ok", int64(10), int64(50), int64(units.GB), 0, int64(2*units.GB), uint8(3), 20)
	f.Add("Pre\xe7o,m\xeas,ok", int64(10), int64(50), int64(units.GB), 0, int64(2*units.GB), uint8(3), 20) // 1252 names: refused
	f.Fuzz(func(t *testing.T, names string, records, mean, large int64, top int, maxExtent int64, block uint8, headroom int) {
		if records < 0 || mean < 0 || records > 1<<40 || mean > 1<<20 {
			return // a report cannot carry these
		}
		a := &openedge.Analysis{Database: "fuzz", BlockSize: 4096}
		for i, n := range strings.Split(names, ",") {
			if n == "" || strings.ContainsAny(n, " \t\r\n") {
				continue // tabanalys names are single words
			}
			r := records / int64(i+1)
			a.Tables = append(a.Tables, openedge.TableStat{Area: "Data", AreaNum: 7, Owner: "PUB", Name: n,
				Records: r, Bytes: r * mean, MeanRecord: mean})
		}
		o := testOptions()
		o.BlockSize = []int{1024, 2048, 4096, 8192, 3000}[int(block)%5]
		o.LargeBytes, o.TopN, o.MaxExtentBytes, o.HeadroomPct = large, top, maxExtent, headroom
		in := Input{Analysis: a, AnalysisName: "fuzz.tba"}
		p, err := Make(in, o)
		if err != nil {
			require.Nil(t, p)
			return
		}
		checkInvariants(t, p, in)
		files, err := Render(p, nil)
		require.NoError(t, err)
		for _, f := range files {
			// What a person reads or runs holds no control character a
			// name put there: only the line feeds of its lines.
			_, raw := openedge.ControlIn(strings.ReplaceAll(string(f.Data), "\n", ""))
			require.False(t, raw, "%s holds a control character", f.Name)
		}
	})
}

// BenchmarkMake10k plans ten thousand tables (the issue asks for under a
// second); BenchmarkRender10k renders the directory of that plan.
func BenchmarkMake10k(b *testing.B) {
	in, o := benchInput(b, 10_000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Make(in, o); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRender10k(b *testing.B) {
	in, o := benchInput(b, 10_000)
	p, err := Make(in, o)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Render(p, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMake100 is the baseline the 10k figure is compared against: the
// ratio shows how planning scales with the number of tables.
func BenchmarkMake100(b *testing.B) {
	in, o := benchInput(b, 100)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Make(in, o); err != nil {
			b.Fatal(err)
		}
	}
}

// benchInput is a parsed report of n tables of mixed classes, with a .df
// view and an index summary, so every path of Make is exercised.
func benchInput(b *testing.B, n int) (Input, Options) {
	p := profile{name: "bench", withDF: true, indexSummary: true}
	for i := 0; i < n; i++ {
		records := int64(i%1000) * 100
		if i%997 == 0 {
			records = 20_000_000 // a few large ones
		}
		p.tables = append(p.tables, tableSpec{area: fmt.Sprintf("A%d", i%20), name: fmt.Sprintf("tbl-%05d", i),
			records: records, mean: 30 + int64(i%300)*3, indexes: 1 + i%4})
	}
	var buf bytes.Buffer
	if err := openedge.WriteAnalysis(&buf, p.analysis()); err != nil {
		b.Fatal(err)
	}
	a, err := openedge.ParseAnalysis(&buf, "bench.tba")
	if err != nil {
		b.Fatal(err)
	}
	return Input{Analysis: a, AnalysisName: "bench.tba", DFTables: p.df().Tables(), DFName: "bench.df"}, testOptions()
}

// FuzzShellQuote is the writer/reader pair of tablemove.sh's words: sh
// reads ShellQuote(s) back as the one word s, whatever s holds (a NUL
// cannot be in an argument), and runs nothing of it.
func FuzzShellQuote(f *testing.F) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		f.Skip("no sh")
	}
	for _, s := range []string{"", "plain", "it's", `$(touch pwned)`, "`id`", "a b;c", "-dash", "#hash", "'", `'\''`, "\\", "\n\r\t", "\x1b]52;c;aGk=\a", "pc%amp&d-h", "Pre\xe7o"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsRune(s, 0) {
			return
		}
		dir := t.TempDir()
		cmd := exec.Command(sh, "-c", "printf %s "+ShellQuote(s)+"; printf '|%s' \"$#\"", "sh")
		cmd.Dir = dir
		out, err := cmd.Output()
		require.NoError(t, err)
		require.Equal(t, s+"|0", string(out))
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		require.Empty(t, entries)
	})
}
