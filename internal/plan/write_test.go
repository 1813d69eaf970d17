package plan

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
)

func erpPlan(t *testing.T) (*Plan, *openedge.DF) {
	t.Helper()
	p := erpProfile()
	in, df := p.input(t)
	pl, err := Make(in, p.options())
	require.NoError(t, err)
	return pl, df
}

func TestWriteDir(t *testing.T) {
	pl, df := erpPlan(t)
	parent := t.TempDir()
	dir := filepath.Join(parent, "sub", "plan")
	require.NoError(t, WriteDir(dir, pl, df, File{Name: "source.tba", Mode: 0o644, Data: []byte("report")}))

	for _, f := range []string{FileStructure, FileDF, FileTablemove, FileAddAreas, FilePlacement, FilePF, FilePlan, "source.tba"} {
		assert.FileExists(t, filepath.Join(dir, f))
	}
	st, err := os.Stat(filepath.Join(dir, FileTablemove))
	require.NoError(t, err)
	assert.NotZero(t, st.Mode()&0o100, "tablemove.sh is executable")
	back, err := ReadJSON(filepath.Join(dir, FilePlan))
	require.NoError(t, err)
	assert.Equal(t, pl, back, "plan.json round-trips")

	// The .st on disk parses and validates; the .df on disk parses and
	// has every table in its planned area.
	f, err := os.Open(filepath.Join(dir, FileStructure))
	require.NoError(t, err)
	s, err := openedge.ParseStructure(f, FileStructure)
	f.Close()
	require.NoError(t, err)
	require.NoError(t, s.Validate())
	data, err := os.ReadFile(filepath.Join(dir, FileDF))
	require.NoError(t, err)
	tdf, err := openedge.ParseDF(bytes.NewReader(data), FileDF)
	require.NoError(t, err)
	for _, tp := range pl.Tables {
		d := tdf.Table(tp.Name)
		require.NotNil(t, d)
		assert.Equal(t, tp.DataArea, d.Area)
		assert.NotNil(t, s.Area(tp.DataArea), "%s is in target.st", tp.DataArea)
		for _, ix := range d.Indexes {
			assert.Equal(t, tp.IndexArea, ix.Area)
		}
	}
	// The source .df itself is untouched by the rewrite.
	for _, d := range df.Tables() {
		assert.NotContains(t, d.Area, "_Data")
	}

	// A second plan replaces the first, leaving nothing behind.
	pl.Tables[0].Reason = "changed"
	require.NoError(t, WriteDir(dir, pl, nil))
	assert.NoFileExists(t, filepath.Join(dir, FileDF))
	assert.NoFileExists(t, filepath.Join(dir, "source.tba"))
	entries, err := os.ReadDir(filepath.Join(parent, "sub"))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary directories left beside the plan")
}

func TestWriteDirAllOrNothing(t *testing.T) {
	pl, df := erpPlan(t)
	parent := t.TempDir()

	// An area name the .st cannot carry fails in Render, before any file.
	bad := *pl
	bad.Areas = append([]Area(nil), pl.Areas...)
	bad.Areas[0].Name = `bad"name`
	dir := filepath.Join(parent, "plan")
	err := WriteDir(dir, &bad, df)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "target.st")
	assert.NoDirExists(t, dir)

	// A non-plan directory is never replaced.
	foreign := filepath.Join(parent, "home")
	require.NoError(t, os.MkdirAll(foreign, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(foreign, "precious"), []byte("x"), 0o644))
	err = WriteDir(foreign, pl, df)
	require.ErrorIs(t, err, ErrNotPlanDir)
	assert.Contains(t, err.Error(), foreign)
	assert.FileExists(t, filepath.Join(foreign, "precious"))

	// Nor a directory holding a plan.json among other files: a run's
	// work directory (its journal, dumps) given as -o, or a plan copied
	// among the DBA's files (safety trial 5).
	work := filepath.Join(parent, "work")
	require.NoError(t, os.MkdirAll(filepath.Join(work, "dump"), 0o755))
	for _, f := range []string{FilePlan, "journal.jsonl", filepath.Join("dump", "PUB.Customer.bd")} {
		require.NoError(t, os.WriteFile(filepath.Join(work, f), []byte("x"), 0o644))
	}
	err = WriteDir(work, pl, df)
	require.ErrorIs(t, err, ErrNotOnlyPlan)
	assert.Contains(t, err.Error(), "dump, journal.jsonl")
	assert.FileExists(t, filepath.Join(work, "journal.jsonl"))
	assert.FileExists(t, filepath.Join(work, "dump", "PUB.Customer.bd"))

	// An empty directory is fine.
	empty := filepath.Join(parent, "empty")
	require.NoError(t, os.MkdirAll(empty, 0o755))
	require.NoError(t, WriteDir(empty, pl, df))
	assert.FileExists(t, filepath.Join(empty, FilePlan))

	entries, err := os.ReadDir(parent)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{"home", "work", "empty"}, names, "no temporary directories left")
}

