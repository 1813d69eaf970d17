package e2e

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
)

// The preflight's refusals (issue 11): each case is refused with its exit
// code and a message naming the file, before anything is written, and the
// source and any earlier target count what they counted before, by
// `proutil -C tabanalys` run here, not by oedl's own verify.

// counts runs proutil -C tabanalys on db and returns records per table.
func (e *env) counts(db string) map[string]int64 {
	e.t.Helper()
	cmd := exec.Command(filepath.Join(e.fx.dlc, "bin", "proutil"), db, "-C", "tabanalys")
	cmd.Env = append(os.Environ(), e.extra...)
	out, err := cmd.CombinedOutput()
	require.NoError(e.t, err, "tabanalys %s\n%s", db, out)
	a, err := openedge.ParseAnalysis(strings.NewReader(string(out)), db)
	require.NoError(e.t, err)
	m := map[string]int64{}
	for _, ts := range a.Tables {
		if !ts.System() { // the meta-schema (PUB._Area, ...) is each database's own
			m[ts.Owner+"."+ts.Name] = ts.Records
		}
	}
	require.NotEmpty(e.t, m)
	return m
}

// files is every file under dir with its size and content hash.
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".lg") {
			return err // the log gets a line per utility that opens the database
		}
		data, err := os.ReadFile(p)
		m[p] = fmt.Sprintf("%d %x", len(data), sha256.Sum256(data))
		return err
	}))
	return m
}

// untouched checks that db counts and holds what it did before.
func (e *env) untouched(db string, counts map[string]int64, before map[string]string) {
	e.t.Helper()
	assert.Equal(e.t, counts, e.counts(db), "%s counts what it counted before", db)
	assert.Equal(e.t, before, files(e.t, filepath.Dir(db)), "%s's files are as they were", db)
}

// plan writes a plan of the fixture's template source (not this test's
// copy) with extra flags into a directory of the env.
func (e *env) plan(name string, extra ...string) string {
	e.t.Helper()
	dir := filepath.Join(e.dir, name)
	r := e.oedl(nil, append([]string{"plan", "--source", e.fx.source, "--dlc", e.fx.dlc, "-o", dir}, extra...)...)
	require.Equal(e.t, 0, r.code, r.stderr)
	return dir
}

func (e *env) runWith(planDir, target, work string, extra ...string) result {
	e.t.Helper()
	return e.oedl(nil, append([]string{"run", "--source", e.source, "--target", target, "--plan", planDir,
		"--work", work, "--dlc", e.fx.dlc, "--no-tui", "--job-timeout", "2m"}, extra...)...)
}

// The README's pattern with the source's own directory as --data-dir and
// the source's name: oedl plan refuses it, and so do oedl run and its dry
// run for a plan made elsewhere, naming the source's files; the same for a
// relative-path source, whose extents oedl resolves from its .db's
// directory, not from the scratch directory prostrct list runs in.
func TestPreflightSourceDirectoryAsDataDir(t *testing.T) {
	for _, profile := range []string{"sports", "sports" + relativeSuffix} {
		t.Run(profile, func(t *testing.T) { sourceDirectoryAsDataDir(t, profile) })
	}
}

func sourceDirectoryAsDataDir(t *testing.T, profile string) {
	e := newEnv(t, profile)
	counts, before := e.counts(e.source), files(t, filepath.Dir(e.source))

	r := e.oedl(nil, "plan", "--source", e.source, "--dlc", e.fx.dlc, "-o", filepath.Join(e.dir, "refused"), "--data-dir", filepath.Dir(e.source))
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, filepath.Join(filepath.Dir(e.source), "sports_7.d1")+" (extent 1 of area")
	assert.Contains(t, r.stderr, "is the source's")
	assert.NoDirExists(t, filepath.Join(e.dir, "refused"))

	planDir := e.plan("plan", "--data-dir", filepath.Dir(e.source))
	target := filepath.Join(e.dir, "newdb", "sports")
	for _, dry := range []bool{true, false} {
		args := []string{}
		if dry {
			args = append(args, "--dry-run")
		}
		r := e.runWith(planDir, target, e.work, args...)
		require.Equal(t, 3, r.code, "dry run %v: %s", dry, r.stderr)
		assert.Contains(t, r.stderr, filepath.Join(filepath.Dir(e.source), "sports.b1")+" (before-image extent 1, "+filepath.Join(planDir, "target.st")+":2) is the source's")
		assert.Contains(t, r.stderr, "the target would be created over the source")
	}
	assert.NoFileExists(t, target+".db")
	e.untouched(e.source, counts, before)
}

