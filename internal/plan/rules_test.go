package plan

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/units"
)

func TestRPB(t *testing.T) {
	tests := []struct {
		block int
		mean  int64
		want  int
	}{
		{8192, 59, 256},  // docs example: 8092/61 = 132.7, next power of two
		{8192, 100, 128}, // Koufalis: "100 B records give about 80, so choose 128"
		{8192, 126, 64},  // 8092/128 = 63.2 -> 64
		{8192, 127, 64},  // 8092/129 = 62.7 -> 64
		{8192, 2000, 8},  // 8092/2002 = 4.04 -> 8
		{8192, 8090, 1},  // one record fills the usable block exactly
		{8192, 20000, 1}, // a record bigger than a block still gets 1
		{8192, 1, 256},   // capped at 256
		{4096, 174, 32},  // forum example (4096-100)/176 = 22.7 -> 32
		{1024, 40, 32},   // 924/42 = 22 -> 32
		{8192, 0, 256},   // mean 0 (no records): the cap
		{8192, -5, 256},  // never negative
		{2048, 1946, 1},  // exactly one
		{2048, 1945, 2},  // just over one
		{8192, 4044, 2},  // 8092/4046 = 2 exactly
		{8192, 4045, 2},  // 8092/4047 = 1.9995 -> 2
	}
	for _, tt := range tests {
		got := RPB(tt.block, tt.mean)
		assert.Equal(t, tt.want, got, "RPB(%d, %d)", tt.block, tt.mean)
		if tt.mean > 0 {
			raw := rawRPB(tt.block, tt.mean)
			// The chosen RPB is the smallest power of two >= raw, within 1..256.
			assert.True(t, float64(got) >= raw || got == MaxRPB, "RPB(%d,%d)=%d below raw %.2f", tt.block, tt.mean, got, raw)
			assert.True(t, got == MinRPB || float64(got/2) < raw, "RPB(%d,%d)=%d not the smallest power >= %.2f", tt.block, tt.mean, got, raw)
		}
	}
}

func TestAreaNames(t *testing.T) {
	n := newAreaNamer()
	assert.Equal(t, "cust_order_Data", n.name("cust-order", "_Data"))
	assert.Equal(t, "cust_order_2_Data", n.name("cust_order", "_Data"), "a dash and an underscore must not collide")
	assert.Equal(t, "CUST_ORDER_3_Data", n.name("CUST_ORDER", "_Data"), "names are unique regardless of case")
	assert.Equal(t, "pay_roll_2_Data", n.name("pay#roll$2", "_Data"))
	assert.Equal(t, "table_Data", n.name("---", "_Data"), "nothing left after sanitising")
	long := n.name("a-very-long-table-name-for-areas-and-more", "_Index")
	assert.LessOrEqual(t, len(long), maxAreaName)
	assert.Equal(t, "a_very_long_table_name_for_Index", long)
	assert.NotEqual(t, "Schema Area", n.name("Schema Area", ""), "the Schema Area name is taken")
	for _, s := range []string{"ä-ö", "x y", `q"uote`, "tab\tname"} {
		got := n.name(s, "_Data")
		assert.Regexp(t, `^[A-Za-z0-9_]+$`, got, "from %q", s)
	}
}

