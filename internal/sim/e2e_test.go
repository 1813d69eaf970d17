package sim

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/sim/store"
)

// e2eScale is the size of the generated database: small by default so that
// go test ./... stays fast; OESIM_E2E_SCALE=200MB runs the real-size case.
func e2eScale() string {
	if s := os.Getenv("OESIM_E2E_SCALE"); s != "" {
		return s
	}
	return "20MB"
}

// targetST puts everything in three Type II areas: the "after" layout a
// DBA wants instead of the generator's Type I areas.
const targetST = `b .
d "Schema Area":6,64;1 .
d "Data":7,64;64 . f 8192
d "Data":7,64;64 .
d "Index":8,64;8 .
d "Small":9,32;8 .
`

// TestEndToEnd does by hand what a DBA's dump/load script does, with the
// utilities as separate processes: generate a source, create a target from
// another .st, procopy, load the .df, dump every table (served source,
// four dumps at a time), load every file (served target, four loads at a
// time), idxbuild all, tabanalys both: every count must be equal. Then the
// same load with a crash injected in one table: tabanalys shows exactly
// that table short.
func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run")
	}
	env, src := fixtures.source(t, "erp", e2eScale())
	before := analysis(t, env, src)
	require.NotEmpty(t, before.Tables)

	// Its dumps and targets go to a directory of its own: the fixture's
	// work directory outlives the test, and a second run (-count=3) found
	// the first one's target there ("already exists").
	work := t.TempDir()
	dumpDir := filepath.Join(work, "dump")
	require.NoError(t, os.MkdirAll(dumpDir, 0o755))
	env.ok(t, "proserve", src)
	files := parallel(t, before.Tables, 4, func(ts openedge.TableStat) string {
		out := env.ok(t, "proutil", src, "-C", "dump", ts.QualifiedName(), dumpDir)
		res, err := openedge.ParseDumpOutput(out)
		require.NoError(t, err)
		assert.Equal(t, ts.Records, res.Records, "dump of %s", ts.QualifiedName())
		return filepath.Join(dumpDir, ts.Name+".bd")
	})
	env.ok(t, "proshut", src, "-by")

	t.Run("every count equal", func(t *testing.T) {
		tgt := buildTarget(t, env, src, work, "target", targetST)
		loadAll(t, env, tgt, files, nil, "")
		after := analysis(t, env, tgt)
		assert.Equal(t, counts(before), counts(after))
		for _, ix := range analysisIndexes(t, env, tgt) {
			assert.False(t, ix.Inactive, "index %s.%s still inactive", ix.Table, ix.Name)
		}
	})

	t.Run("crash in one load shows in tabanalys", func(t *testing.T) {
		victim := biggest(before)
		tgt := buildTarget(t, env, src, work, "crashed", targetST)
		// The "once" is counted in a state directory of this test's: the
		// fixture's DLC outlives it, and a second run found it fired.
		faults := []string{"OESIM_FAULTS=load:" + victim.QualifiedName() + ":crash-after=100,once",
			"OESIM_STATE=" + filepath.Join(work, "state")}
		loadAll(t, env, tgt, files, faults, victim.Name)
		after := analysis(t, env, tgt)
		want := counts(before)
		got := counts(after)
		assert.Less(t, got[victim.QualifiedName()], want[victim.QualifiedName()])
		assert.GreaterOrEqual(t, got[victim.QualifiedName()], int64(100), "the records written before the crash stay")
		delete(want, victim.QualifiedName())
		delete(got, victim.QualifiedName())
		assert.Equal(t, want, got, "only the crashed table differs")
	})
}

