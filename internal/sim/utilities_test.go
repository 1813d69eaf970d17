package sim

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
)

func TestBrackets(t *testing.T) {
	tests := []struct {
		name      string
		n         int64
		meanKey   int
		threadnum int
		want      []int64
	}{
		{"root is a leaf: one thread", 100, 10, 4, []int64{100}},
		{"one thread asked", 100000, 10, 1, []int64{100000}},
		// fan-out (8192-64)/(10+6) = 508: 600 records are a full subtree
		// of 508 and a partial one of 92, the uneven split of real life.
		{"two root entries, uneven", 600, 10, 4, []int64{508, 92}},
		{"many root entries, even", 508 * 100, 10, 2, []int64{508 * 50, 508 * 50}},
		{"threads bounded by root entries", 1100, 10, 8, []int64{508, 508, 84}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := brackets(tt.n, tt.meanKey, 8192, tt.threadnum)
			assert.Equal(t, tt.want, got)
			var sum int64
			for _, b := range got {
				sum += b
			}
			assert.Equal(t, tt.n, sum)
		})
	}
}

func TestParseFlags(t *testing.T) {
	fs, err := parseFlags([]string{"customer", "-index", "12", "dir", "-thread", "1", "-RO", "-1"}, "-index", "-thread")
	require.NoError(t, err)
	assert.Equal(t, []string{"customer", "dir", "-1"}, fs.pos)
	assert.Equal(t, map[string]string{"-index": "12", "-thread": "1"}, fs.values)
	assert.True(t, fs.bools["-RO"])
	n, err := fs.intValue("-index", 0)
	require.NoError(t, err)
	assert.Equal(t, 12, n)
	_, err = parseFlags([]string{"-index"}, "-index")
	assert.Error(t, err)
	fs, _ = parseFlags([]string{"-TB", "x"}, "-TB")
	_, err = fs.intValue("-TB", 8)
	assert.Error(t, err)
}

// dumpOne dumps a table and returns the .bd path.
func dumpOne(t *testing.T, env *dlcEnv, db, table string, extra ...string) string {
	dir := filepath.Join(env.work, "d-"+table)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	env.ok(t, "proutil", append([]string{db, "-C", "dump", table, dir}, extra...)...)
	return filepath.Join(dir, table+".bd")
}

// emptyCopy makes an empty database with db's structure and schema.
func emptyCopy(t *testing.T, env *dlcEnv, db, name string) string {
	dir := filepath.Join(env.work, name)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	st, err := os.ReadFile(db + ".st")
	require.NoError(t, err)
	stPath := filepath.Join(dir, name+".st")
	require.NoError(t, os.WriteFile(stPath, []byte(replaceDots(string(st), dir)), 0o644))
	tgt := filepath.Join(dir, name)
	env.ok(t, "prostrct", "create", tgt, stPath, "-blocksize", "8192")
	env.ok(t, "procopy", filepath.Join(env.dlc, "empty8"), tgt)
	env.ok(t, "_progres", "-b", "-db", tgt, "-p", "prodict/load_df.p", "-param", db+".df")
	return tgt
}