// One plan, two targets: the second would be created on the first's
// extents (the plan's data directory); --resume with an empty work
// directory would create over the first; --force replaces the first only
// because its record proves oedl made it.
func TestPreflightSecondTargetAndResumeWithoutJournal(t *testing.T) {
	e := newEnv(t, "sports")
	data := filepath.Join(e.dir, "data")
	planDir := e.plan("plan", "--data-dir", data)
	first := filepath.Join(e.dir, "t1", "sports")
	r := e.runWith(planDir, first, e.work)
	require.Equal(t, 0, r.code, r.stderr)
	e.verified()
	assert.FileExists(t, first+".oedl.json")
	counts, before := e.counts(first), files(t, data)
	require.Equal(t, e.counts(e.source), counts)

	second := filepath.Join(e.dir, "t2", "sports")
	for _, force := range [][]string{nil, {"--force"}} {
		r = e.runWith(planDir, second, filepath.Join(e.dir, fmt.Sprint("work2", len(force))), force...)
		require.Equal(t, 3, r.code, r.stderr)
		assert.Contains(t, r.stderr, filepath.Join(data, "sports_7.d1")+" (extent 1 of area")
		assert.Contains(t, r.stderr, "an existing file")
	}
	assert.NoFileExists(t, second+".db")

	empty := filepath.Join(e.dir, "emptied")
	require.NoError(t, os.MkdirAll(empty, 0o755))
	r = e.runWith(planDir, first, empty, "--resume")
	require.Equal(t, 3, r.code, r.stderr)
	assert.Contains(t, r.stderr, first+".db (its control area) is a file of the database "+first+" an earlier oedl run made (give --force to replace it)")
	assert.Contains(t, r.stderr, "no journal")
	assert.Equal(t, counts, e.counts(first))
	assert.Equal(t, before, files(t, data))

	r = e.runWith(planDir, first, filepath.Join(e.dir, "work3"), "--force")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "verified:")
	assert.Equal(t, counts, e.counts(first), "replaced by a verified copy")
}

// A target that reaches the source through a symbolic link is the source
// (exit 2), --force or not; extents planned through a link into the
// source's directory are the source's files (exit 3).
func TestPreflightForceThroughALinkToTheSource(t *testing.T) {
	e := newEnv(t, "sports")
	counts, before := e.counts(e.source), files(t, filepath.Dir(e.source))
	link := filepath.Join(e.dir, "link")
	require.NoError(t, os.Symlink(filepath.Dir(e.source), link))

	r := e.oedl(nil, e.runArgs("--force")...)
	require.Equal(t, 0, r.code, r.stderr) // a first target, to have something --force may replace

	r = e.runWith(e.fx.planDir, filepath.Join(link, "sports"), filepath.Join(e.dir, "w2"), "--force")
	require.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, "--source and --target are the same database")

	planDir := e.plan("plan", "--data-dir", filepath.Join(e.dir, "link2"))
	require.NoError(t, os.Symlink(filepath.Dir(e.source), filepath.Join(e.dir, "link2")))
	r = e.runWith(planDir, e.target, filepath.Join(e.dir, "w3"), "--force")
	require.Equal(t, 3, r.code, r.stderr)
	assert.Contains(t, r.stderr, filepath.Join(e.dir, "link2", "sports_7.d1")+" (extent 1 of area")
	assert.Contains(t, r.stderr, ", which is "+filepath.Join(filepath.Dir(e.source), "sports_7.d1")+", is the source's")
	e.untouched(e.source, counts, before)
}

