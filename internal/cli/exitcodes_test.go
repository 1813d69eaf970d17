package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readOnlyDir is a directory nothing can be created in. Root ignores
// permission bits, so as root it is a directory of a kernel filesystem.
func readOnlyDir(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		d := t.TempDir()
		require.NoError(t, os.Chmod(d, 0o555))
		t.Cleanup(func() { os.Chmod(d, 0o755) })
		return d
	}
	for _, d := range []string{"/proc/self", "/sys/kernel"} {
		if f, err := os.CreateTemp(d, "oedl-test-*"); err == nil {
			f.Close()
			os.Remove(f.Name())
		} else if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
	}
	t.Skip("no read-only directory to try as root")
	return ""
}

// TestExitCodes audits every command against the README's promise (its
// "Exit codes" table): bad usage or input is 2, a precondition outside
// oedl (a read-only output directory, a startup.pf that connects a
// database) is 3, and each message names what is wrong.
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	tba, df := planFixture(t, dir, "", "")
	planDir := filepath.Join(dir, "plan")
	code, _, errOut := runOEDL(append([]string{"plan", "--tabanalys", tba, "--df", df, "-o", planDir}, fixedMachine...)...)
	require.Equal(t, ExitOK, code, errOut)
	file := filepath.Join(dir, "a-file")
	require.NoError(t, os.WriteFile(file, []byte("x\n"), 0o644))
	emptyDF := filepath.Join(dir, "empty.df")
	require.NoError(t, os.WriteFile(emptyDF, nil, 0o644))
	emptyDir := t.TempDir()
	prepared := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(prepared, "prepare.jsonl"), nil, 0o644))
	ro := readOnlyDir(t)
	work := reportWork(t, 0)
	foreignWork := t.TempDir()
	notes := filepath.Join(foreignWork, "calibrate", "notes.txt")
	require.NoError(t, os.MkdirAll(filepath.Dir(notes), 0o755))
	require.NoError(t, os.WriteFile(notes, []byte("x\n"), 0o644))
	// Beside an earlier calibration's log: a DBA's notes, and the source
	// itself (safety trial 6: calibrate cleared both).
	besideLog := t.TempDir()
	besideNotes := filepath.Join(besideLog, "calibrate", "notes.txt")
	inScratch := t.TempDir()
	scratchSource := filepath.Join(inScratch, "calibrate", "dump", "prod.db")
	for _, f := range []string{filepath.Join(besideLog, "calibrate", "calibrate.log"), besideNotes,
		filepath.Join(inScratch, "calibrate", "calibrate.log"), scratchSource} {
		require.NoError(t, os.MkdirAll(filepath.Dir(f), 0o755))
		require.NoError(t, os.WriteFile(f, []byte("x\n"), 0o644))
	}
	foreignVerify := t.TempDir() // another tool's verdict where -o points (safety trial 5)
	require.NoError(t, os.WriteFile(filepath.Join(foreignVerify, "verify.json"), []byte("x\n"), 0o644))
	// A database shut down: its .lk and .lg are absent, their names its
	// own (safety trial 7: --work there made a directory at its lock).
	shut := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(shut, "prod.db"), []byte("x\n"), 0o644))
	runArgs := func(w string) []string {
		return []string{"run", "--source", filepath.Join(dir, "src"), "--target", filepath.Join(dir, "tgt"), "--plan", planDir, "--work", w}
	}
	calibrate := func(more ...string) []string {
		return append([]string{"calibrate", "--source", filepath.Join(dir, "src"), "--plan", planDir}, more...)
	}
	plan := func(more ...string) []string {
		return append(append([]string{"plan", "--tabanalys", tba}, fixedMachine...), more...)
	}
	seqs := "testdata/verify/seqvals" // two _seqvals.d (README there)
	verifyArgs := []string{"verify", "--before", "testdata/verify/before.tba", "--after", "testdata/verify/after-equal.tba"}
	// A DLC whose startup.pf connects a database (safety trial 7).
	pfDLC := filepath.Join(dir, "pf-dlc")
	require.NoError(t, os.MkdirAll(filepath.Join(pfDLC, "bin"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(pfDLC, "startup.pf"), []byte("-db /x/prod -1\n"), 0o644))

	tests := []struct {
		name string
		args []string
		code int
		want string // in the message
	}{
		{"unknown command", []string{"nosuch"}, ExitUsage, `unknown command "nosuch"`},
		{"unknown help topic", []string{"help", "nosuch"}, ExitUsage, `unknown help topic "nosuch"`},
		{"unknown flag", []string{"plan", "--bogus"}, ExitUsage, "--bogus"},

		{"demo: unknown profile", []string{"demo", "--profile", "crm", "--dir", filepath.Join(dir, "demo")}, ExitUsage, `--profile "crm"`},
		{"demo: --dir is a file", []string{"demo", "--dir", file}, ExitUsage, "is a file"},
		{"demo: --dir read-only", []string{"demo", "--dir", filepath.Join(ro, "demo")}, ExitPrecondition, "cannot write"},

		{"plan: -o is a file", plan("-o", file), ExitUsage, "-o " + file + " is a file"},
		{"plan: -o under a file", plan("-o", filepath.Join(file, "plan")), ExitUsage, "is a file"},
		{"plan: -o read-only", plan("-o", filepath.Join(ro, "plan")), ExitPrecondition, "cannot write"},
		{"plan: a Windows --data-dir", plan("--data-dir", `D:\oedata`, "-o", filepath.Join(dir, "p3")), ExitUsage, "is a Windows path"},
		{"plan: an empty .df", plan("--df", emptyDF, "-o", filepath.Join(dir, "p2")), ExitUsage, "empty.df: no ADD TABLE"},

		{"estimate: --html is a directory", []string{"estimate", "--plan", planDir, "--html", emptyDir}, ExitUsage, "is a directory"},
		{"estimate: --html over someone's file", []string{"estimate", "--plan", planDir, "--html", file}, ExitUsage, "is not a file oedl wrote"},
		{"estimate: --html read-only", []string{"estimate", "--plan", planDir, "--html", filepath.Join(ro, "e.html")}, ExitPrecondition, "cannot write"},

		{"calibrate: --work is a file", calibrate("--work", file, "-o", filepath.Join(dir, "c.json")), ExitUsage, "is a file"},
		{"calibrate: -o is a directory", calibrate("--work", filepath.Join(dir, "cw"), "-o", emptyDir), ExitUsage, "is a directory"},
		{"calibrate: someone's files in WORK/calibrate", calibrate("--work", foreignWork, "-o", filepath.Join(dir, "c.json")), ExitUsage, "no calibrate.log"},
		{"calibrate: someone's files beside an earlier calibration's", calibrate("--work", besideLog, "-o", filepath.Join(dir, "c.json")), ExitUsage, "holds what no calibration makes (notes.txt)"},
		{"calibrate: the source in WORK/calibrate", []string{"calibrate", "--source", scratchSource[:len(scratchSource)-len(".db")], "--plan", planDir, "--work", inScratch, "-o", filepath.Join(dir, "c.json")}, ExitUsage, "prod.db is inside"},
		{"calibrate: -o over someone's file", calibrate("--work", filepath.Join(dir, "cw"), "-o", file), ExitUsage, "is not a file oedl wrote"},
		{"calibrate: -o read-only", calibrate("--work", filepath.Join(dir, "cw"), "-o", filepath.Join(ro, "c.json")), ExitPrecondition, "cannot write"},

		{"run: --work is a file", runArgs(file), ExitUsage, "is a file"},
		{"run: --work at a database's absent lock file", runArgs(filepath.Join(shut, "prod.lk")), ExitUsage, "nothing is there yet, but " + filepath.Join(shut, "prod.lk") + " would be made under the name of a file of the database " + filepath.Join(shut, "prod")},
		{"run: --work under a database's absent log", runArgs(filepath.Join(shut, "prod.lg", "work")), ExitUsage, filepath.Join(shut, "prod.lg") + " would be made"},
		{"plan: -o at a database's .st", plan("-o", filepath.Join(shut, "prod.st")), ExitUsage, "(prod.st, which OpenEdge makes"},
		{"verify: -o at a database's lock", append(verifyArgs, "-o", filepath.Join(shut, "prod.lk")), ExitUsage, "oedl makes nothing under another database's names"},
		{"report: --html at a database's log", []string{"report", "--work", work, "--html", filepath.Join(shut, "prod.lg")}, ExitUsage, "oedl makes nothing under another database's names"},
		{"run: --work read-only", runArgs(filepath.Join(ro, "work")), ExitPrecondition, "cannot write"},
		{"run: a comma in --work", runArgs(filepath.Join(dir, "a,b")), ExitUsage, "comma"},
		{"run: a Windows --target", []string{"run", "--source", filepath.Join(dir, "src"), "--target", `D:\db\prod`, "--plan", planDir, "--work", filepath.Join(dir, "ww")}, ExitUsage, "is a Windows path"},
		{"prepare: a Windows --source", []string{"prepare", "--source", `.\prod`, "--target", filepath.Join(dir, "tgt"), "--plan", planDir, "--work", filepath.Join(dir, "ww")}, ExitUsage, "is a Windows path"},
		{"run: a startup.pf that connects a database", append(runArgs(filepath.Join(dir, "wpf")), "--dlc", pfDLC, "--dry-run"), ExitPrecondition, "connects a database"},
		{"run: no plan.json", []string{"run", "--source", "s", "--target", "t", "--plan", emptyDir, "--work", filepath.Join(dir, "w")}, ExitUsage, "plan.json"},

		{"status: --work is a file", []string{"status", "--work", file}, ExitUsage, "journal"},
		{"status: no journal", []string{"status", "--work", emptyDir}, ExitUsage, "holds no run (journal.jsonl is missing)"},
		{"status: a preparation, no run yet", []string{"status", "--work", prepared}, ExitUsage, "holds the preparation of a target (prepare.jsonl) and no run yet"},

		{"verify: -o is a file", append(verifyArgs, "-o", file), ExitUsage, "is a file"},
		{"verify: -o over someone's verify.json", append(verifyArgs, "-o", foreignVerify), ExitUsage, "verify.json exists and is not a file oedl wrote"},
		{"verify: -o read-only", append(verifyArgs, "-o", filepath.Join(ro, "v")), ExitPrecondition, "cannot write"},
		{"verify: one report twice", []string{"verify", "--before", "testdata/verify/before.tba", "--after", "testdata/verify/before.tba"}, ExitUsage, "--before and --after are the same file"},
		{"verify: --before-seqs alone", append(verifyArgs, "--before-seqs", seqs+"/source_seqvals.d"), ExitUsage, "give both --before-seqs FILE and --after-seqs FILE"},
		{"verify: --after-seqs not sequence values", append(verifyArgs, "--before-seqs", seqs+"/source_seqvals.d", "--after-seqs", "testdata/verify/before.tba"), ExitUsage, "testdata/verify/before.tba:6: 1 fields, want \"name\" value or number \"name\" value"},
		{"verify: one sequence file twice", append(verifyArgs, "--before-seqs", seqs+"/source_seqvals.d", "--after-seqs", seqs+"/source_seqvals.d"), ExitUsage, "--before-seqs and --after-seqs are the same file"},
		{"verify: a sequence value differs", append(verifyArgs, "--before-seqs", seqs+"/source_seqvals.d", "--after-seqs", seqs+"/target_seqvals.d"), ExitFailed, "sequence values differ between the source and the target: NextOrdNum 41196 -> 0"},
		{"verify: nothing to compare", []string{"verify", "--before", "testdata/verify/meta-only.tba", "--after", "testdata/verify/meta-only.tba"}, ExitUsage, "no application table"},

		{"report: --html is a directory", []string{"report", "--work", work, "--html", emptyDir}, ExitUsage, "is a directory"},
		{"report: --html over someone's file", []string{"report", "--work", work, "--html", file}, ExitUsage, "is not a file oedl wrote"},
		{"report: --html read-only", []string{"report", "--work", work, "--html", filepath.Join(ro, "r.html")}, ExitPrecondition, "cannot write"},
		{"report: --work without a run", []string{"report", "--work", emptyDir}, ExitUsage, "journal.jsonl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runOEDL(tt.args...)
			assert.Equal(t, tt.code, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
			assert.Contains(t, errOut, tt.want)
		})
	}
	got, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, "x\n", string(got), "no command replaced a file oedl did not write")
	assert.FileExists(t, notes, "calibrate cleared no one's directory")
	assert.FileExists(t, besideNotes, "calibrate cleared no one's files beside its log")
	assert.FileExists(t, scratchSource, "calibrate cleared no source")
	got, err = os.ReadFile(filepath.Join(foreignVerify, "verify.json"))
	require.NoError(t, err)
	assert.Equal(t, "x\n", string(got), "verify -o replaced someone's verify.json")
	assert.NoDirExists(t, filepath.Join(dir, "demo"), "a refused demo wrote nothing")
	assert.NoDirExists(t, filepath.Join(dir, "p2"), "a refused plan wrote nothing")
}