func TestLayoutExtents(t *testing.T) {
	o := testOptions()
	o.MaxExtentBytes = 1 * units.GB
	ring := newDirRing([]string{"/d1", "/d2", "/d3"})

	ext, _, _ := layoutExtents(3*units.GB, 3*units.GB, true, o, ring)
	// 3G + 20% = 3.6G over at most 1G each: 4 fixed of the same size, then variable.
	require.Len(t, ext, 5)
	var fixedKB int64
	for i, e := range ext[:4] {
		assert.True(t, e.Fixed)
		assert.Equal(t, ext[0].SizeKB, e.SizeKB, "equal stripes")
		assert.Zero(t, e.SizeKB%128, "a multiple of 16 blocks of 8K")
		assert.LessOrEqual(t, e.SizeKB*1024, o.MaxExtentBytes)
		assert.Equal(t, []string{"/d1", "/d2", "/d3", "/d1"}[i], e.Path, "each to the directory with the fewest fixed bytes")
		fixedKB += e.SizeKB
	}
	assert.GreaterOrEqual(t, fixedKB*1024, 3*units.GB*12/10, "holds data plus headroom")
	assert.False(t, ext[4].Fixed)
	assert.Equal(t, "/d1", ext[4].Path, "the variable extents take the directories in turn")

	ext, why, _ := layoutExtents(100*units.KB, 100*units.KB, true, o, ring)
	assert.Equal(t, []Extent{{Path: "/d2"}}, ext)
	assert.Contains(t, why, "one variable extent")

	ext, why, _ = layoutExtents(5*units.GB, 5*units.GB, false, o, ring)
	assert.Len(t, ext, 1)
	assert.Contains(t, why, "size unknown")

	// Exactly the maximum: one fixed extent, no rounding past the cap.
	o.HeadroomPct = 0
	ext, _, _ = layoutExtents(1*units.GB, 1*units.GB, true, o, ring)
	require.Len(t, ext, 2)
	assert.Equal(t, int64(1024*1024), ext[0].SizeKB)

	// More extents than an area can have is an error that says what to do.
	o.MaxExtentBytes = 4 * units.MB
	_, _, err := layoutExtents(8*units.GB, 8*units.GB, true, o, ring)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "raise --max-extent")
}

// TestFixedExtentsShareTheDisks: areas of one fixed extent and one
// variable each, the usual shape, over two data directories. One turn for
// both kinds put every fixed extent on the second disk and every variable
// one on the first (dba-review: the erp profile's plan had /data1 0 B).
func TestFixedExtentsShareTheDisks(t *testing.T) {
	o := testOptions()
	ring := newDirRing([]string{"/d1", "/d2"})
	perDir := map[string]int64{}
	var largestKB int64
	for _, mb := range []int64{3, 8, 18, 13, 24, 20, 11, 15, 2, 7} {
		ext, _, err := layoutExtents(mb*units.MB, mb*units.MB, true, o, ring)
		require.NoError(t, err)
		require.Len(t, ext, 2, "%d MB: one fixed extent and one variable", mb)
		perDir[ext[0].Path] += ext[0].SizeKB
		largestKB = max(largestKB, ext[0].SizeKB)
	}
	require.Len(t, perDir, 2, "fixed extents on both disks: %v", perDir)
	assert.LessOrEqual(t, abs(perDir["/d1"]-perDir["/d2"]), largestKB, "no disk holds more than one extent's worth more: %v", perDir)
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// TestStartupParams: what Progress' parameter pages say, whatever the
// machine (dba-review): -spin at most the 10,000 x CPUs they call
// effective (it was 20,000 x cores), and the buffer counts never under the
// 12.2 defaults of 64 (-bibufs was 25, -aibufs 32: less than a 12.x
// target has without a .pf).
func TestStartupParams(t *testing.T) {
	for _, cores := range []int{1, 2, 16, 64} {
		t.Run(strconv.Itoa(cores), func(t *testing.T) {
			o := testOptions()
			o.Machine.Cores = cores
			params, _ := startupParams(o, 10*units.GB)
			got := map[string]string{}
			for _, p := range params {
				got[p.Name] = p.Value
			}
			if cores == 1 {
				assert.NotContains(t, got, "-spin", "one core: spinning only delays the holder")
			} else {
				assert.Equal(t, strconv.Itoa(10000*cores), got["-spin"])
			}
			for _, name := range []string{"-bibufs", "-aibufs", "-lruskips"} {
				n, err := strconv.Atoi(got[name])
				require.NoError(t, err, name)
				assert.GreaterOrEqual(t, n, map[string]int{"-bibufs": 64, "-aibufs": 64, "-lruskips": 100}[name], "%s under the 12.2 default", name)
			}
			assert.Equal(t, "250", got["-napmax"], "Progress: not to be changed from 250")
		})
	}
}

func TestTuneBI(t *testing.T) {
	cluster := int64(biClusterKB) * 1024
	tests := []struct {
		name      string
		load      int64
		maxExtent int64
		fixedKB   int64 // 0: the variable extent only
	}{
		{"no records", 0, 2 * units.GB, 0},
		{"a few MiB fill no cluster", 3 * units.MB, 2 * units.GB, 0},
		{"just under a cluster", cluster - 1, 2 * units.GB, 0},
		{"exactly a cluster", cluster, 2 * units.GB, biClusterKB},
		{"the whole clusters, the rest to the variable extent", 40 * units.MB, 2 * units.GB, 2 * biClusterKB},
		{"at most 16 clusters", 8 * units.GB, 2 * units.GB, biMaxClusters * biClusterKB},
		{"at most --max-extent", 8 * units.GB, 100 * units.MB, 100 * 1024},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := testOptions()
			o.MaxExtentBytes = tt.maxExtent
			bi := tuneBI(o, "/bi", tt.load)
			assert.Equal(t, biClusterKB, bi.ClusterSizeKB)
			last := bi.Extents[len(bi.Extents)-1]
			assert.False(t, last.Fixed, "a variable extent always comes last")
			if tt.fixedKB == 0 {
				assert.Len(t, bi.Extents, 1)
				assert.Contains(t, bi.Reason, "one variable extent")
				return
			}
			require.Len(t, bi.Extents, 2)
			assert.True(t, bi.Extents[0].Fixed)
			assert.Equal(t, tt.fixedKB, bi.Extents[0].SizeKB)
			assert.Zero(t, bi.Extents[0].SizeKB%extentUnitKB(o.BlockSize), "a multiple of 16 blocks")
			assert.LessOrEqual(t, bi.Extents[0].SizeKB*1024, tt.load, "never more than the load's notes")
		})
	}
}

