package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/golden"
	"github.com/oedl/oedl/internal/hosts"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/plan"
)

// planFixture writes a small tabanalys report and a matching .df into dir.
// extraDF adds a table only the .df has; extraReport one only the report has.
func planFixture(t *testing.T, dir string, extraDF, extraReport string) (tba, df string) {
	t.Helper()
	a := &openedge.Analysis{Database: "/db/prod", BlockSize: 8192, Options: "tabanalys"}
	add := func(name string, records, mean int64) {
		a.Tables = append(a.Tables, openedge.TableStat{Area: "Data", AreaNum: 7, Owner: "PUB", Name: name,
			Records: records, Bytes: records * mean, MinRecord: mean, MaxRecord: mean, MeanRecord: mean,
			Fragments: records, FragFactor: 1, ScatterFactor: 1})
	}
	add("order-line", 12_000_000, 120)
	add("customer", 5000, 300)
	add("note", 0, 0)
	if extraReport != "" {
		add(extraReport, 10, 50)
	}
	var b bytes.Buffer
	require.NoError(t, openedge.WriteAnalysis(&b, a))
	tba = filepath.Join(dir, "prod.tba")
	require.NoError(t, os.WriteFile(tba, b.Bytes(), 0o644))

	var tables []*openedge.DFTable
	for _, n := range []string{"order-line", "customer", "note", extraDF} {
		if n == "" {
			continue
		}
		tables = append(tables, &openedge.DFTable{Name: n, Area: "Data",
			Fields:  []*openedge.DFField{{Name: "id", Type: "integer"}, {Name: "doc", Type: "clob"}},
			Indexes: []*openedge.DFIndex{{Name: "id", Area: "Index", Primary: true, Unique: true, Fields: []openedge.DFIndexField{{Name: "id"}}}}})
	}
	b.Reset()
	_, err := openedge.NewDF(tables, nil, "UTF-8").WriteTo(&b)
	require.NoError(t, err)
	df = filepath.Join(dir, "prod.df")
	require.NoError(t, os.WriteFile(df, b.Bytes(), 0o644))
	return tba, df
}

func runOEDL(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = Execute(context.Background(), &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, args)
	return code, out.String(), errOut.String()
}

var fixedMachine = []string{"--cores", "4", "--memory", "8GB"}

func TestPlanWritesDirectory(t *testing.T) {
	dir := t.TempDir()
	tba, df := planFixture(t, dir, "", "")
	out := filepath.Join(dir, "plan")
	args := append([]string{"plan", "--tabanalys", tba, "--df", df, "-o", out, "--target", "/db/new/prod", "--json"}, fixedMachine...)
	code, stdout, stderr := runOEDL(args...)
	require.Equal(t, ExitOK, code, stderr)

	for _, f := range []string{"target.st", "target.df", "tablemove.sh", "tablemove.st", "placement.md", "target.pf", "plan.json"} {
		assert.FileExists(t, filepath.Join(out, f))
	}
	var p plan.Plan
	require.NoError(t, json.Unmarshal([]byte(stdout), &p), "--json prints plan.json and nothing else")
	assert.Equal(t, 3, p.Totals.Tables)
	assert.Equal(t, "/db/new/prod", p.Target)
	onDisk, err := plan.ReadJSON(filepath.Join(out, "plan.json"))
	require.NoError(t, err)
	assert.Equal(t, &p, onDisk)
	assert.Contains(t, stderr, "Planned 3 tables")
	assert.Contains(t, stderr, "PUB.order-line")

	// A second run replaces the earlier plan.
	code, _, stderr = runOEDL(append([]string{"plan", "--tabanalys", tba, "-o", out}, fixedMachine...)...)
	require.Equal(t, ExitOK, code, stderr)
	assert.NoFileExists(t, filepath.Join(out, "target.df"), "the new plan has no .df, the old target.df must be gone")
}