// TestRunWritesNothingInAForeignWorkDirectory: `--work` naming a directory
// that holds someone's files (here a database's) is refused, exit 3, before
// run or prepare writes its log, lock or journal there.
func TestRunWritesNothingInAForeignWorkDirectory(t *testing.T) {
	dir := t.TempDir()
	tba, df := planFixture(t, dir, "", "")
	planDir := filepath.Join(dir, "plan")
	code, _, errOut := runOEDL(append([]string{"plan", "--tabanalys", tba, "--df", df, "-o", planDir}, fixedMachine...)...)
	require.Equal(t, ExitOK, code, errOut)
	for _, cmd := range []string{"run", "prepare"} {
		t.Run(cmd, func(t *testing.T) {
			dbDir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dbDir, "prod.db"), []byte("x"), 0o644))
			code, _, errOut := runOEDL(cmd, "--source", filepath.Join(dir, "src"), "--target", filepath.Join(dir, "tgt"),
				"--plan", planDir, "--work", dbDir)
			assert.Equal(t, ExitPrecondition, code, errOut)
			assert.Contains(t, errOut, filepath.Join(dbDir, "prod.db"))
			entries, err := os.ReadDir(dbDir)
			require.NoError(t, err)
			assert.Len(t, entries, 1, "the refused %s wrote into the directory", cmd)
		})
	}
}