func TestLoadRefusesBadInput(t *testing.T) {
	env, db := smallDB(t)
	bd := dumpOne(t, env, db, "Customer")
	tgt := emptyCopy(t, env, db, "tgt")

	load := func(extraEnv []string, args ...string) result {
		return env.run(t, extraEnv, "", "proutil", append([]string{tgt, "-C", "load"}, args...)...)
	}
	t.Run("corrupt record", func(t *testing.T) {
		bad := dumpOne(t, env, db, "Item")
		b, err := os.ReadFile(bad)
		require.NoError(t, err)
		b[len(b)/2] ^= 0x40
		require.NoError(t, os.WriteFile(bad, b, 0o644))
		r := load(nil, bad)
		assert.Equal(t, exitFail, r.code)
		assert.False(t, openedge.HasMessage(r.out, openedge.MsgLoadComplete), r.out)
		assert.Contains(t, r.out, "(oesim)")
	})
	t.Run("truncated file", func(t *testing.T) {
		b, err := os.ReadFile(bd)
		require.NoError(t, err)
		cut := filepath.Join(env.work, "cut.bd")
		require.NoError(t, os.WriteFile(cut, b[:len(b)-100], 0o644))
		r := load(nil, cut)
		assert.Equal(t, exitFail, r.code)
		assert.Contains(t, r.out, "truncated")
	})
	t.Run("missing table", func(t *testing.T) {
		bare := filepath.Join(env.work, "bare")
		env.ok(t, "prodb", bare, "empty")
		r := env.run(t, nil, "", "proutil", bare, "-C", "load", bd)
		assert.Equal(t, exitFail, r.code)
		assert.Contains(t, r.out, "was not found")
	})
	t.Run("schema CRC mismatch", func(t *testing.T) {
		// A target whose Customer lacks a field.
		f, err := os.Open(db + ".df")
		require.NoError(t, err)
		df, err := openedge.ParseDF(f, db+".df")
		f.Close()
		require.NoError(t, err)
		var tables []*openedge.DFTable
		for _, tb := range df.Tables() {
			if strings.EqualFold(tb.Name, "Customer") {
				cp := *tb
				cp.Area = "" // the Schema Area of a prodb database
				cp.Fields = cp.Fields[:len(cp.Fields)-1]
				cp.Indexes = nil
				for _, ix := range tb.Indexes {
					ic := *ix
					ic.Area = ""
					cp.Indexes = append(cp.Indexes, &ic)
				}
				tables = append(tables, &cp)
			}
		}
		odd := openedge.NewDF(tables, nil, "ISO8859-1")
		path := filepath.Join(env.work, "odd.df")
		w, err := os.Create(path)
		require.NoError(t, err)
		_, err = odd.WriteTo(w)
		require.NoError(t, err)
		w.Close()
		target := filepath.Join(env.work, "odd", "odd")
		require.NoError(t, os.MkdirAll(filepath.Dir(target), 0o755))
		env.ok(t, "prodb", target, "empty")
		env.ok(t, "_progres", "-b", "-db", target, "-p", "prodict/load_df.p", "-param", path)
		r := env.run(t, nil, "", "proutil", target, "-C", "load", bd)
		assert.Equal(t, exitFail, r.code)
		assert.Contains(t, r.out, "CRC")
	})
	t.Run("build indexes needs an empty table", func(t *testing.T) {
		// (The truncated load above left Customer records behind.)
		order := dumpOne(t, env, db, "Order")
		out := env.ok(t, "proutil", tgt, "-C", "load", order, "build", "indexes")
		assert.True(t, openedge.HasMessage(out, 1515), out)
		r := load(nil, order, "build", "indexes")
		assert.Equal(t, exitFail, r.code)
		assert.Contains(t, r.out, "empty table")
	})
}

func TestDumpFaults(t *testing.T) {
	env, db := smallDB(t)
	tgt := emptyCopy(t, env, db, "tgt")
	dir := filepath.Join(env.work, "f")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for _, tc := range []struct{ rule, want string }{
		{"dump:Customer:corrupt=5", "checksum"},
		{"dump:Customer:truncate-after=10", "truncated"},
		{"dump:Customer:truncate-after=0", "truncated"}, // the header only
	} {
		t.Run(tc.rule, func(t *testing.T) {
			out := env.run(t, []string{"OESIM_FAULTS=" + tc.rule}, "", "proutil", db, "-C", "dump", "Customer", dir)
			require.Equal(t, 0, out.code, "the damage is silent at dump time: %s", out.out)
			r := env.run(t, nil, "", "proutil", tgt, "-C", "load", filepath.Join(dir, "Customer.bd"))
			assert.Equal(t, exitFail, r.code)
			assert.Contains(t, r.out, tc.want)
		})
	}
	t.Run("exit", func(t *testing.T) {
		r := env.run(t, []string{"OESIM_FAULTS=dump:*:exit=7"}, "", "proutil", db, "-C", "dump", "Item", dir)
		assert.Equal(t, 7, r.code)
	})
	t.Run("diskfull in a load", func(t *testing.T) {
		bd := dumpOne(t, env, db, "OrderLine")
		r := env.run(t, []string{"OESIM_FAULTS=load:OrderLine:diskfull-after=300000"}, "", "proutil", tgt, "-C", "load", bd)
		assert.Equal(t, exitFail, r.code)
		assert.True(t, openedge.HasMessage(r.out, openedge.MsgInsufficientSpace), r.out)
		n := counts(analysis(t, env, tgt))["PUB.OrderLine"]
		assert.Positive(t, n, "the segments written before the disk filled stay")
	})
	t.Run("diskfull", func(t *testing.T) {
		r := env.run(t, []string{"OESIM_FAULTS=dump:Customer:diskfull-after=1000"}, "", "proutil", db, "-C", "dump", "Customer", dir)
		assert.Equal(t, exitFail, r.code)
		assert.Contains(t, r.out, "errno = 28")
	})
}

