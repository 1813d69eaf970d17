package openedge_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/sim"
)

// The end-to-end test drives oesim with the argv builders and reads its
// output with the parsers, as oedl does with OpenEdge: the test binary is
// installed as $DLC/bin/<utility> and dispatches on argv[0].
func TestMain(m *testing.M) {
	if name := filepath.Base(os.Args[0]); sim.IsUtility(name) || name == "oesim" {
		os.Exit(sim.Main(os.Args))
	}
	os.Exit(m.Run())
}

type simDLC struct {
	t    *testing.T
	dlc  string
	work string
	env  []string
}

func newSimDLC(t *testing.T) *simDLC {
	exe, err := os.Executable()
	require.NoError(t, err)
	root := t.TempDir()
	d := &simDLC{t: t, dlc: filepath.Join(root, "dlc"), work: filepath.Join(root, "work")}
	require.NoError(t, sim.Install(d.dlc, exe))
	require.NoError(t, os.MkdirAll(d.work, 0o755))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OESIM_") && !strings.HasPrefix(kv, "DLC=") {
			d.env = append(d.env, kv)
		}
	}
	d.env = append(d.env, "DLC="+d.dlc, "OESIM_STATE="+filepath.Join(root, "state"))
	return d
}

// run starts $DLC/bin/tool with argv exactly as built: no shell.
func (d *simDLC) run(tool string, args []string) (string, int) {
	d.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(d.dlc, "bin", tool), args...)
	cmd.Dir, cmd.Env = d.work, d.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return out.String(), exit.ExitCode()
	}
	require.NoError(d.t, err)
	return out.String(), 0
}

// ok runs a utility and requires CheckSuccess to accept it.
func (d *simDLC) ok(utility, tool string, args []string) string {
	d.t.Helper()
	out, code := d.run(tool, args)
	require.NoError(d.t, openedge.CheckSuccess(utility, out, code), "%s %v:\n%s", tool, args, out)
	return out
}