// TestPlanBadInput: every kind of bad input ends with exit 2, a message that
// names the problem, and no output directory at all.
func TestPlanBadInput(t *testing.T) {
	dir := t.TempDir()
	tba, df := planFixture(t, dir, "", "")
	_, dfExtra := planFixture(t, mkdir(t, dir, "dfextra"), "invoice", "")
	tbaExtra, dfShort := planFixture(t, mkdir(t, dir, "tbaextra"), "", "ledger")
	bad := filepath.Join(dir, "bad.tba")
	report, err := os.ReadFile(tba)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(bad, bytes.Replace(report, []byte("PUB.customer"), []byte("PUB.customer x y"), 1), 0o644))
	long := filepath.Join(dir, "long.tba")
	longName := "customer-shipping-address-history" // 33 characters: one over OpenEdge's limit
	require.NoError(t, os.WriteFile(long, bytes.Replace(report, []byte("PUB.customer "), []byte("PUB."+longName+" "), 1), 0o644))
	longLine := 1 + bytes.Count(report[:bytes.Index(report, []byte("PUB.customer "))], []byte("\n"))

	tests := []struct {
		name string
		args []string
		want string
	}{
		{"malformed tabanalys", []string{"--tabanalys", bad}, "bad.tba:"},
		{"table name over 32 characters", []string{"--tabanalys", long},
			fmt.Sprintf("long.tba:%d: table PUB.%s: its name has 33 characters", longLine, longName)},
		{"missing tabanalys", []string{"--tabanalys", filepath.Join(dir, "nope.tba")}, "nope.tba"},
		{"df names a table the report lacks", []string{"--tabanalys", tba, "--df", dfExtra}, `table "invoice" is not in the tabanalys report`},
		{"report names a table the df lacks", []string{"--tabanalys", tbaExtra, "--df", dfShort}, "table PUB.ledger is not in the .df"},
		{"zero threshold", []string{"--tabanalys", tba, "--large", "0"}, "--large"},
		{"threshold not a size", []string{"--tabanalys", tba, "--large", "big"}, "--large"},
		{"max extent too small", []string{"--tabanalys", tba, "--max-extent", "1MB"}, "--max-extent"},
		{"block size", []string{"--tabanalys", tba, "--block-size", "3000"}, "--block-size 3000"},
		{"empty data dir", []string{"--tabanalys", tba, "--data-dir", ""}, "--data-dir #1 is empty"},
		{"no input", []string{}, "--tabanalys FILE or --source DB"},
		{"both inputs", []string{"--tabanalys", tba, "--source", "/db/x"}, "exclude each other"},
		{"df with source", []string{"--source", "/db/x", "--df", df}, "--df is for --tabanalys"},
		{"unknown flag", []string{"--tabanalys", tba, "--bogus"}, "unknown flag"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(dir, "out", string(rune('a'+i)))
			args := append(append([]string{"plan", "-o", out}, tt.args...), fixedMachine...)
			code, stdout, stderr := runOEDL(args...)
			assert.Equal(t, ExitUsage, code, stderr)
			assert.Contains(t, stderr, tt.want)
			assert.Empty(t, stdout)
			assert.NoDirExists(t, out, "bad input must leave no output directory")
		})
	}
}

func TestPlanMissingOut(t *testing.T) {
	tba, _ := planFixture(t, t.TempDir(), "", "")
	code, _, stderr := runOEDL("plan", "--tabanalys", tba)
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, stderr, "-o DIR")
}

func TestPlanRefusesForeignDirectory(t *testing.T) {
	dir := t.TempDir()
	tba, _ := planFixture(t, dir, "", "")
	// dir holds the fixture files but no plan.json: never replace it.
	code, _, stderr := runOEDL(append([]string{"plan", "--tabanalys", tba, "-o", dir}, fixedMachine...)...)
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, stderr, "refusing to replace")
	assert.FileExists(t, tba)
}

func TestPlanSourcePreconditions(t *testing.T) {
	dir := t.TempDir()
	dlc := mkdir(t, dir, "dlc")
	mkdir(t, dlc, "bin")
	for _, exe := range []string{"proutil", "_progres"} {
		require.NoError(t, os.WriteFile(filepath.Join(dlc, "bin", exe), []byte("#!/bin/sh\nexit 9\n"), 0o755))
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no dlc", []string{"--source", filepath.Join(dir, "prod"), "--dlc", filepath.Join(dir, "nodlc")}, "not found"},
		{"no database", []string{"--source", filepath.Join(dir, "prod"), "--dlc", dlc}, "prod.db not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(dir, "out")
			code, _, stderr := runOEDL(append(append([]string{"plan", "-o", out}, tt.args...), fixedMachine...)...)
			assert.Equal(t, ExitPrecondition, code, stderr)
			assert.Contains(t, stderr, tt.want)
			assert.NoDirExists(t, out)
		})
	}
}