// TestTablemoveQuoting runs tablemove.sh under sh with a fake proutil that
// prints each argument it receives on a line of its own: names with
// blanks, quotes and command substitutions must arrive untouched.
func TestTablemoveQuoting(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	dlc := filepath.Join(dir, "dlc")
	require.NoError(t, os.MkdirAll(filepath.Join(dlc, "bin"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dlc, "bin", "proutil"),
		[]byte("#!/bin/sh\nfor a in \"$@\"; do printf '[%s]\\n' \"$a\"; done\necho ---\n"), 0o755))

	weird := []string{`o'brien`, `$(touch pwned)`, "a b", "semi;colon", "back`tick`", `dq"x`, "pay#roll$2", "-dash"}
	p := &Plan{Source: Source{Tabanalys: "x.tba"}}
	for i, n := range weird {
		p.Tables = append(p.Tables, Placement{Table: "PUB." + n, Name: n, Bytes: int64(i),
			DataArea: "D " + n, IndexArea: "I", LOBArea: map[bool]string{true: "L'x"}[i == 0]})
	}
	var b bytes.Buffer
	require.NoError(t, WriteTablemove(&b, p))
	script := filepath.Join(dir, "tablemove.sh")
	require.NoError(t, os.WriteFile(script, b.Bytes(), 0o755))

	cmd := exec.Command(sh, script, "/db/my db")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "DLC="+dlc)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	assert.NoFileExists(t, filepath.Join(dir, "pwned"), "nothing in a name is executed")

	var want strings.Builder
	for _, n := range weird {
		// The LOB area of the first is only named in a comment: tablemove
		// does not move LOB data (TestTablemoveLeavesLOBs).
		want.WriteString("[/db/my db]\n[-C]\n[tablemove]\n[PUB." + n + "]\n[D " + n + "]\n[I]\n---\n")
	}
	assert.Equal(t, want.String(), string(out), "smallest first, each word intact")
}

func TestShellQuote(t *testing.T) {
	assert.Equal(t, `'plain'`, ShellQuote("plain"))
	assert.Equal(t, `''`, ShellQuote(""))
	assert.Equal(t, `'it'\''s'`, ShellQuote("it's"))
}