// A plan made from another database is refused before anything is
// dumped, naming the tables.
func TestPreflightForeignPlan(t *testing.T) {
	e := newEnv(t, "sports")
	erp := setup(t, "erp")
	counts := e.counts(e.source)
	r := e.runWith(erp.planDir, e.target, e.work)
	require.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, "plan.json was not made from the source "+e.source)
	assert.Contains(t, r.stderr, "tables are not in the source")
	assert.NoFileExists(t, e.target+".db")
	assert.NoDirExists(t, filepath.Join(e.work, "dump", "PUB.Customer"), "nothing dumped")
	assert.Equal(t, counts, e.counts(e.source))
}

// A source someone else serves: refused (users may be writing) unless
// --online-source, then dumped through that broker with a warning on the
// screen and in the report, and the broker left up.
func TestPreflightServedSource(t *testing.T) {
	e := newEnv(t, "sports")
	dlc := func(prog string, args ...string) {
		cmd := exec.Command(filepath.Join(e.fx.dlc, "bin", prog), args...)
		cmd.Env = append(os.Environ(), e.extra...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s %v\n%s", prog, args, out)
	}
	dlc("proserve", e.source)
	t.Cleanup(func() { exec.Command(filepath.Join(e.fx.dlc, "bin", "proshut"), e.source, "-by").Run() })

	r := e.oedl(nil, e.runArgs("--dump-jobs", "2")...)
	require.Equal(t, 3, r.code, r.stderr)
	assert.Contains(t, r.stderr, "served by a broker oedl did not start (276)")
	assert.Contains(t, r.stderr, "--online-source")
	assert.NoFileExists(t, e.target+".db")

	r = e.oedl(nil, e.runArgs("--dump-jobs", "2", "--online-source")...)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "dumped ONLINE")
	e.verified()
	report, err := os.ReadFile(filepath.Join(e.work, "report.md"))
	require.NoError(t, err)
	assert.Contains(t, string(report), "warning: the source "+e.source+" is served by a broker oedl did not start")
	dlc("proshut", e.source, "-by") // the DBA's broker was left running for the DBA to stop
}

// A target.df with a typo, an index on a missing field and a field OF a
// missing table: oedl plan, the dry run and the run all refuse it with
// file:line (exit 2), before the outage.
func TestPreflightBadTargetDF(t *testing.T) {
	e := newEnv(t, "sports")
	counts := e.counts(e.source)
	srcDF, err := os.ReadFile(filepath.Join(e.fx.planDir, "source.df"))
	require.NoError(t, err)
	bad := breakDF(t, string(srcDF))
	badDF := filepath.Join(e.dir, "bad.df")
	require.NoError(t, os.WriteFile(badDF, []byte(bad), 0o644))

	r := e.oedl(nil, "plan", "--tabanalys", filepath.Join(e.fx.planDir, "source.dba"), "--df", badDF, "-o", filepath.Join(e.dir, "p"))
	require.Equal(t, 2, r.code, r.stderr)
	assert.Regexp(t, `\Q`+badDF+`\E:\d+: "ADD FEILD" is not a \.df statement`, r.stderr)

	planDir := copyPlan(t, e.fx.planDir, filepath.Join(e.dir, "plan"))
	target, err := os.ReadFile(filepath.Join(planDir, "target.df"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(planDir, "target.df"), []byte(breakDF(t, string(target))), 0o644))
	for _, dry := range []bool{true, false} {
		args := []string{}
		if dry {
			args = append(args, "--dry-run")
		}
		r := e.runWith(planDir, e.target, e.work, args...)
		require.Equal(t, 2, r.code, "dry run %v: %s", dry, r.stderr)
		df := filepath.Join(planDir, "target.df")
		assert.Regexp(t, `\Q`+df+`\E:\d+: "ADD FEILD" is not a \.df statement`, r.stderr)
		assert.Regexp(t, `\Q`+df+`\E:\d+: index "[^"]+" of "[^"]+" is on field "NoSuchField", which the table does not have`, r.stderr)
		assert.Regexp(t, `\Q`+df+`\E:\d+: field "[^"]+" is added OF "NoSuchTable", a table this file does not add`, r.stderr)
	}
	assert.NoFileExists(t, e.target+".db")
	assert.Equal(t, counts, e.counts(e.source))
}

