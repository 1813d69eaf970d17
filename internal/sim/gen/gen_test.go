package gen

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/golden"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/sim/store"
)

// digest hashes every value of every row of every table.
func digest(t *testing.T, db *Database) uint64 {
	t.Helper()
	h := fnv.New64a()
	var buf []byte
	for _, tb := range db.Tables {
		for r := range tb.Rows {
			buf = appendRow(buf[:0], r)
			h.Write(buf)
		}
	}
	return h.Sum64()
}

func appendRow(b []byte, r []any) []byte {
	for _, v := range r {
		switch x := v.(type) {
		case nil:
			b = append(b, 0)
		case int64:
			b = binary.AppendVarint(append(b, 1), x)
		case string:
			b = append(binary.AppendUvarint(append(b, 2), uint64(len(x))), x...)
		case float64:
			b = binary.LittleEndian.AppendUint64(append(b, 3), math.Float64bits(x))
		case bool:
			b = append(b, 4, map[bool]byte{false: 0, true: 1}[x])
		case time.Time:
			b = binary.AppendVarint(append(b, 5), x.UnixNano())
		case []byte:
			b = append(binary.AppendUvarint(append(b, 6), uint64(len(x))), x...)
		case []any:
			b = appendRow(append(b, 7), x)
		default:
			panic(fmt.Sprintf("unexpected %T", v))
		}
	}
	return b
}

func dfText(t *testing.T, db *Database) string {
	t.Helper()
	var b bytes.Buffer
	_, err := db.DF.WriteTo(&b)
	require.NoError(t, err)
	return b.String()
}

func TestGenerateIsDeterministic(t *testing.T) {
	for _, profile := range Profiles() {
		t.Run(profile, func(t *testing.T) {
			a, err := Generate(profile, 1<<20, 7)
			require.NoError(t, err)
			b, err := Generate(profile, 1<<20, 7)
			require.NoError(t, err)
			c, err := Generate(profile, 1<<20, 8)
			require.NoError(t, err)

			assert.Equal(t, dfText(t, a), dfText(t, b), "same inputs, same schema")
			assert.Equal(t, digest(t, a), digest(t, b), "same inputs, same rows")
			assert.Equal(t, dfText(t, a), dfText(t, c), "the seed does not change the schema")
			assert.NotEqual(t, digest(t, a), digest(t, c), "another seed, other rows")
			for i := range a.Tables {
				assert.Equal(t, a.Tables[i].Records, c.Tables[i].Records, a.Tables[i].Name)
			}
		})
	}
}

func TestRowsRestartAndStop(t *testing.T) {
	db, err := Generate("erp", 1<<20, 1)
	require.NoError(t, err)
	tb := db.Table("PUB.GLTR_HIST")
	require.NotNil(t, tb, "lookup is case-insensitive, with or without owner")
	require.Greater(t, tb.Records, int64(10))

	var first []Row
	for r := range tb.Rows {
		first = append(first, r)
		if len(first) == 10 {
			break // an early stop must not panic or leak
		}
	}
	n := 0
	for r := range tb.Rows {
		if n < len(first) {
			assert.Equal(t, first[n], r, "row %d after a restart", n)
		}
		n++
	}
	assert.EqualValues(t, tb.Records, n)
}

func TestUnknownProfileAndBadScale(t *testing.T) {
	_, err := Generate("crm", 1<<20, 1)
	assert.ErrorContains(t, err, `unknown profile "crm"`)
	_, err = Generate("erp", -1, 1)
	assert.ErrorContains(t, err, "negative")
	assert.Equal(t, []string{"erp", "seed003", "sports", "wide"}, Profiles())
}

// scan iterates every row of db and returns the encoded bytes and records
// per table.
func scan(db *Database) (bytes, records map[string]int64) {
	bytes, records = map[string]int64{}, map[string]int64{}
	for _, tb := range db.Tables {
		for r := range tb.Rows {
			bytes[tb.Name] += int64(EncodedSize(r))
			records[tb.Name]++
		}
	}
	return bytes, records
}