// TestTargetDFChangesOnlyAreas compares target.df with the source .df
// line by line: only AREA and LOB-AREA lines (and the trailer's byte
// offset, which follows the new lengths) may differ.
func TestTargetDFChangesOnlyAreas(t *testing.T) {
	for _, p := range profiles() {
		if !p.withDF {
			continue
		}
		t.Run(p.name, func(t *testing.T) {
			in, df := p.input(t)
			pl, err := Make(in, p.options())
			require.NoError(t, err)
			var src, dst bytes.Buffer
			_, err = df.WriteTo(&src)
			require.NoError(t, err)
			require.NoError(t, writeTargetDF(&dst, pl, df))
			a := strings.Split(src.String(), "\n")
			b := strings.Split(dst.String(), "\n")
			require.Equal(t, len(a), len(b), "no line added or removed: every statement already had its AREA")
			changed := 0
			for i := range a {
				if a[i] == b[i] {
					continue
				}
				changed++
				isOffset := i >= len(a)-2 // the last line is the trailer offset ("" follows the final newline)
				isArea := strings.HasPrefix(a[i], "  AREA ") && strings.HasPrefix(b[i], "  AREA ") ||
					strings.HasPrefix(a[i], "  LOB-AREA ") && strings.HasPrefix(b[i], "  LOB-AREA ")
				assert.True(t, isOffset || isArea, "line %d changed: %q -> %q", i+1, a[i], b[i])
			}
			assert.Positive(t, changed)
		})
	}
}

// TestNoTargetNote: without --target the extents are at "." only when an
// extent directory is relative; --data-dir /data1 puts them there, and
// placement.md must not send the DBA looking for them in ".".
func TestNoTargetNote(t *testing.T) {
	tests := []struct {
		name     string
		data, ai []string
		bi       string
		want     string // in the note
	}{
		{"defaults", []string{"."}, nil, ".", `extents at "."`},
		{"absolute data dirs", []string{"/data1", "/data2"}, nil, "/data1", "the extents to the directories target.st names"},
		{"a relative AI dir", []string{"/data1"}, []string{"ai"}, "/data1", "relative to the one prostrct create runs in"},
		{"a relative BI dir", []string{"/data1"}, nil, "../bi", "relative to the one prostrct create runs in"},
		{"a BI dir at .", []string{"/data1"}, nil, ".", `extents at "."`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Plan{Policy: Policy{DataDirs: tt.data, BIDir: tt.bi, AIDirs: tt.ai}}
			assert.Contains(t, NoTargetNote(p), tt.want)
		})
	}
}

// TestPlacementSaysWhereFrom: every table's row names its source area
// beside its new ones, so a DBA who did not make the plan sees each move
// (dba-review: the report showed only where tables went).
func TestPlacementSaysWhereFrom(t *testing.T) {
	p := &Plan{BlockSize: 8192, Policy: Policy{DataDirs: []string{"/d"}}, Tables: []Placement{
		{Table: "PUB.doc", Bytes: 1 << 20, Records: 10, DataArea: "D", IndexArea: "I", SourceArea: "Schema Area"},
		{Table: "PUB.plain", Bytes: 1 << 10, Records: 1, DataArea: "D", IndexArea: "I"},
	}}
	var out strings.Builder
	require.NoError(t, WritePlacement(&out, p))
	assert.Contains(t, out.String(), "| Table | From | Size |")
	assert.Contains(t, out.String(), "| PUB.doc | Schema Area | 1 MiB |")
	assert.Contains(t, out.String(), "| PUB.plain | ? | 1 KiB |")
}

// TestTablemoveLeavesLOBs: no tablemove moves LOB data that is not
// truncated (KB P117881: the LOB area argument of 12.5+ moves the LOB's
// definition, the data only with truncate, which deletes it), so
// tablemove.sh gives no LOB area and says where the LOBs stay.
func TestTablemoveLeavesLOBs(t *testing.T) {
	p := &Plan{Source: Source{Tabanalys: "x.tba"}, Tables: []Placement{
		{Table: "PUB.doc", Bytes: 1 << 20, Records: 10, DataArea: "D", IndexArea: "I", LOBArea: "L", SourceArea: "Old Data"},
		{Table: "PUB.plain", Bytes: 1 << 10, Records: 1, DataArea: "D", IndexArea: "I"},
	}}
	var out strings.Builder
	require.NoError(t, WriteTablemove(&out, p))
	s := out.String()
	assert.Contains(t, s, `-C tablemove 'PUB.doc' 'D' 'I'`+"\n")
	assert.NotContains(t, s, "'L'")
	assert.Contains(t, s, "# PUB.doc: its LOBs stay where they are: tablemove does not move LOB data (KB P117881); the dump/load moves them to L")
	assert.NotContains(t, s, "PUB.plain: its LOBs")
}

