package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/simtest"
)

// TestPlanEndToEndWithOesim is the proof: against an oesim
// database, `oedl plan --source` writes a .st that prostrct create
// accepts and a .df that load_df.p loads; after a binary dump and load of
// every table, the target's tabanalys shows each table, with all its
// records, in the area the plan gave it. Then the online alternative:
// prostrct add of tablemove.st and tablemove.sh move the source's own
// tables into the same areas.
func TestPlanEndToEndWithOesim(t *testing.T) {
	if testing.Short() {
		t.Skip("builds oesim and a database")
	}
	work := t.TempDir()
	dlc := simtest.DLC(t, work)
	run := func(name string, args ...string) string {
		t.Helper()
		return simtest.Run(t, dlc, work, name, args...)
	}
	bin := func(u string) string { return filepath.Join(dlc, "bin", u) }
	src := filepath.Join(work, "src", "prod")
	simtest.Gen(t, dlc, work, src, "erp", "4MB", 7)

	// Plan from the database itself, with a small large-table threshold so
	// that every class shows up in a 4 MB database.
	// A different name from the source's, so that the source's own new
	// extents (tablemove.st, below) never share a file name with the target's.
	tgt := filepath.Join(work, "tgt", "newprod")
	planDir := filepath.Join(work, "plan")
	code, _, stderr := runOEDL("plan", "--source", src, "--dlc", dlc, "-o", planDir, "--target", tgt,
		"--large", "400KB", "--medium", "60KB", "--max-extent", "4MB", "--cores", "2", "--memory", "4GB")
	require.Equal(t, ExitOK, code, stderr)
	p, err := plan.ReadJSON(filepath.Join(planDir, plan.FilePlan))
	require.NoError(t, err)
	classes := map[plan.SizeClass]int{}
	for _, tp := range p.Tables {
		classes[tp.Class]++
	}
	require.Positive(t, classes[plan.ClassLarge], "the profile has large tables at this threshold: %v", classes)
	require.Positive(t, classes[plan.ClassSmall], "%v", classes)
	// The source's dbanalys gave every table's index bytes: they size the
	// index areas and idxbuild's sort (a tabanalys would leave them 0).
	assert.FileExists(t, filepath.Join(planDir, "source.dba"))
	for _, tp := range p.Tables {
		if tp.Records > 0 && tp.Indexes > 0 {
			assert.Positive(t, tp.IndexBytes, "%s: index bytes from the source's dbanalys", tp.Table)
		}
	}
	assert.Positive(t, p.Totals.IndexBytes)

	// Build the target exactly as the plan says.
	require.NoError(t, os.MkdirAll(filepath.Dir(tgt), 0o755))
	run(bin("prostrct"), "create", tgt, filepath.Join(planDir, plan.FileStructure), "-blocksize", "8192")
	run(bin("procopy"), filepath.Join(dlc, "empty8"), tgt)
	run(bin("_progres"), "-b", "-db", tgt, "-p", "prodict/load_df.p", "-param", filepath.Join(planDir, plan.FileDF))

	for _, tp := range p.Tables {
		dir := filepath.Join(work, "dump", tp.Name)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		run(bin("proutil"), src, "-C", "dump", tp.Table, dir)
		files, err := filepath.Glob(filepath.Join(dir, "*.bd*"))
		require.NoError(t, err)
		require.NotEmpty(t, files, "dump of %s wrote no .bd", tp.Table)
		for _, f := range files {
			loaded := run(bin("proutil"), tgt, "-C", "load", f)
			require.True(t, openedge.HasMessage(loaded, openedge.MsgLoadComplete), "load %s: %s", f, loaded)
		}
	}

	report := run(bin("proutil"), tgt, "-C", "tabanalys")
	a, err := openedge.ParseAnalysis(strings.NewReader(report), "target tabanalys")
	require.NoError(t, err)
	got := map[string]openedge.TableStat{}
	for _, ts := range a.Tables {
		got[strings.ToLower(ts.QualifiedName())] = ts
	}
	for _, tp := range p.Tables {
		ts, ok := got[strings.ToLower(tp.Table)]
		if !assert.True(t, ok, "%s missing from the target's tabanalys", tp.Table) {
			continue
		}
		assert.Equal(t, tp.DataArea, ts.Area, "%s is in its planned area", tp.Table)
		assert.Equal(t, tp.Records, ts.Records, "%s kept every record", tp.Table)
	}

	// The online alternative on the source itself: add the planned areas,
	// run tablemove.sh, and every table is in its planned area there too.
	run(bin("prostrct"), "add", src, filepath.Join(planDir, plan.FileAddAreas))
	run("sh", filepath.Join(planDir, plan.FileTablemove), src)
	a, err = openedge.ParseAnalysis(strings.NewReader(run(bin("proutil"), src, "-C", "tabanalys")), "source tabanalys")
	require.NoError(t, err)
	got = map[string]openedge.TableStat{}
	for _, ts := range a.Tables {
		got[strings.ToLower(ts.QualifiedName())] = ts
	}
	for _, tp := range p.Tables {
		ts := got[strings.ToLower(tp.Table)]
		assert.Equal(t, tp.DataArea, ts.Area, "tablemove put %s in its planned area", tp.Table)
		assert.Equal(t, tp.Records, ts.Records, "tablemove kept every record of %s", tp.Table)
	}
}

// TestPlanFromARelativeSource: a DBA in the database's directory types
// `oedl plan --source prod --dlc ../dlc`. The utilities run in a scratch
// directory, where both relative paths named nothing: "Cannot find or
// open file /tmp/.oedl-plan-N/prod.db (43)".
func TestPlanFromARelativeSource(t *testing.T) {
	if testing.Short() {
		t.Skip("builds oesim and a database")
	}
	work := t.TempDir()
	dlc := simtest.DLC(t, work)
	src := filepath.Join(work, "db dir", "prod")
	simtest.Gen(t, dlc, work, src, "sports", "1MB", 7)
	relDLC, err := filepath.Rel(filepath.Dir(src), dlc)
	require.NoError(t, err)
	t.Chdir(filepath.Dir(src))
	tests := []struct {
		name string
		args []string
	}{
		{"relative --source and --dlc", []string{"--source", "prod", "--dlc", relDLC}},
		{"relative --source, ./ and .db", []string{"--source", "./prod.db", "--dlc", dlc}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			planDir := filepath.Join(work, fmt.Sprintf("plan%d", i))
			code, _, stderr := runOEDL(append(append([]string{"plan"}, tt.args...), "-o", planDir, "--target", filepath.Join(work, "tgt", "newprod"), "--cores", "2", "--memory", "4GB")...)
			require.Equal(t, ExitOK, code, stderr)
			p, err := plan.ReadJSON(filepath.Join(planDir, plan.FilePlan))
			require.NoError(t, err)
			assert.Equal(t, src, p.Source.Path)
			assert.NotEmpty(t, p.Tables)
		})
	}
}