func TestSpaceFor(t *testing.T) {
	// 1000 records of 10 B: RPB 256 caps the block at 256 records, so 4
	// blocks, not the 1 block 10,000 bytes would fit in; one cluster of 8.
	tb := &table{records: 1000, bytes: 10_000, indexes: 2, indexBytes: 100}
	data, index := spaceFor(tb, 256, 8, 8, 8192)
	assert.Equal(t, int64(8*8192), data)
	assert.Equal(t, int64(2*8*8192), index, "one cluster per index at least")
	// Space-bound: 1G of 500 B records at RPB 32 needs bytes/(B-H) blocks
	// (123,578), more than records/RPB (62,500).
	tb = &table{records: 2_000_000, bytes: 1_000_000_000}
	data, _ = spaceFor(tb, 32, 512, 64, 8192)
	blocks := (int64(1_000_000_000) + 8091) / 8092
	assert.Equal(t, (blocks+511)/512*512*8192, data)
	data, index = spaceFor(&table{}, 64, 8, 8, 8192)
	assert.Zero(t, data+index, "an empty table takes nothing yet")
}

func TestTuneIdxbuild(t *testing.T) {
	for _, cores := range []int{1, 2, 3, 4, 6, 8, 12, 16, 64} {
		for _, mem := range []int64{512 * units.MB, 2 * units.GB, 16 * units.GB, 256 * units.GB} {
			x := tuneIdxbuild(Machine{Cores: cores, MemoryBytes: mem}, 8192)
			assert.LessOrEqual(t, x.Threadnum*x.Mergethreads, 2*cores, "threadnum x mergethreads within 2 x %d cores", cores)
			assert.GreaterOrEqual(t, x.Threadnum, 1)
			assert.GreaterOrEqual(t, x.Mergethreads, 1)
			assert.Equal(t, cores, x.Datascanthreads)
			assert.GreaterOrEqual(t, x.TMB, x.TB, "idxbuild exits when -TMB < -TB")
			assert.LessOrEqual(t, x.TB, 64)
			assert.LessOrEqual(t, x.TM, 32)
			assert.True(t, x.TF >= 0 && x.TF <= 80)
			// The KB 000037016 total stays within memory.
			scan := int64(x.Datascanthreads*x.TMB) * units.KB
			groups := int64((x.TMB*x.TM+x.TMB)*x.Mergethreads*x.Threadnum) * units.KB
			if x.TF > 0 {
				assert.LessOrEqual(t, scan+groups+mem*int64(x.TF)/100, mem, "cores %d mem %d", cores, mem)
			}
			assert.NotEmpty(t, x.Reason)
		}
	}
	x := tuneIdxbuild(Machine{Cores: 8, MemoryBytes: 16 * units.GB}, 8192)
	assert.Equal(t, 4, x.Threadnum, "seed 003's best run: 4 x 4 on 8 cores")
	assert.Equal(t, 4, x.Mergethreads)
	assert.Equal(t, 80, x.TF)
	small := tuneIdxbuild(Machine{Cores: 2, MemoryBytes: 2 * units.GB}, 4096)
	assert.Less(t, small.TF, 80, "-TF comes down when memory is small")
	assert.Zero(t, small.Pfactor, "-pfactor is honoured on 8K blocks only")
	assert.Contains(t, strings.Join(x.Command("DB"), " "), "-threadnum 4 -mergethreads 4 -datascanthreads 8")
}