func TestDumpOptions(t *testing.T) {
	env, db := smallDB(t)
	s := mustOpenControl(t, db)
	cust := s.Table("Customer")
	require.NotNil(t, cust)
	var second, word int
	for _, ix := range cust.Indexes {
		if ix.Word {
			word = ix.Number
		} else if !ix.Primary {
			second = ix.Number
		}
	}
	dir := filepath.Join(env.work, "o")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	if second != 0 {
		out := env.ok(t, "proutil", db, "-C", "dump", "Customer", dir, "-index", itoa(second))
		assert.Contains(t, out, "("+itoa(second)+") for dump of table Customer. (17813)")
	}
	if word != 0 {
		r := env.run(t, nil, "", "proutil", db, "-C", "dump", "Customer", dir, "-index", itoa(word))
		assert.Equal(t, exitFail, r.code)
		assert.Contains(t, r.out, "word index")
	}
	r := env.run(t, nil, "", "proutil", db, "-C", "dump", "NoSuchTable", dir)
	assert.Equal(t, exitFail, r.code)

	out := env.ok(t, "proutil", db, "-C", "dumpspecified", "Customer.CustNum", "GT", "10", "AND", "LE", "20", dir)
	res, err := openedge.ParseDumpOutput(out)
	require.NoError(t, err)
	assert.LessOrEqual(t, res.Records, int64(10))
}

// TestIdxbuildSortsInTFMemory: keys that fit in -TF memory are sorted in
// memory; when they do not (OESIM_MEMORY stands for a small machine), or
// with -TF 0, they go through the sort file in -T, which is reported.
func TestIdxbuildSortsInTFMemory(t *testing.T) {
	env, db := smallDB(t)
	sortK := regexp.MustCompile(`A total of (\d+)K of temporary sort disk space was used`)
	spilled := func(out string) int {
		n := 0
		for _, m := range sortK.FindAllStringSubmatch(out, -1) {
			k, _ := strconv.Atoi(m[1])
			n += k
		}
		return n
	}
	for _, tc := range []struct {
		name  string
		env   []string
		args  []string
		spill bool
	}{
		{"fits in -TF 50 of 1 GB", []string{"OESIM_MEMORY=1GB"}, nil, false},
		{"does not fit in -TF 50 of 64 KB", []string{"OESIM_MEMORY=64KB"}, nil, true},
		{"-TF 0: always the sort file", []string{"OESIM_MEMORY=1GB"}, []string{"-TF", "0"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := env.run(t, tc.env, "", "proutil", append([]string{db, "-C", "idxbuild", "all", "-T", env.work}, tc.args...)...)
			require.Equal(t, exitOK, r.code, r.out)
			assert.Equal(t, tc.spill, spilled(r.out) > 0, r.out)
		})
	}
}