// fakeUtilities answers proutil dbanalys with a report and _progres
// dump_df.p by writing a .df where -param says, as the real ones do.
type fakeUtilities struct {
	report []byte
	df     []byte
	calls  [][]string
	// refuse: proutil prints it and fails (exit 1), as when it cannot
	// open the database.
	refuse string
}

func (f *fakeUtilities) Run(_ context.Context, c execx.Cmd) (execx.Result, error) {
	f.calls = append(f.calls, append([]string{filepath.Base(c.Path)}, c.Args...))
	switch filepath.Base(c.Path) {
	case "proutil":
		if f.refuse != "" {
			return execx.Result{Output: f.refuse, ExitCode: 1}, fmt.Errorf("proutil exited with code 1: %w", execx.ErrExit)
		}
		return execx.Result{Output: string(f.report)}, nil
	case "_progres":
		param := c.Args[len(c.Args)-1]
		file := strings.Split(param, ",")[1]
		return execx.Result{}, os.WriteFile(file, f.df, 0o644)
	}
	return execx.Result{ExitCode: 1}, execx.ErrExit
}

// sourceModeFixture is what plan --source checks before it runs a
// utility: $DLC/bin/proutil and _progres (empty: fakeUtilities answers
// for them) and DIR/prod.db; with planFixture's report and .df.
func sourceModeFixture(t *testing.T, dir string) (dlc, tba, df string) {
	t.Helper()
	tba, df = planFixture(t, dir, "", "")
	dlc = mkdir(t, dir, "dlc")
	mkdir(t, dlc, "bin")
	for _, exe := range []string{"proutil", "_progres"} {
		require.NoError(t, os.WriteFile(filepath.Join(dlc, "bin", exe), nil, 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "prod.db"), nil, 0o644))
	return dlc, tba, df
}

func TestPlanSourceMode(t *testing.T) {
	dir := t.TempDir()
	dlc, tba, df := sourceModeFixture(t, dir)
	fake := &fakeUtilities{report: mustRead(t, tba), df: mustRead(t, df)}
	var stderr bytes.Buffer
	opts := &PlanOptions{IO: &IOStreams{Out: &bytes.Buffer{}, ErrOut: &stderr}, Runner: fake,
		Source: filepath.Join(dir, "prod.db"), DLC: dlc, Out: filepath.Join(dir, "plan"),
		BlockSize: 8192, Large: "1GB", Medium: "100MB", Headroom: 20, MaxExtent: "2GB", Cores: 4, Memory: "8GB"}
	require.NoError(t, planRun(context.Background(), opts), stderr.String())

	require.Len(t, fake.calls, 3)
	assert.Equal(t, []string{"proutil", filepath.Join(dir, "prod"), "-C", "dbanalys"}, fake.calls[0])
	assert.Equal(t, []string{"_progres", "-b", "-db", filepath.Join(dir, "prod"), "-p", "prodict/dump_df.p", "-param"}, fake.calls[1][:7])
	// The source's files, for the check that no extent is planned onto
	// them: prostrct list into a scratch file, never the default DB.st
	// beside the source (which it would replace).
	require.Len(t, fake.calls[2], 4)
	assert.Equal(t, []string{"prostrct", "list", filepath.Join(dir, "prod")}, fake.calls[2][:3])
	assert.NotEqual(t, filepath.Join(dir, "prod.st"), fake.calls[2][3])
	for _, f := range []string{"target.st", "target.df", "source.dba", "source.df", "plan.json"} {
		assert.FileExists(t, filepath.Join(dir, "plan", f))
	}
	assert.Equal(t, mustRead(t, tba), mustRead(t, filepath.Join(dir, "plan", "source.dba")))
}