// breakDF puts three mistakes in a .df: ADD FEILD, an index on a missing
// field, a field OF a missing table.
func breakDF(t *testing.T, df string) string {
	t.Helper()
	lines := strings.Split(df, "\n")
	var fields []int
	ixField := -1
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "ADD FIELD "):
			fields = append(fields, i)
		case ixField < 0 && strings.HasPrefix(l, "  INDEX-FIELD "):
			ixField = i
		}
	}
	require.GreaterOrEqual(t, len(fields), 3)
	require.GreaterOrEqual(t, ixField, 0)
	lines[fields[0]] = strings.Replace(lines[fields[0]], "ADD FIELD", "ADD FEILD", 1)
	lines[ixField] = `  INDEX-FIELD "NoSuchField" ASCENDING `
	of := strings.Index(lines[fields[len(fields)-1]], ` OF "`)
	rest := lines[fields[len(fields)-1]][of+5:]
	lines[fields[len(fields)-1]] = lines[fields[len(fields)-1]][:of] + ` OF "NoSuchTable"` + rest[strings.Index(rest, `"`)+1:]
	return strings.Join(lines, "\n")
}

// plan.json that disagrees with itself or with target.st / target.df:
// refused with exit 2 naming the disagreement, nothing run.
func TestPreflightInconsistentPlan(t *testing.T) {
	e := newEnv(t, "sports")
	tests := []struct {
		name   string
		break_ func(p map[string]any)
		want   string
	}{
		{"data_area naming another existing area", func(p map[string]any) {
			tables := p["tables"].([]any)
			a, b := tables[0].(map[string]any), tables[len(tables)-1].(map[string]any)
			for _, t := range tables {
				if t.(map[string]any)["data_area"] != a["data_area"] {
					b = t.(map[string]any)
				}
			}
			a["data_area"] = b["data_area"]
		}, "plan.json: table PUB."},
		{"rpb 0 and bpc 3", func(p map[string]any) {
			area := p["areas"].([]any)[0].(map[string]any)
			area["rpb"], area["bpc"] = 0, 3
		}, "records per block is a power of 2"},
		{"area renamed in plan.json only", func(p map[string]any) {
			p["areas"].([]any)[0].(map[string]any)["name"] = "Renamed"
		}, `area "Renamed" of plan.json is not in`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			planDir := copyPlan(t, e.fx.planDir, filepath.Join(t.TempDir(), "plan"))
			path := filepath.Join(planDir, "plan.json")
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			var p map[string]any
			require.NoError(t, json.Unmarshal(data, &p))
			tt.break_(p)
			data, err = json.Marshal(p)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(path, data, 0o644))
			r := e.runWith(planDir, e.target, filepath.Join(t.TempDir(), "work"))
			require.Equal(t, 2, r.code, r.stderr)
			assert.Contains(t, r.stderr, "does not hold together")
			assert.Contains(t, r.stderr, tt.want)
			assert.NoFileExists(t, e.target+".db")
		})
	}
}

func copyPlan(t *testing.T, from, to string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(to, 0o755))
	entries, err := os.ReadDir(from)
	require.NoError(t, err)
	for _, en := range entries {
		data, err := os.ReadFile(filepath.Join(from, en.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(to, en.Name()), data, 0o644))
	}
	return to
}