func TestIdxbuildLimits(t *testing.T) {
	env, db := smallDB(t)
	for _, args := range [][]string{{"-TB", "65"}, {"-TM", "33"}, {"-TB", "32", "-TMB", "16"}, {"-pfactor", "20"}} {
		r := env.run(t, nil, "", "proutil", append([]string{db, "-C", "idxbuild", "all"}, args...)...)
		assert.Equal(t, exitFail, r.code, "%v", args)
		assert.False(t, openedge.HasMessage(r.out, openedge.MsgIndexesRebuilt))
	}
	r := env.run(t, nil, "", "proutil", db, "-C", "idxbuild", "all", "-T", filepath.Join(env.work, "no-such-dir"))
	assert.Equal(t, exitFail, r.code)
	assert.True(t, openedge.HasMessage(r.out, openedge.MsgCannotOpen), r.out)
	r = env.run(t, []string{"OESIM_FAULTS=idxbuild:diskfull-after=1000,once"}, "", "proutil", db, "-C", "idxbuild", "all", "-T", env.work, "-TF", "0")
	assert.Equal(t, exitFail, r.code)
	assert.True(t, openedge.HasMessage(r.out, openedge.MsgSystemIOError), r.out)
	_, err := openedge.ParseIdxbuildOutput(r.out)
	assert.Error(t, err, "a failed rebuild has no success marker")

	out := env.ok(t, "proutil", db, "-C", "idxbuild", "table", "Customer", "-rusage")
	res, err := openedge.ParseIdxbuildOutput(out)
	require.NoError(t, err)
	assert.Positive(t, res.Indexes)
	assert.Contains(t, out, "Resource usage")
	// The menu, answered on stdin as PCT does.
	r = env.run(t, nil, "some\nCustomer\nName\n!\ny\ny\n", "proutil", db, "-C", "idxbuild")
	require.Equal(t, 0, r.code, r.out)
	res, err = openedge.ParseIdxbuildOutput(r.out)
	require.NoError(t, err)
	assert.Equal(t, 1, res.Indexes)
	lg, err := os.ReadFile(db + ".lg")
	require.NoError(t, err)
	assert.Contains(t, string(lg), "Index rebuild complete. 0 error(s) encountered.")
}

func TestAdministration(t *testing.T) {
	env, db := smallDB(t)
	out := env.ok(t, "proutil", db, "-C", "truncate", "bi", "-bi", "16384", "-biblocksize", "16")
	assert.Contains(t, out, "Before-image block size set to 16 kb (16384 bytes). (3781)")
	assert.Contains(t, out, "Before-image cluster size set to 16384 kb. (1620)")
	out = env.ok(t, "proutil", db, "-C", "describe")
	d, err := openedge.ParseDescribe(out)
	require.NoError(t, err, out)
	assert.Equal(t, openedge.Description{BlockSize: 8192, BIBlockSize: 16384, BIClusterKB: 16384, Codepage: "ISO8859-1",
		Features: []openedge.Feature{{ID: 5, Name: "Large Files", Active: "Yes"}, {ID: 9, Name: "64 Bit DBKEYS", Active: "Yes"}}}, d)

	// convchar convert sets the code page describe prints.
	env.ok(t, "proutil", db, "-C", "convchar", "convert", "UTF-8")
	d, err = openedge.ParseDescribe(env.ok(t, "proutil", db, "-C", "describe"))
	require.NoError(t, err)
	assert.Equal(t, "UTF-8", d.Codepage)

	// -csoutput writes the machine-readable twin of the report.
	prefix := filepath.Join(env.work, "cs")
	out = env.ok(t, "proutil", db, "-C", "dbanalys", "-csoutput", "-csfilePrefix", prefix)
	report, err := openedge.ParseAnalysis(strings.NewReader(out), "dbanalys")
	require.NoError(t, err)
	f, err := os.Open(prefix + ".tab.txt")
	require.NoError(t, err)
	cs, err := openedge.ParseCSTab(f, prefix+".tab.txt")
	f.Close()
	require.NoError(t, err)
	assert.Equal(t, counts(report), counts(cs))
	assert.FileExists(t, prefix+".ix.txt")

	// Sequences round-trip: TestSeqvalsExportLayout.
	// dump_df.p writes the schema back as a .df with every table.
	dfOut := filepath.Join(env.work, "out.df")
	env.ok(t, "_progres", "-b", "-db", db, "-p", "prodict/dump_df.p", "-param", "ALL,"+dfOut+",")
	f, err = os.Open(dfOut)
	require.NoError(t, err)
	df, err := openedge.ParseDF(f, dfOut)
	f.Close()
	require.NoError(t, err)
	assert.Len(t, df.Tables(), len(mustOpenControl(t, db).Tables))

	r := env.run(t, nil, "", "_progres", "-b", "-db", db, "-p", "hello.p")
	assert.Equal(t, exitFail, r.code)
	assert.Contains(t, r.out, "(293)")

	// tablemove keeps every record and rebuilds the indexes.
	before := counts(analysis(t, env, db))
	out = env.ok(t, "prostrct", "list", db, filepath.Join(env.work, "list.st"))
	assert.Contains(t, out, "Area Name: Schema Area")
	add := filepath.Join(env.work, "add.st")
	require.NoError(t, os.WriteFile(add, []byte(`d "Moved":40,64;8 `+filepath.Dir(db)+"\n"), 0o644))
	env.ok(t, "prostrct", "add", db, add)
	env.ok(t, "proutil", db, "-C", "tablemove", "Customer", "Moved", "Moved")
	after := analysis(t, env, db)
	assert.Equal(t, before, counts(after))
	for _, ts := range after.Tables {
		if ts.Name == "Customer" {
			assert.Equal(t, "Moved", ts.Area)
		}
	}
	// truncate area empties it.
	env.ok(t, "proutil", db, "-C", "truncate", "area", "Moved")
	assert.Zero(t, counts(analysis(t, env, db))["PUB.Customer"])

	// -validate checks without creating anything.
	good := filepath.Join(env.work, "good.st")
	require.NoError(t, os.WriteFile(good, []byte("b .\nd \"Schema Area\":6,64;1 .\nd \"A\":7,64;64 .\n"), 0o644))
	out = env.ok(t, "prostrct", "create", filepath.Join(env.work, "v"), good, "-validate")
	assert.Contains(t, out, "valid")
	assert.NoFileExists(t, filepath.Join(env.work, "v.db"))

	// prostrct create refuses a bad .st naming the line.
	bad := filepath.Join(env.work, "bad.st")
	require.NoError(t, os.WriteFile(bad, []byte("d \"X\":7,33;8 .\n"), 0o644))
	r = env.run(t, nil, "", "prostrct", "create", filepath.Join(env.work, "bad"), bad)
	assert.Equal(t, exitFail, r.code)
	assert.Contains(t, r.out, "bad.st:1")
}