func TestDetectMachine(t *testing.T) {
	m := DetectMachine()
	assert.GreaterOrEqual(t, m.Cores, 1)
}

// TestExtentsStayUnder2GiB: without --max-extent above 2GB every extent
// the plan writes is one a database without large files takes (below
// 2 GiB, Progress KB P4211), however the data divides; above it the plan
// says the target needs large files, and Check holds plan.json to it.
func TestExtentsStayUnder2GiB(t *testing.T) {
	tests := []struct {
		name       string
		blockSize  int
		maxExtent  int64
		data       int64
		wantFixed  []int64 // KB of each fixed extent
		largeFiles bool
	}{
		{"exactly the default cap: two extents, not one of 2 GiB", 8192, 2 * units.GB, 2 * units.GB, []int64{1048576, 1048576}, false},
		{"just under the limit: one", 8192, 2 * units.GB, 2097024 * units.KB, []int64{2097024}, false},
		{"1 KB blocks, the limit is 2097136", 1024, 2 * units.GB, 2097136 * units.KB, []int64{2097136}, false},
		{"a cap above 2GB asks for large files", 8192, 4 * units.GB, 4 * units.GB, []int64{4194304}, true},
		{"a cap above 2GB that no area reaches", 8192, 4 * units.GB, units.GB, []int64{1048576}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := testOptions()
			o.BlockSize, o.MaxExtentBytes, o.HeadroomPct = tt.blockSize, tt.maxExtent, 0
			ext, _, err := layoutExtents(tt.data, tt.data, true, o, newDirRing([]string{"/d"}))
			require.NoError(t, err)
			var fixed []int64
			for _, e := range ext {
				if e.Fixed {
					fixed = append(fixed, e.SizeKB)
				}
			}
			assert.Equal(t, tt.wantFixed, fixed)

			p := &Plan{Version: PlanVersion, BlockSize: tt.blockSize,
				Areas: []Area{{Name: "Big", Number: 7, Kind: AreaData, RPB: 64, BPC: 512, Extents: ext}}}
			assert.Equal(t, tt.largeFiles, len(p.Structure().LargeFileExtents(tt.blockSize)) > 0)
		})
	}
}