// TestOutputFilesReplaceOnlyOedls: --html and calibrate -o replace a file
// oedl wrote (the estimate run again, an older calibration), and nothing
// else: a database's files stay as they are.
func TestOutputFilesReplaceOnlyOedls(t *testing.T) {
	tests := []struct {
		name string
		ours func([]byte) bool
		head string
		want bool
	}{
		{"an estimate page", oedlHTML, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>oedl estimate: /db/prod</title>", true},
		{"a run report", oedlHTML, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<title>oedl run report: /db/a → /db/b</title>", true},
		{"someone's page", oedlHTML, "<!DOCTYPE html>\n<title>Intranet</title>", false},
		{"a control area", oedlHTML, "\x00\x01\x02 binary", false},
		{"a calibration", oedlCalibration, "{\n  \"version\": 3,\n  \"origin\": \"calibrated\",\n  \"hardware\": {", true},
		{"a .st", oedlCalibration, "b /db/prod.b1\nd \"Schema Area\":6,32;1 /db/prod.d1\n", false},
		{"someone's JSON", oedlCalibration, "{\"name\": \"x\"}", false},
		{"a verify.json", oedlVerify, "{\n  \"v\": 1,\n  \"ok\": true,\n  \"before\": {\n    \"file\": \"/w/source.tba\"", true},
		{"someone's verify.json", oedlVerify, "{\"status\": \"passed\"}", false},
		{"a counts list", oedlCounts, "PUB.Benefits 73\nPUB.BillTo 8\nPUB.Bi", true},
		{"a text", oedlCounts, "notes about the migration\n", false},
		{"a control area", oedlCounts, "\x00\x01\x02 binary", false},
		{"a run's report.md", oedlReportMD, "# oedl run report: /db/a → /db/b\n\n**The copy", true},
		{"someone's report.md", oedlReportMD, "# Migration notes\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.ours([]byte(tt.head)))
		})
	}
}

// TestOutputFilesInADirectoryNotYetMade: an output file whose directory
// does not exist yet passes the check before the work (its directory can
// be created), so the write makes it: an estimate or report page under
// out/ was refused at the very end, exit 1, naming a temporary file.
// (calibrate -o: TestCalibrateEndToEndWithOesim writes into out/.)
func TestOutputFilesInADirectoryNotYetMade(t *testing.T) {
	dir := t.TempDir()
	tba, df := planFixture(t, dir, "", "")
	planDir := filepath.Join(dir, "plan")
	code, _, errOut := runOEDL(append([]string{"plan", "--tabanalys", tba, "--df", df, "-o", planDir}, fixedMachine...)...)
	require.Equal(t, ExitOK, code, errOut)
	work := reportWork(t, 0)
	tests := []struct {
		name string
		args func(page string) []string
	}{
		{"estimate --html", func(page string) []string { return []string{"estimate", "--plan", planDir, "--html", page} }},
		{"report --html", func(page string) []string { return []string{"report", "--work", work, "--html", page} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page := filepath.Join(t.TempDir(), "out", "for the manager", "window.html")
			code, out, errOut := runOEDL(tt.args(page)...)
			require.Equal(t, ExitOK, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
			head, err := readHead(page)
			require.NoError(t, err)
			assert.True(t, oedlHTML(head), "the page is written")
		})
	}
}

// TestReportReplacesOnlyARunsReports: oedl report --work writes
// report.md and report.html there; a directory holding a journal copied
// among someone's files had his report.md replaced (safety trial 11).
// Now exit 2, the file as it was; a run's own reports are replaced.
func TestReportReplacesOnlyARunsReports(t *testing.T) {
	for _, name := range []string{"report.md", "report.html"} {
		t.Run(name, func(t *testing.T) {
			work := reportWork(t, 0)
			code, _, errOut := runOEDL("report", "--work", work)
			require.Equal(t, ExitOK, code, errOut)
			code, _, errOut = runOEDL("report", "--work", work)
			require.Equal(t, ExitOK, code, "a run's own reports are replaced: %s", errOut)
			p := filepath.Join(work, name)
			require.NoError(t, os.WriteFile(p, []byte("# Migration notes\n"), 0o644))
			code, _, errOut = runOEDL("report", "--work", work)
			assert.Equal(t, ExitUsage, code, errOut)
			assert.Contains(t, errOut, p+" exists and is not a file oedl wrote")
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			assert.Equal(t, "# Migration notes\n", string(b))
		})
	}
}