func TestScaleIsMet(t *testing.T) {
	tests := []struct {
		profile string
		scale   int64
	}{
		{"erp", 4 << 20},
		{"erp", 12 << 20},
		{"seed003", 20 << 20},
		{"sports", 1 << 20},
		{"sports", 16 << 20},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%d", tt.profile, tt.scale), func(t *testing.T) {
			db, err := Generate(tt.profile, tt.scale, 3)
			require.NoError(t, err)
			bytes, records := scan(db)
			var total int64
			for _, tb := range db.Tables {
				total += bytes[tb.Name]
				assert.Equal(t, tb.Records, records[tb.Name], "%s yields Records rows", tb.Name)
			}
			t.Logf("%d bytes of records for a scale of %d (%.1f%%)", total, tt.scale, 100*float64(total)/float64(tt.scale))
			assert.InEpsilon(t, tt.scale, total, 0.03, "encoded bytes %d for scale %d", total, tt.scale)
			assert.InEpsilon(t, db.Bytes(), total, 0.02, "Bytes() predicts the rows")
		})
	}
}

func TestERPShape(t *testing.T) {
	tests := []struct {
		scale          int64
		minT, maxT     int
		minTinyTables  int // tables with 0..100 records
		maxMeanAtLeast int
	}{
		{1 << 20, 150, 150, 120, 1000},
		{200 << 20, 400, 500, 150, 1000},
		{14 << 30, 800, 873, 100, 1000},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.scale>>20, "MB"), func(t *testing.T) {
			db, err := Generate("erp", tt.scale, 1)
			require.NoError(t, err)
			assert.GreaterOrEqual(t, len(db.Tables), tt.minT)
			assert.LessOrEqual(t, len(db.Tables), tt.maxT)

			// Bytes are predicted by Records x MeanSize (TestScaleIsMet
			// checks the rows deliver them).
			sizes := make([]int64, 0, len(db.Tables))
			var indexes, tiny, empty, inSchema int
			minMean, maxMean := 1<<30, 0
			for _, tb := range db.Tables {
				sizes = append(sizes, tb.Records*int64(tb.MeanSize))
				indexes += len(tb.Def.Indexes)
				if tb.Records <= 100 {
					tiny++
				}
				if tb.Records == 0 {
					empty++
				}
				if tb.Area == areaSchema {
					inSchema++
				}
				if tb.Records > 0 {
					minMean, maxMean = min(minMean, tb.MeanSize), max(maxMean, tb.MeanSize)
				}
			}
			slices.Sort(sizes)
			slices.Reverse(sizes)
			top4 := float64(sizes[0]+sizes[1]+sizes[2]+sizes[3]) / float64(db.Bytes())
			avgIdx := float64(indexes) / float64(len(db.Tables))
			t.Logf("tables %d, top-4 share %.2f, indexes/table %.2f, tiny %d, empty %d, in Schema Area %d, mean %d..%d",
				len(db.Tables), top4, avgIdx, tiny, empty, inSchema, minMean, maxMean)
			assert.InDelta(t, 0.5, top4, 0.06, "the top 4 tables hold about half the bytes")
			assert.InDelta(t, 3.6, avgIdx, 0.5, "about 3.6 indexes per table (3140/873)")
			assert.GreaterOrEqual(t, tiny, tt.minTinyTables, "a long tail of tiny tables")
			assert.GreaterOrEqual(t, empty, 3, "a few empty tables")
			assert.Less(t, minMean, 100, "mean record sizes from tens of bytes")
			assert.Greater(t, maxMean, tt.maxMeanAtLeast, "to over a kilobyte")
			assert.Greater(t, inSchema, len(db.Tables)/5, "many objects in the Schema Area")
		})
	}
}

var oeName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_#$%&-]{0,31}$`)