// TestWriteDirHonoursTheUmask: under the DBA's umask 077 the plan (the
// source's schema, its table sizes) is his alone. WriteDir made the
// directory 0755 and chmod'ed every file back to 0644 or 0755, whatever
// the umask said (new-user trial 5).
func TestWriteDirHonoursTheUmask(t *testing.T) {
	pl, df := erpPlan(t)
	old := syscall.Umask(0o077) // the process's: this test is not parallel
	t.Cleanup(func() { syscall.Umask(old) })
	dir := filepath.Join(t.TempDir(), "plan")
	for range 2 { // a new plan directory, then one replaced
		require.NoError(t, WriteDir(dir, pl, df, File{Name: "source.df", Mode: 0o644, Data: []byte("schema")}))
		st, err := os.Stat(dir)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o700), st.Mode().Perm(), "the plan directory")
		for name, want := range map[string]os.FileMode{FileTablemove: 0o700, FilePlan: 0o600, FileDF: 0o600, "source.df": 0o600} {
			st, err := os.Stat(filepath.Join(dir, name))
			require.NoError(t, err)
			assert.Equal(t, want, st.Mode().Perm(), name)
		}
	}
}

// A plan from a report made while the source was in use says, where the
// DBA reads its sizes (the areas and the totals), that the report carried
// (2486) "statistics are approximations"; placement.md did not
// (new-user trial 5). plan.json keeps it too.
func TestPlacementSaysApproximate(t *testing.T) {
	for _, p := range profiles() {
		t.Run(p.name, func(t *testing.T) {
			in, _ := p.input(t)
			pl, err := Make(in, p.options())
			require.NoError(t, err)
			assert.Equal(t, p.online, pl.Source.Approximate)
			var b strings.Builder
			require.NoError(t, WritePlacement(&b, pl))
			md := b.String()
			if !p.online {
				assert.NotContains(t, md, "(2486)")
				return
			}
			_, areas, _ := strings.Cut(md, "## Areas\n")
			areas, _, _ = strings.Cut(areas, "| # |")
			assert.Contains(t, areas, "(2486)", "said before the areas' sizes")
			_, totals, _ := strings.Cut(md, "## Totals\n")
			totals, _, _ = strings.Cut(totals, "| |")
			assert.Contains(t, totals, "(2486)", "said before the totals")
		})
	}
}

// TestAINotIsolated: after-image extents in a data or the BI directory are
// named, in placement.md too (dba-review: the plan wrote them beside the
// data without a word); in directories of their own, nothing is said.
func TestAINotIsolated(t *testing.T) {
	tests := []struct {
		name     string
		data, ai []string
		bi       string
		want     []string
	}{
		{"own disks", []string{"/data1"}, []string{"/ai1", "/ai2"}, "/bi", nil},
		{"no AI", []string{"/data1"}, nil, "/data1", nil},
		{"with the data", []string{"/data1", "/data2"}, []string{"/ai1", "/data2/"}, "/bi", []string{"after-image extents in /data2/, with the data extents"}},
		{"with the BI, twice", []string{"/data1"}, []string{"/bi", "/bi"}, "/bi", []string{"after-image extents in /bi, with the BI extents"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Plan{BlockSize: 8192, Policy: Policy{DataDirs: tt.data, BIDir: tt.bi, AIDirs: tt.ai}}
			got := p.AINotIsolated()
			require.Len(t, got, len(tt.want))
			var md strings.Builder
			require.NoError(t, WritePlacement(&md, p))
			for i, w := range tt.want {
				assert.Contains(t, got[i], w)
				assert.Contains(t, md.String(), "**Warning:** "+w)
			}
			if tt.want == nil {
				assert.NotContains(t, md.String(), "Warning")
			}
		})
	}
}