// TestCheckLargeFiles: a target.st extent of 2 GiB or more is refused,
// naming its line, unless plan.json says the target has large files.
func TestCheckLargeFiles(t *testing.T) {
	p := &Plan{Version: PlanVersion, BlockSize: 8192, Areas: []Area{{Name: "Big", Number: 7, Kind: AreaData, RPB: 64, BPC: 512,
		Extents: []Extent{{Path: "/d", Fixed: true, SizeKB: 2097024}, {Path: "/d", Fixed: true, SizeKB: 2097024}, {Path: "/d"}}}}}
	st := p.Structure()
	require.NoError(t, Check(p, st, nil), "extents under 2 GiB need nothing")

	tests := []struct {
		name       string
		text       string
		largeFiles bool
		want       string // "" valid
	}{
		{"one extent hand-edited to 2 GiB", "d \"Schema Area\":6,64;1 .\nd \"Big\":7,64;512 /d f 2097152\nd \"Big\":7,64;512 /d\n", false,
			"target.st:2: an extent of 2097152 KB needs large files"},
		{"a BI extent of 3 GB", "b /bi f 3145728\nb /bi\nd \"Schema Area\":6,64;1 .\nd \"Big\":7,64;512 /d\n", false,
			"target.st:1: an extent of 3145728 KB needs large files"},
		{"a variable extent's maximum over 2 GiB", "d \"Schema Area\":6,64;1 .\nd \"Big\":7,64;512 /d v 4194304\n", false,
			"target.st:2: an extent of 4194304 KB needs large files"},
		{"plan.json says large files", "d \"Schema Area\":6,64;1 .\nd \"Big\":7,64;512 /d f 4194304\nd \"Big\":7,64;512 /d\n", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := openedge.ParseStructure(strings.NewReader(tt.text), FileStructure)
			require.NoError(t, err)
			q := clone(t, p)
			q.LargeFiles = tt.largeFiles
			err = Check(q, st, nil)
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestPlanLargeFiles: a plan of a 50 GB table keeps every extent under
// 2 GiB by default; with --max-extent 8GB its extents need large files,
// plan.json says so, placement.md tells the DBA, and Check takes it.
func TestPlanLargeFiles(t *testing.T) {
	giant := profiles()[0]
	require.Equal(t, "giant", giant.name)
	for _, tt := range []struct {
		name      string
		maxExtent int64
		large     bool
	}{{"default", DefaultMaxExtentBytes, false}, {"--max-extent 8GB", 8 * units.GB, true}} {
		t.Run(tt.name, func(t *testing.T) {
			in, df := giant.input(t)
			o := giant.options()
			o.MaxExtentBytes = tt.maxExtent
			p, err := Make(in, o)
			require.NoError(t, err)
			assert.Equal(t, tt.large, p.LargeFiles)
			assert.Equal(t, tt.large, len(p.Structure().LargeFileExtents(p.BlockSize)) > 0)
			files, err := Render(p, df)
			require.NoError(t, err)
			for _, f := range files {
				if f.Name == FilePlacement {
					assert.Equal(t, tt.large, strings.Contains(string(f.Data), "**Large files:**"))
				}
			}
			require.NoError(t, Check(p, p.Structure(), nil))
		})
	}
}

// TestAlternatePoolB2: the objects a .df assigns to the Alternate Buffer
// Pool get a -B2 in target.pf sized from the report (dba-review: target.df
// kept the assignments and target.pf gave the pool no buffers, so the
// objects shared -B again); an object the report does not size is named,
// one of a table the report does not list is left out.
func TestAlternatePoolB2(t *testing.T) {
	p := erpProfile()
	in, _ := p.input(t)
	o := p.options()
	pl, err := Make(in, o)
	require.NoError(t, err)
	for _, prm := range pl.Startup {
		assert.NotEqual(t, "-B2", prm.Name, "no assignment, no -B2")
	}

	in.AlternatePool = []openedge.AlternatePoolObject{
		{Object: "TABLE", Table: "CODE_MSTR"}, // 3000 records of 45 B: 132 KiB, 17 blocks
		{Object: "INDEX", Table: "code_mstr", Name: "ix1"},
		{Object: "INDEX", Table: "code_mstr", Name: "gone"},
		{Object: "TABLE", Table: "ghost"},
	}
	pl, err = Make(in, o)
	require.NoError(t, err)
	var b2 *Param
	for i := range pl.Startup {
		if pl.Startup[i].Name == "-B2" {
			b2 = &pl.Startup[i]
		}
	}
	require.NotNil(t, b2)
	assert.Equal(t, "1000", b2.Value, "the objects are small: the floor")
	assert.Contains(t, b2.Reason, "the 1 table(s), 2 index(es) and 0 LOB field(s)")
	assert.Contains(t, b2.Reason, "no size for index gone of PUB.code_mstr")

	// A big one: its blocks plus the headroom.
	in.AlternatePool = []openedge.AlternatePoolObject{{Object: "TABLE", Table: "gltr_hist"}}
	pl, err = Make(in, o)
	require.NoError(t, err)
	var gltr Placement
	for _, tp := range pl.Tables {
		if tp.Table == "PUB.gltr_hist" {
			gltr = tp
		}
	}
	blocks := ceilDiv(gltr.Bytes, int64(o.BlockSize-BlockOverhead))
	want := ceilDiv(blocks*int64(o.BlockSize)*(100+int64(o.HeadroomPct))/100, int64(o.BlockSize))
	assert.Equal(t, strconv.FormatInt(want, 10), pl.Startup[len(pl.Startup)-1].Value)
}