func mkdir(t *testing.T, parent, name string) string {
	t.Helper()
	d := filepath.Join(parent, name)
	require.NoError(t, os.MkdirAll(d, 0o755))
	return d
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

func TestPlanHelp(t *testing.T) {
	code, stdout, stderr := runOEDL("plan", "--help")
	require.Equal(t, ExitOK, code, stderr)
	for _, want := range []string{"Examples:", "oedl plan --tabanalys prod.tba --df prod.df -o plan/", "--data-dir", "--max-extent", "--top"} {
		assert.Contains(t, stdout, want)
	}
}

// TestPlanSummary pins the stderr summary: classes, areas, the biggest
// tables and what was written.
func TestPlanSummary(t *testing.T) {
	dir := t.TempDir()
	tba, df := planFixture(t, dir, "", "")
	out := filepath.Join(dir, "plan")
	code, stdout, stderr := runOEDL(append([]string{"plan", "--tabanalys", tba, "--df", df, "-o", out, "--target", "/db/new/prod"}, fixedMachine...)...)
	require.Equal(t, ExitOK, code, stderr)
	assert.Empty(t, stdout, "without --json nothing goes to stdout")
	want := `Planned 3 tables (1.3 GiB, 12,005,000 records): 1 large, 0 medium, 1 small, 1 empty.
Areas: 3 data, 3 index, 1 LOB (numbers 7-13), block size 8192.
Fixed extents: 1.8 GiB (/db/new 1.8 GiB).
Biggest:
  PUB.order-line                    1.3 GiB  RPB 128 BPC 512 -> order_line_Data
  PUB.customer                      1.4 MiB  RPB 32  BPC 8   -> Small32_Data
  PUB.note                              0 B  RPB 64  BPC 8   -> Small64_Data
Wrote ` + out + `: target.st, tablemove.sh, tablemove.st, placement.md, target.pf, plan.json, target.df.
`
	assert.Equal(t, want, stderr)
}

// TestPlanSummarySaysABlockSizeChange: the run does not question a block
// size the plan decided, so the plan says it when it differs from the
// source's (here 4096 against the report's 8192).
func TestPlanSummarySaysABlockSizeChange(t *testing.T) {
	dir := t.TempDir()
	tba, df := planFixture(t, dir, "", "")
	code, _, stderr := runOEDL(append([]string{"plan", "--tabanalys", tba, "--df", df, "-o", filepath.Join(dir, "plan"), "--block-size", "4096"}, fixedMachine...)...)
	require.Equal(t, ExitOK, code, stderr)
	assert.Contains(t, stderr, "block size 4096 (the source's is 8192: --block-size 8192 keeps it).")
}

// TestPlanFromCSOutput reads the -csoutput files (exact byte sizes) with
// the .ix.txt beside the .tab.txt for index sizes.
func TestPlanFromCSOutput(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("..", "openedge", "testdata", "csoutput")
	for _, f := range []string{"sports2000.tab.txt", "sports2000.ix.txt"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), mustRead(t, filepath.Join(src, f)), 0o644))
	}
	out := filepath.Join(dir, "plan")
	code, stdout, stderr := runOEDL(append([]string{"plan", "--tabanalys", filepath.Join(dir, "sports2000.tab.txt"), "-o", out, "--json"}, fixedMachine...)...)
	require.Equal(t, ExitOK, code, stderr)
	var p plan.Plan
	require.NoError(t, json.Unmarshal([]byte(stdout), &p))
	assert.True(t, p.Source.IndexSummary, "index sizes come from the .ix.txt")
	assert.Positive(t, p.Totals.IndexBytes)
	assert.Positive(t, p.Totals.Tables)

	// Without the .ix.txt the plan still works, with index sizes unknown.
	require.NoError(t, os.Remove(filepath.Join(dir, "sports2000.ix.txt")))
	code, stdout, stderr = runOEDL(append([]string{"plan", "--tabanalys", filepath.Join(dir, "sports2000.tab.txt"), "-o", out, "--json"}, fixedMachine...)...)
	require.Equal(t, ExitOK, code, stderr)
	p = plan.Plan{}
	require.NoError(t, json.Unmarshal([]byte(stdout), &p))
	assert.False(t, p.Source.IndexSummary)
}