func TestSchemaIsValidOpenEdge(t *testing.T) {
	for _, profile := range Profiles() {
		t.Run(profile, func(t *testing.T) {
			db, err := Generate(profile, 50<<20, 1)
			require.NoError(t, err)
			require.NoError(t, db.Structure.Validate())
			areas := map[string]bool{}
			for _, a := range db.Structure.Areas {
				areas[a.Name] = true
				assert.False(t, a.TypeII(), "the before picture is Type I: %s", a.Name)
			}
			var lobs, words, dashes int
			numbers := map[int]bool{}
			for _, tb := range db.Tables {
				assert.Regexp(t, oeName, tb.Name)
				assert.Equal(t, "PUB", tb.Owner)
				assert.True(t, areas[tb.Area], "%s: area %q is in the .st", tb.Name, tb.Area)
				assert.False(t, numbers[tb.Number], "%s: number %d is unique", tb.Name, tb.Number)
				numbers[tb.Number] = true
				if strings.Contains(tb.Name, "-") {
					dashes++
				}
				fields := map[string]bool{}
				for _, f := range tb.Def.Fields {
					assert.Regexp(t, oeName, f.Name, tb.Name)
					assert.False(t, fields[strings.ToLower(f.Name)], "%s.%s is unique", tb.Name, f.Name)
					fields[strings.ToLower(f.Name)] = true
					if f.LobArea != "" {
						lobs++
						assert.True(t, areas[f.LobArea], f.LobArea)
					}
				}
				require.NotEmpty(t, tb.Def.Indexes, tb.Name)
				first := tb.Def.Indexes[0]
				assert.True(t, first.Primary && first.Unique, "%s: the first index is the primary unique one", tb.Name)
				names := map[string]bool{}
				for i, ix := range tb.Def.Indexes {
					assert.Regexp(t, oeName, ix.Name, tb.Name)
					assert.False(t, names[strings.ToLower(ix.Name)], "%s: index %s is unique", tb.Name, ix.Name)
					names[strings.ToLower(ix.Name)] = true
					assert.Equal(t, i == 0, ix.Primary, "%s.%s: one primary index", tb.Name, ix.Name)
					assert.True(t, areas[ix.Area], "%s.%s: area %q", tb.Name, ix.Name, ix.Area)
					if ix.Word {
						words++
						assert.Len(t, ix.Fields, 1)
					}
					for _, f := range ix.Fields {
						assert.True(t, fields[strings.ToLower(f.Name)], "%s.%s: field %s exists", tb.Name, ix.Name, f.Name)
					}
				}
			}
			assert.Positive(t, words, "some word indexes")
			if profile == "erp" {
				assert.GreaterOrEqual(t, lobs, 2, "a couple of LOB fields")
				assert.Positive(t, dashes, "an awkward name with a dash")
			}
		})
	}
}

func TestDFAndSTReadBack(t *testing.T) {
	for _, profile := range Profiles() {
		t.Run(profile, func(t *testing.T) {
			db, err := Generate(profile, 8<<20, 1)
			require.NoError(t, err)
			df, err := openedge.ParseDF(strings.NewReader(dfText(t, db)), profile+".df")
			require.NoError(t, err)
			require.Len(t, df.Tables(), len(db.Tables))
			assert.Equal(t, "ISO8859-1", df.Codepage())
			assert.Len(t, df.Sequences(), len(db.Sequences))
			for _, tb := range db.Tables {
				got := df.Table(tb.Name)
				require.NotNil(t, got, tb.Name)
				assert.Equal(t, tb.Area, got.Area)
				assert.Equal(t, len(tb.Def.Fields), len(got.Fields), tb.Name)
				assert.Equal(t, len(tb.Def.Indexes), len(got.Indexes), tb.Name)
			}
			st, err := openedge.ParseStructure(strings.NewReader(db.STText), profile+".st")
			require.NoError(t, err)
			require.NoError(t, st.Validate())
			assert.Len(t, st.Areas, len(db.Structure.Areas))
		})
	}
}