// A source whose code page is not $DLC/emptyN's (seed 003's "Watch out!":
// the target takes the empty database's through procopy): the dry run and
// the run refuse it with exit 3 naming both code pages, before anything is
// written; with --allow-change codepage the run goes on and the warning is
// on the screen and in the report.
func TestPreflightCodepageDiffers(t *testing.T) {
	e := newEnv(t, "sports")
	cmd := exec.Command(filepath.Join(e.fx.dlc, "bin", "proutil"), e.source, "-C", "convchar", "convert", "UTF-8")
	cmd.Env = append(os.Environ(), e.extra...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	counts, before := e.counts(e.source), files(t, filepath.Dir(e.source))

	for _, dry := range []bool{true, false} {
		args := []string{}
		if dry {
			args = append(args, "--dry-run")
		}
		r := e.oedl(nil, e.runArgs(args...)...)
		require.Equal(t, 3, r.code, "dry run %v: %s", dry, r.stderr)
		assert.Contains(t, r.stderr, "codepage: source UTF-8, target ISO8859-1 (the codepage of "+filepath.Join(e.fx.dlc, "empty8"), "dry run %v", dry)
		assert.Contains(t, r.stderr, "--allow-change codepage", "dry run %v", dry)
	}
	assert.NoFileExists(t, e.target+".db")
	assert.NoFileExists(t, filepath.Join(e.work, "plan.json"), "the plan is copied once the preflight passed")
	assert.NoDirExists(t, filepath.Join(e.work, "dump", "PUB.Customer"), "nothing dumped")
	e.untouched(e.source, counts, before)

	r := e.oedl(nil, e.runArgs("--dry-run", "--allow-change", "codepage")...)
	require.Equal(t, 0, r.code, r.stderr)
	warning := "codepage: source UTF-8, target ISO8859-1 (the codepage of " + filepath.Join(e.fx.dlc, "empty8") + ", which procopy gives it): --allow-change codepage"
	assert.Contains(t, r.stderr, "warning: "+warning)

	r = e.oedl(nil, e.runArgs("--dump-jobs", "2", "--allow-change", "codepage")...)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, warning)
	e.verified()
	report, err := os.ReadFile(filepath.Join(e.work, "report.md"))
	require.NoError(t, err)
	assert.Contains(t, string(report), "warning: "+warning)
	// The steps after the load oedl leaves to the DBA, with why: this
	// source had neither after-imaging nor replication.
	assert.Contains(t, string(report), "## After the load")
	assert.Contains(t, string(report), "| after-imaging | no | the source had after-imaging off")
	assert.Contains(t, string(report), "| replication | no | the source was not a replication source")
	assert.Contains(t, string(report), "| statistics | yes |")
	sql, err := os.ReadFile(filepath.Join(e.work, "update-statistics.sql"))
	require.NoError(t, err)
	assert.Contains(t, string(sql), `UPDATE TABLE STATISTICS AND INDEX STATISTICS AND ALL COLUMN STATISTICS FOR "PUB"."Customer";`)
}

// A relative-path source migrates and verifies: every utility oedl runs
// on it (from scratch and work directories) finds its extents.
func TestRelativePathSourceRun(t *testing.T) {
	e := newEnv(t, "sports"+relativeSuffix)
	list := exec.Command(filepath.Join(e.fx.dlc, "bin", "prostrct"), "list", e.source, filepath.Join(e.dir, "list.st"))
	list.Env = append(os.Environ(), e.extra...)
	out, err := list.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "Name: ./sports_7.d1", "the fixture is a relative-path database")
	r := e.oedl(nil, e.runArgs()...)
	require.Equal(t, 0, r.code, r.stderr)
	e.verified()
	assert.Equal(t, e.counts(e.source), e.counts(e.target))
}