// buildTarget creates a target database under work from stText (areas
// Data, Index and Small, as targetST's) with the source's definitions
// moved into its areas. Every "." of stText is
// dir, the fixed-size extent's too ("." followed by "f 8192"): left
// relative, it went to the utilities' working directory, the shared
// fixture's.
func buildTarget(t *testing.T, env *dlcEnv, src, work, name, stText string) string {
	dir := filepath.Join(work, name)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	st := filepath.Join(dir, name+".st")
	require.NoError(t, os.WriteFile(st, []byte(strings.NewReplacer(" .\n", " "+dir+"\n", " . ", " "+dir+" ").Replace(stText)), 0o644))
	db := filepath.Join(dir, name)
	env.ok(t, "prostrct", "create", db, st, "-blocksize", "8192")
	out := env.ok(t, "procopy", filepath.Join(env.dlc, "empty8"), db)
	require.True(t, openedge.HasMessage(out, openedge.MsgDBCopied), out)

	f, err := os.Open(src + ".df")
	require.NoError(t, err)
	df, err := openedge.ParseDF(f, src+".df")
	f.Close()
	require.NoError(t, err)
	for _, tb := range df.Tables() {
		area := "Data"
		if len(tb.Fields) < 8 {
			area = "Small"
		}
		require.NoError(t, df.SetTableArea(tb.Name, area))
		for _, ix := range tb.Indexes {
			require.NoError(t, df.SetIndexArea(tb.Name, ix.Name, "Index"))
		}
	}
	var buf bytes.Buffer
	_, err = df.WriteTo(&buf)
	require.NoError(t, err)
	dfPath := filepath.Join(dir, name+".df")
	require.NoError(t, os.WriteFile(dfPath, buf.Bytes(), 0o644))
	env.ok(t, "_progres", "-b", "-db", db, "-p", "prodict/load_df.p", "-param", dfPath)
	return db
}

// loadAll serves the target, loads every file four at a time, shuts it
// down and rebuilds every index. The load of crashTable (if any) must die.
func loadAll(t *testing.T, env *dlcEnv, db string, files []string, extraEnv []string, crashTable string) {
	env.ok(t, "proserve", db)
	parallel(t, files, 4, func(f string) string {
		r := env.run(t, extraEnv, "", "proutil", db, "-C", "load", f, "-i")
		if crashTable != "" && filepath.Base(f) == crashTable+".bd" {
			assert.NotEqual(t, 0, r.code, "the crash fault must kill the load of %s:\n%s", f, r.out)
			return ""
		}
		require.Equal(t, 0, r.code, "load %s:\n%s", f, r.out)
		_, err := openedge.ParseLoadOutput(r.out)
		require.NoError(t, err)
		return ""
	})
	env.ok(t, "proshut", db, "-by")
	out := env.ok(t, "proutil", db, "-C", "idxbuild", "all", "-TB", "64", "-TM", "32", "-TMB", "64", "-threadnum", "2",
		"-mergethreads", "2", "-datascanthreads", "2")
	res, err := openedge.ParseIdxbuildOutput(out)
	require.NoError(t, err, out)
	assert.Positive(t, res.Indexes)
}

// analysis is the application tables of db's tabanalys: the meta-schema
// rows (PUB._Area, PUB._Field, ...) are each database's own, as oedl
// leaves them out.
func analysis(t *testing.T, env *dlcEnv, db string) *openedge.Analysis {
	out := env.ok(t, "proutil", db, "-C", "tabanalys")
	a, err := openedge.ParseAnalysis(strings.NewReader(out), db+" tabanalys")
	require.NoError(t, err)
	a.Tables = slices.DeleteFunc(a.Tables, openedge.TableStat.System)
	return a
}

func analysisIndexes(t *testing.T, env *dlcEnv, db string) []openedge.IndexStat {
	out := env.ok(t, "proutil", db, "-C", "dbanalys")
	a, err := openedge.ParseAnalysis(strings.NewReader(out), db+" dbanalys")
	require.NoError(t, err)
	require.NotEmpty(t, a.Indexes)
	return a.Indexes
}

func counts(a *openedge.Analysis) map[string]int64 {
	m := map[string]int64{}
	for _, ts := range a.Tables {
		m[ts.QualifiedName()] = ts.Records
	}
	return m
}

func biggest(a *openedge.Analysis) openedge.TableStat {
	ts := append([]openedge.TableStat(nil), a.Tables...)
	sort.Slice(ts, func(i, j int) bool { return ts[i].Records > ts[j].Records })
	return ts[0]
}

// parallel runs fn over items with n workers and returns the results in
// item order.
func parallel[T any](t *testing.T, items []T, n int, fn func(T) string) []string {
	out := make([]string, len(items))
	work := make(chan int)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				out[i] = fn(items[i])
			}
		}()
	}
	for i := range items {
		work <- i
	}
	close(work)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	var res []string
	for _, s := range out {
		if s != "" {
			res = append(res, s)
		}
	}
	return res
}

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }

// replaceDots points the "." extent paths of a .st at dir.
func replaceDots(st, dir string) string { return strings.ReplaceAll(st, " .\n", " "+dir+"\n") }

func itoa(n int) string { return strconv.Itoa(n) }

func mustOpenControl(t *testing.T, db string) *store.Control {
	c, err := store.ReadControl(store.PathsFor(db))
	require.NoError(t, err)
	return c
}