// TestGolden pins the schema of a small database of each profile: a change
// of names, fields, indexes, areas or record counts shows in review. The
// sports .df is kept whole as an example of what a DBA gets; the erp one
// (470 KB) is pinned through its schema summary. Run with -update after an
// intended change.
func TestGolden(t *testing.T) {
	for _, profile := range Profiles() {
		db, err := Generate(profile, 1<<20, 1)
		require.NoError(t, err)
		files := map[string]string{
			profile + "-1MB.st":     db.STText,
			profile + "-1MB.schema": pinned(schemaSummary(db), 128<<10),
		}
		if profile == "sports" {
			files[profile+"-1MB.df"] = dfText(t, db)
		}
		for name, got := range files {
			path := filepath.Join("testdata", name)
			if golden.Update() {
				require.NoError(t, os.MkdirAll("testdata", 0o755))
				require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
				continue
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run go test -update to create %s", path)
			assert.Equal(t, string(want), got, path)
		}
	}
}

// pinned keeps a summary whole up to max bytes; a longer one (seed003's
// 873 tables: 570 KB; the wide profile's 4,000 tables of one shape: 2.7
// MB) keeps its first max bytes of whole lines and the SHA-256 and line
// count of all of it, so any change still fails and review reads the shape.
func pinned(summary string, max int) string {
	if len(summary) <= max {
		return summary
	}
	cut := strings.LastIndexByte(summary[:max], '\n') + 1
	sum := sha256.Sum256([]byte(summary))
	return fmt.Sprintf("%s... %d lines in all, sha256 %x\n", summary[:cut], strings.Count(summary, "\n"), sum)
}

// schemaSummary is one line per table (number, area, records, mean size),
// field (type, extent, LOB area) and index (flags, area, fields).
func schemaSummary(db *Database) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s profile: %d tables, %d bytes of records\n", db.Name, len(db.Tables), db.Bytes())
	for _, s := range db.Sequences {
		fmt.Fprintf(&b, "sequence %s current %d\n", s.Name, s.Current)
	}
	for _, tb := range db.Tables {
		fmt.Fprintf(&b, "%s #%d area %q records %d mean %d\n", tb.QualifiedName(), tb.Number, tb.Area, tb.Records, tb.MeanSize)
		for _, f := range tb.Def.Fields {
			fmt.Fprintf(&b, "  %s %s", f.Name, f.Type)
			if f.Extent > 0 {
				fmt.Fprintf(&b, " extent %d", f.Extent)
			}
			if f.LobArea != "" {
				fmt.Fprintf(&b, " lob-area %q", f.LobArea)
			}
			b.WriteString("\n")
		}
		for _, ix := range tb.Def.Indexes {
			fmt.Fprintf(&b, "  index %s", ix.Name)
			for _, flag := range []struct {
				on   bool
				name string
			}{{ix.Primary, "primary"}, {ix.Unique, "unique"}, {ix.Word, "word"}} {
				if flag.on {
					b.WriteString(" " + flag.name)
				}
			}
			fmt.Fprintf(&b, " area %q:", ix.Area)
			for _, f := range ix.Fields {
				b.WriteString(" " + f.Name)
				if f.Descending {
					b.WriteString(" desc")
				}
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// TestRowsMatchFieldTypes checks every value against its field's type.
func TestRowsMatchFieldTypes(t *testing.T) {
	for _, profile := range Profiles() {
		db, err := Generate(profile, 4<<20, 5)
		require.NoError(t, err)
		for _, tb := range db.Tables {
			n := 0
			for r := range tb.Rows {
				require.Len(t, r, len(tb.Def.Fields), tb.Name)
				for i, f := range tb.Def.Fields {
					v := r[i]
					if f.Extent > 0 {
						a, ok := v.([]any)
						require.True(t, ok, "%s.%s: extent field gives []any, got %T", tb.Name, f.Name, v)
						require.Len(t, a, f.Extent)
						v = a[0]
					}
					assertType(t, tb.Name+"."+f.Name, f.Type, v)
				}
				if n++; n == 300 {
					break
				}
			}
		}
	}
}

func assertType(t *testing.T, what, typ string, v any) {
	t.Helper()
	if v == nil {
		return // the unknown value fits every type
	}
	ok := false
	switch typ {
	case "character", "clob":
		_, ok = v.(string)
	case "integer", "int64", "recid":
		_, ok = v.(int64)
	case "decimal":
		_, ok = v.(float64)
	case "logical":
		_, ok = v.(bool)
	case "date":
		var d time.Time
		d, ok = v.(time.Time)
		ok = ok && d.Location() == time.UTC && d.Equal(d.Truncate(24*time.Hour))
	case "datetime":
		_, ok = v.(time.Time)
	case "blob", "raw":
		_, ok = v.([]byte)
	}
	assert.True(t, ok, "%s: %s field holds %T %v", what, typ, v, v)
}

// primaryKeys returns the primary key of every row, as text, in row order.
func primaryKeys(tb *Table) []string {
	pos := []int{}
	for _, f := range tb.Def.Indexes[0].Fields {
		for i, df := range tb.Def.Fields {
			if strings.EqualFold(df.Name, f.Name) {
				pos = append(pos, i)
			}
		}
	}
	var keys []string
	for r := range tb.Rows {
		var b strings.Builder
		for _, p := range pos {
			switch v := r[p].(type) {
			case int64:
				fmt.Fprintf(&b, "%020d|", v) // sorts like the number
			case time.Time:
				b.WriteString(v.Format("20060102|"))
			default:
				fmt.Fprintf(&b, "%s|", strings.ToUpper(fmt.Sprint(v)))
			}
		}
		keys = append(keys, b.String())
	}
	return keys
}

func TestPrimaryKeysAreUniqueAndAscendingIsh(t *testing.T) {
	for _, profile := range Profiles() {
		db, err := Generate(profile, 3<<20, 11)
		require.NoError(t, err)
		for _, tb := range db.Tables {
			keys := primaryKeys(tb)
			sorted := slices.Clone(keys)
			slices.Sort(sorted)
			for i := 1; i < len(sorted); i++ {
				require.NotEqual(t, sorted[i-1], sorted[i], "%s: duplicate primary key", tb.Name)
			}
			if len(keys) < 256 {
				continue
			}
			// Ascending from block to block, shuffled inside a block: the
			// keys are not in order, but each row's key is within a block of
			// its place in key order.
			assert.False(t, slices.IsSorted(keys), "%s: rows come in exact key order", tb.Name)
			rank := map[string]int{}
			for i, k := range sorted {
				rank[k] = i
			}
			for i, k := range keys {
				d := rank[k] - i
				require.Less(t, max(d, -d), block, "%s: row %d is %d places from its key order", tb.Name, i, d)
			}
		}
	}
}

// TestKeyRangesAreUneven splits the primary key value range of a big table
// in four equal parts, as a threaded dump brackets a key range: the parts
// must not hold the same number of records.
func TestKeyRangesAreUneven(t *testing.T) {
	db, err := Generate("erp", 16<<20, 2)
	require.NoError(t, err)
	tb := db.Table("gltr_hist")
	var lo, hi int64 = 1 << 62, 0
	var vals []int64
	for r := range tb.Rows {
		v := r[1].(int64) // gltr_trnbr, after gltr_domain
		vals = append(vals, v)
		lo, hi = min(lo, v), max(hi, v)
	}
	var counts [4]int
	for _, v := range vals {
		counts[min(int((v-lo)*4/(hi-lo+1)), 3)]++
	}
	t.Logf("records per quarter of the key range: %v", counts)
	assert.Greater(t, slices.Max(counts[:]), 2*slices.Min(counts[:]), "brackets of equal key width hold different counts")
}

func TestEncodedSize(t *testing.T) {
	day := time.Date(2020, 1, 2, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		v    any
		want int
	}{
		{nil, 1},
		{true, 1},
		{int64(0), 2},
		{int64(-64), 2},
		{int64(64), 3},
		{"", 2},
		{strings.Repeat("x", 127), 129},
		{strings.Repeat("x", 200), 203},
		{3.5, 9},
		{day, 4},                  // 18263 days: zig-zag 36526 needs a 3-byte varint
		{day.Add(time.Second), 7}, // milliseconds since 1970
		{[]byte("abc"), 5},
		{[]any{1.0, 2.0}, 2 + 18},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, EncodedSize(Row{tt.v}), "%T %v", tt.v, tt.v)
	}
}

// BenchmarkRows measures the generation speed (bytes are encoded record
// bytes, as scaled), next to a baseline in the same run: the same rows
// encoded by oesim's store (store.AppendValue), which is what every row
// costs the simulator after it is generated. Besides MB/s of wall time it
// reports MB per CPU-second of the process (getrusage), which stays
// meaningful on a machine shared with other builds.
func BenchmarkRows(b *testing.B) {
	for _, bc := range []struct {
		profile string
		scale   int64
	}{{"erp", 32 << 20}, {"sports", 32 << 20}, {"erp", 200 << 20}} {
		db, err := Generate(bc.profile, bc.scale, 1)
		require.NoError(b, err)
		name := fmt.Sprintf("%s/%dMB", bc.profile, bc.scale>>20)
		b.Run(name+"/generate", func(b *testing.B) {
			b.SetBytes(db.Bytes())
			b.ReportAllocs()
			defer reportCPU(b, db.Bytes())()
			for b.Loop() {
				for _, tb := range db.Tables {
					for range tb.Rows {
					}
				}
			}
		})
		b.Run(name+"/generate+encode", func(b *testing.B) {
			b.SetBytes(db.Bytes())
			b.ReportAllocs()
			defer reportCPU(b, db.Bytes())()
			var buf []byte
			for b.Loop() {
				for _, tb := range db.Tables {
					for r := range tb.Rows {
						buf = buf[:0]
						for _, v := range r {
							if buf, err = store.AppendValue(buf, v); err != nil {
								b.Fatal(err)
							}
						}
					}
				}
			}
		})
	}
}

// reportCPU starts measuring the process's CPU time; the function it
// returns reports MB per CPU-second over the benchmark's iterations.
func reportCPU(b *testing.B, bytes int64) func() {
	start := cpuTime()
	return func() {
		if cpu := cpuTime() - start; cpu > 0 {
			b.ReportMetric(float64(bytes)*float64(b.N)/(1<<20)/cpu.Seconds(), "MB/cpu-s")
		}
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestRowsStreamInConstantMemory passes 32 MB of rows through and checks
// that the heap never holds more than a fraction of them: rows are made
// one at a time and dropped by the consumer, nothing is buffered.
func TestRowsStreamInConstantMemory(t *testing.T) {
	db, err := Generate("erp", 32<<20, 1)
	require.NoError(t, err)
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapAlloc, ms.HeapAlloc // the schema, the .df, the corpus
	n := 0
	for _, tb := range db.Tables {
		for range tb.Rows {
			if n++; n%20000 == 0 {
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc)
			}
		}
	}
	t.Logf("%d rows, %d MB of records, heap %.1f MB before, %.1f MB at peak", n, db.Bytes()>>20,
		float64(base)/(1<<20), float64(peak)/(1<<20))
	// The collector lets the heap reach twice the live data before it runs
	// (GOGC=100); kept rows would push the peak towards the ~75 MB the
	// 32 MB of records take as Go values.
	assert.Less(t, peak, 2*base+16<<20, "the heap grows by far less than the rows streamed")
}