func TestToolsAgainstOesim(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run against oesim")
	}
	d := newSimDLC(t)
	src := filepath.Join(d.work, "src", "sports")
	d.ok("oesim gen", "oesim", []string{"gen", "--dlc", d.dlc, "--db", src, "--profile", "sports", "--scale", "2MB", "--seed", "3"})

	// Not in use, then served.
	_, code := d.run(openedge.ToolProutil, openedge.BusyArgs(src))
	use, err := openedge.BusyState(code)
	require.NoError(t, err)
	assert.Equal(t, openedge.DBNotInUse, use)
	d.ok("proserve", openedge.ToolProserve, openedge.ProserveArgs(src))
	_, code = d.run(openedge.ToolProutil, openedge.HolderArgs(src))
	use, err = openedge.HolderState(code)
	require.NoError(t, err)
	assert.Equal(t, openedge.DBMultiUser, use)

	// tabanalys, text and -csoutput, tell the same story.
	prefix := filepath.Join(d.work, "src-analysis")
	out := d.ok("tabanalys", openedge.ToolProutil, openedge.TabanalysArgs(src, true, prefix))
	before, err := openedge.ParseAnalysis(strings.NewReader(out), "tabanalys")
	require.NoError(t, err)
	require.NotEmpty(t, before.Tables)
	f, err := os.Open(prefix + ".tab.txt")
	require.NoError(t, err)
	cs, err := openedge.ParseCSTab(f, prefix+".tab.txt")
	f.Close()
	require.NoError(t, err)
	require.Len(t, cs.Tables, len(before.Tables))
	for i, ts := range before.Tables {
		assert.Equal(t, ts.Records, cs.Tables[i].Records, ts.QualifiedName())
	}

	desc, err := openedge.ParseDescribe(d.ok("describe", openedge.ToolProutil, openedge.DescribeArgs(src)))
	require.NoError(t, err)
	assert.Equal(t, 8192, desc.BlockSize)
	assert.Equal(t, "ISO8859-1", desc.Codepage)

	// Dump a few tables (each run is a process; under -race a slow one),
	// threaded, with a dump list; the counts must match.
	var moved []openedge.TableStat
	for _, ts := range before.Tables {
		if ts.Records > 0 && len(moved) < 4 && !strings.HasPrefix(ts.Name, "_") { // the meta-schema is not dumped
			moved = append(moved, ts)
		}
	}
	require.NotEmpty(t, moved)
	dumpDir := filepath.Join(d.work, "dump")
	require.NoError(t, os.MkdirAll(dumpDir, 0o755))
	lists := map[string]string{}
	for _, ts := range moved {
		list := filepath.Join(dumpDir, ts.Name+".lst")
		out := d.ok("dump", openedge.ToolProutil, openedge.DumpArgs(src, ts.QualifiedName(), dumpDir,
			openedge.DumpOptions{Index: -1, Thread: true, Threadnum: 2, Dumplist: list}))
		res, err := openedge.ParseDumpOutput(out)
		require.NoError(t, err)
		assert.Equal(t, ts.Records, res.Records, "dump of %s", ts.QualifiedName())
		lists[ts.QualifiedName()] = list
		lf, err := os.Open(list)
		require.NoError(t, err)
		files, err := openedge.ParseDumplist(lf, list)
		lf.Close()
		require.NoError(t, err)
		assert.Equal(t, openedge.DumpFileName(ts.Owner, ts.Name, 1), filepath.Base(files[0]), "first file of %s", ts.Name)
		for _, f := range files {
			assert.FileExists(t, f)
		}
	}
	d.ok("proshut", openedge.ToolProshut, openedge.ProshutArgs(src))

	// A target from the source's structure and definitions.
	tgtDir := filepath.Join(d.work, "tgt")
	require.NoError(t, os.MkdirAll(tgtDir, 0o755))
	tgt := filepath.Join(tgtDir, "sports")
	st := filepath.Join(tgtDir, "sports.st")
	require.NoError(t, os.WriteFile(st, []byte("b "+tgtDir+"\nd \"Schema Area\":6,64;1 "+tgtDir+"\nd \"Data\":7,64;8 "+tgtDir+"\n"), 0o644))
	d.ok("prostrct create", openedge.ToolProstrct, openedge.ProstrctCreateArgs(tgt, st, 8192))
	d.ok("procopy", openedge.ToolProcopy, openedge.ProcopyArgs(filepath.Join(d.dlc, "empty8"), tgt))
	d.ok("_progres", openedge.ToolProgres, openedge.ProgresArgs(tgt, "prodict/load_df.p", intoArea(t, src+".df", "Data")))
	d.ok("truncate bi", openedge.ToolProutil, openedge.TruncateBIArgs(tgt, 16384, 16))

	// The first table builds its indexes during the load; the others leave
	// them to idxbuild and say which ones.
	for i, ts := range moved {
		build := i == 0
		out := d.ok("load", openedge.ToolProutil, openedge.LoadArgs(tgt, "", openedge.LoadOptions{
			BuildIndexes: build, Dumplist: lists[ts.QualifiedName()], NoIntegrity: true, TB: 64, TM: 32, TempDir: d.work}))
		res, err := openedge.ParseLoadOutput(out)
		require.NoError(t, err)
		if res.CountKnown {
			assert.Equal(t, ts.Records, res.Records, "load of %s", ts.QualifiedName())
		}
		assert.Equal(t, build, len(res.Deactivated) == 0, "indexes left to rebuild after loading %s: %v", ts.Name, res.Deactivated)
	}
	out = d.ok("idxbuild", openedge.ToolProutil, openedge.IdxbuildArgs(tgt, openedge.IdxbuildAll(),
		openedge.IdxbuildParams{TB: 64, TM: 32, TMB: 64, SG: 64, Threadnum: 2, Mergethreads: 2, Datascanthreads: 2, TempDir: d.work}))
	res, err := openedge.ParseIdxbuildOutput(out)
	require.NoError(t, err)
	assert.Positive(t, res.Indexes)

	after, err := openedge.ParseAnalysis(strings.NewReader(d.ok("tabanalys", openedge.ToolProutil, openedge.TabanalysArgs(tgt, false, ""))), "after")
	require.NoError(t, err)
	for _, ts := range before.Tables {
		if strings.HasPrefix(ts.Name, "_") {
			continue // the meta-schema: each database's own
		}
		want := int64(0) // not moved: defined but empty
		if slices.ContainsFunc(moved, func(m openedge.TableStat) bool { return m.Name == ts.Name }) {
			want = ts.Records
		}
		n, ok := after.RecordCount(ts.Owner, ts.Name)
		assert.True(t, ok, ts.QualifiedName())
		assert.Equal(t, want, n, ts.QualifiedName())
	}
}

// intoArea writes a copy of a .df with every table and index in area.
func intoArea(t *testing.T, path, area string) string {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	df, err := openedge.ParseDF(f, path)
	require.NoError(t, err)
	for _, tb := range df.Tables() {
		require.NoError(t, df.SetTableArea(tb.Name, area))
		for _, ix := range tb.Indexes {
			require.NoError(t, df.SetIndexArea(tb.Name, ix.Name, area))
		}
	}
	var buf bytes.Buffer
	_, err = df.WriteTo(&buf)
	require.NoError(t, err)
	out := strings.TrimSuffix(path, ".df") + "-" + area + ".df"
	require.NoError(t, os.WriteFile(out, buf.Bytes(), 0o644))
	return out
}