func TestStartFaultsOnOtherUtilities(t *testing.T) {
	env, db := smallDB(t)
	r := env.run(t, []string{"OESIM_FAULTS=tabanalys:exit=9"}, "", "proutil", db, "-C", "tabanalys")
	assert.Equal(t, 9, r.code)
	r = env.run(t, []string{"OESIM_FAULTS=procopy:exit=4"}, "", "procopy", filepath.Join(env.dlc, "empty8"), filepath.Join(env.work, "x"))
	assert.Equal(t, 4, r.code)
	// A table rule does not strike a run that is not about that table.
	r = env.run(t, []string{"OESIM_FAULTS=load:PUB.Customer:exit=5"}, "", "proutil", db, "-C", "tabanalys")
	assert.Equal(t, 0, r.code)
}

// With OESIM_DISK_MBPS set, the utilities draw their I/O from the shared
// virtual disk, whose state lives in the oesim state directory (no timing
// is asserted here; the disk model's arithmetic is tested in vdisk).
func TestVirtualDiskIsCharged(t *testing.T) {
	env, db := smallDB(t)
	state := filepath.Join(filepath.Dir(env.dlc), "state")
	dir := filepath.Join(env.work, "v")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	r := env.run(t, nil, "", "proutil", db, "-C", "dump", "Customer", dir)
	require.Equal(t, 0, r.code)
	_, err := os.Stat(filepath.Join(state, "vdisk.state"))
	assert.True(t, os.IsNotExist(err), "the disk is off by default: nothing charged")

	r = env.run(t, []string{"OESIM_DISK_MBPS=2000", "OESIM_DISK_IOPS=100000"}, "", "proutil", db, "-C", "dump", "Customer", dir)
	require.Equal(t, 0, r.code, r.out)
	assert.FileExists(t, filepath.Join(state, "vdisk.state"), "the dump charged the shared disk")
}
