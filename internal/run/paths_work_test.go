package run

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/journal"
)

// TestCheckWork: a first invocation killed before its first journal record
// leaves only what checkWork lets through; anything else is refused by name.
func TestCheckWork(t *testing.T) {
	planJSON, err := json.MarshalIndent(map[string]string{"plan": "x"}, "", "  ")
	require.NoError(t, err)
	tests := []struct {
		name   string
		make   func(t *testing.T, work string)
		refuse string // base name refused, "" when the directory passes
	}{
		{"empty", func(*testing.T, string) {}, ""},
		{"lock and log", func(t *testing.T, w string) {
			write(t, filepath.Join(w, LockFile), "1")
			write(t, filepath.Join(w, LogFile), "x")
		}, ""},
		{"same plan", func(t *testing.T, w string) { write(t, filepath.Join(w, PlanFile), string(planJSON)+"\n") }, ""},
		{"other plan", func(t *testing.T, w string) { write(t, filepath.Join(w, PlanFile), "{}\n") }, PlanFile},
		{"empty dump, sort and security directories", func(t *testing.T, w string) {
			for _, d := range []string{"dump/a", "sort", SecurityDir, TargetSecurityDir} {
				require.NoError(t, os.MkdirAll(filepath.Join(w, d), 0o755))
			}
		}, ""},
		{"a dump file", func(t *testing.T, w string) { write(t, filepath.Join(w, "dump", "t.bd"), "x") }, "dump"},
		{"security of another run", func(t *testing.T, w string) {
			write(t, filepath.Join(w, SecurityDir, "_user.d"), "x")
		}, SecurityDir},
		{"someone's report", func(t *testing.T, w string) { write(t, filepath.Join(w, "report.md"), "x") }, "report.md"},
		// A link where oedl's own file goes: oedl would append to, or
		// truncate, whatever it leads to (a database's extent).
		{"oedl.log a link", func(t *testing.T, w string) { link(t, w, LogFile) }, LogFile},
		{"oedl.lock a link", func(t *testing.T, w string) { link(t, w, LockFile) }, LockFile},
		{"an empty journal a link", func(t *testing.T, w string) { link(t, w, journal.FileName) }, journal.FileName},
		{"a refused prepare's log and an empty journal", func(t *testing.T, w string) {
			write(t, filepath.Join(w, "logs", "prepare.log"), "refused")
			write(t, filepath.Join(w, journal.PrepareFileName), "")
		}, ""},
		{"logs/prepare.log a link", func(t *testing.T, w string) { link(t, w, filepath.Join("logs", "prepare.log")) }, "logs"},
		{"another log in logs", func(t *testing.T, w string) { write(t, filepath.Join(w, "logs", "dump:PUB.t.log"), "x") }, "logs"},
		// What a refused `oedl prepare` leaves (its preflight found the
		// target's files existing): its log and an empty prepare journal.
		// The next prepare or run in the same --work was refused for them,
		// "give a new or empty --work directory" (nu-trial8).
		{"a refused preparation", func(t *testing.T, w string) {
			write(t, filepath.Join(w, LockFile), "1")
			write(t, filepath.Join(w, LogFile), "x")
			write(t, filepath.Join(w, journal.PrepareFileName), "")
			write(t, filepath.Join(w, "logs", "prepare.log"), "x")
		}, ""},
		{"logs/run.log a link", func(t *testing.T, w string) { link(t, w, filepath.Join("logs", "run.log")) }, "logs"},
		{"plan.json a link to the same plan", func(t *testing.T, w string) {
			target := filepath.Join(t.TempDir(), "plan.json")
			write(t, target, string(planJSON)+"\n")
			require.NoError(t, os.Symlink(target, filepath.Join(w, PlanFile)))
		}, PlanFile},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			work := t.TempDir()
			tt.make(t, work)
			err := checkWork(work, planJSON, false)
			if tt.refuse == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), filepath.Join(work, tt.refuse))
			if fi, lerr := os.Lstat(filepath.Join(work, tt.refuse)); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
				assert.Contains(t, err.Error(), "is a symbolic link")
			}
		})
	}
}

// TestCheckWorkNamesACalibrationsScratch: `oedl calibrate --work W` in a
// finished run's work directory, or before a first run in W, leaves
// W/calibrate. A first run there is refused (it cannot prove the directory
// a calibration's), and the refusal says what the directory is and what
// to do, not only "not from a run" (safety trial 10).
func TestCheckWorkNamesACalibrationsScratch(t *testing.T) {
	work := t.TempDir()
	write(t, filepath.Join(work, LockFile), "1 calibrate\n")
	write(t, filepath.Join(work, "calibrate", "calibrate.log"), "x")
	err := checkWork(work, []byte("{}"), false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(work, "calibrate")+" (in the work directory) is a calibration's scratch")
	assert.Contains(t, err.Error(), "remove it or run in another --work")
	assert.NotContains(t, err.Error(), LockFile, "a calibration's lock is oedl's")
}

// link makes name in dir a symbolic link to an empty file elsewhere.
func link(t *testing.T, dir, name string) {
	t.Helper()
	target := filepath.Join(t.TempDir(), "extent.d1")
	write(t, target, "")
	require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
	require.NoError(t, os.Symlink(target, filepath.Join(dir, name)))
}

func write(t *testing.T, path, data string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(data), 0o644))
}

// TestRunWritesNothingInAForeignWorkDirectory: a work directory holding
// someone's files (a database's directory given as --work) is refused
// before the run creates its lock, log, journal or directories there.
func TestRunWritesNothingInAForeignWorkDirectory(t *testing.T) {
	cfg := fakeSetup(t, testTables...)
	cfg.Runner = newFakeOE(cfg.Plan)
	cfg.Work = t.TempDir()
	write(t, filepath.Join(cfg.Work, "prod.db"), "someone's control area")
	_, err := Run(context.Background(), cfg)
	var pe *PreconditionError
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, err.Error(), filepath.Join(cfg.Work, "prod.db"))
	entries, err := os.ReadDir(cfg.Work)
	require.NoError(t, err)
	require.Len(t, entries, 1, "the refused run wrote into the directory")
	assert.Equal(t, "prod.db", entries[0].Name())
}

// TestCheckWorkUnwrittenNamesADamagedJournal: a resume whose journal has
// a damaged line (a write a full disk cut short, before the journal cut
// one back; an edit) was told that every file of its work directory was
// "not from a run this work directory's journal knows" and to "give a new
// or empty --work directory", which throws the run's progress away; the
// journal's own error, naming its line, was not said (new-user trial 6).
func TestCheckWorkUnwrittenNamesADamagedJournal(t *testing.T) {
	work := t.TempDir()
	write(t, filepath.Join(work, journal.FileName),
		`{"v":1,"seq":1,"job":"run","state":"started"}`+"\n"+`{"v":1,"seq":2,"job":"dump:PUB.a","st`+"\n"+`{"v":1,"seq":3,"job":"run","state":"done"}`+"\n")
	write(t, filepath.Join(work, "dump", "PUB.a", "a.bd"), "x")
	err := CheckWorkUnwritten(Config{Work: work})
	require.Error(t, err)
	assert.Contains(t, err.Error(), journal.FileName+":2: corrupt journal line")
	assert.NotContains(t, err.Error(), "give a new or empty --work")
	var pe *PreconditionError
	assert.ErrorAs(t, err, &pe, "exit 3: the journal must be looked at before a resume")
}