// TestPlanSummaryLongNames: the biggest tables stay in columns when a
// name is longer than the column was (OpenEdge allows 32 characters, the
// owner besides): a 32-character name pushed its size, RPB and area out
// of line with the others' (new-user trial 5). Names are not cut: the DBA
// greps for them.
func TestPlanSummaryLongNames(t *testing.T) {
	dir := t.TempDir()
	const long = "customer-order-line-history-2019" // 32, OpenEdge's most
	tba, df := planFixture(t, dir, long, long)
	code, _, stderr := runOEDL(append([]string{"plan", "--tabanalys", tba, "--df", df, "-o", filepath.Join(dir, "plan"), "--target", "/db/new/prod"}, fixedMachine...)...)
	require.Equal(t, ExitOK, code, stderr)
	_, biggest, ok := strings.Cut(stderr, "Biggest:\n")
	require.True(t, ok, stderr)
	biggest, _, _ = strings.Cut(biggest, "Wrote ")
	golden.Assert(t, filepath.Join("testdata", "plan-biggest-long-names.txt"), []byte(biggest))
	var sizeEnd, rpb []int
	for _, line := range strings.Split(strings.TrimSuffix(biggest, "\n"), "\n") {
		sizeEnd = append(sizeEnd, strings.Index(line, "B  RPB"))
		rpb = append(rpb, strings.Index(line, "->"))
	}
	for i := range sizeEnd {
		assert.Equal(t, sizeEnd[0], sizeEnd[i], "sizes end in one column:\n%s", biggest)
		assert.Equal(t, rpb[0], rpb[i], "areas start in one column:\n%s", biggest)
	}
}

// TestPlanSummarySaysApproximate: a report made while the source was in
// use carries (2486); the summary's sizes say they are approximations, as
// placement.md does (new-user trial 5).
func TestPlanSummarySaysApproximate(t *testing.T) {
	for _, online := range []bool{false, true} {
		dir := t.TempDir()
		tba, df := planFixture(t, dir, "", "")
		if online {
			report := mustRead(t, tba)
			require.NoError(t, os.WriteFile(tba, append([]byte("[Warning] database in use - reported statistics are approximations. (2486)\n"), report...), 0o644))
		}
		code, _, stderr := runOEDL(append([]string{"plan", "--tabanalys", tba, "--df", df, "-o", filepath.Join(dir, "plan")}, fixedMachine...)...)
		require.Equal(t, ExitOK, code, stderr)
		first, _, _ := strings.Cut(stderr, "Areas:")
		assert.Equal(t, online, strings.Contains(first, "(2486)"), "said with the sizes:\n%s", stderr)
	}
}

// TestPlanSummaryCountsLOBs: a table whose LOBs are most of its bytes
// (the KB's 11.7.5 dbanalys: 16.1K of records, 611.4M of LOBs) was
// summarised "Planned 1 tables (16.1 KiB, ...)", the LOBs unsaid though the
// plan and the estimate carry them (nu-trial8).
func TestPlanSummaryCountsLOBs(t *testing.T) {
	out := filepath.Join(t.TempDir(), "plan")
	code, _, stderr := runOEDL(append([]string{"plan", "--tabanalys", "../../testdata/tabanalys/lob_database_summary_11.7.dbanalys", "-o", out}, fixedMachine...)...)
	require.Equal(t, ExitOK, code, stderr)
	assert.Contains(t, stderr, "Planned 1 tables (16.1 KiB of records and 611.4 MiB of LOBs, 420 records)")
}

// TestPlanCoresFromTheTargetHost: with --hosts and no --cores, target.pf
// is tuned for the target host's cores as the hosts file gives them, not
// for the machine oedl runs on (an admin box, rarely the new server);
// --cores still wins.
func TestPlanCoresFromTheTargetHost(t *testing.T) {
	hf, err := hosts.Parse("hosts.yaml", []byte("hosts:\n  old:\n    role: source\n    ssh: old1\n    db: /db/prod\n    work: /w\n  new:\n    role: target\n    ssh: new1\n    db: /newdb/prod\n    work: /w\n    cores: 48\n"))
	require.NoError(t, err)
	for _, tt := range []struct {
		cores, want int
	}{{0, 48}, {8, 8}} {
		opts := &PlanOptions{BlockSize: 8192, Large: "1GB", Medium: "100MB", Headroom: 20, MaxExtent: "2GB", Memory: "8GB", Cores: tt.cores, hosts: hf, Out: "plan"}
		o, err := opts.planOptions()
		require.NoError(t, err)
		assert.Equal(t, tt.want, o.Machine.Cores, "--cores %d", tt.cores)
	}
}
