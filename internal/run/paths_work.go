package run

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/oedl/oedl/internal/atomicfile"
	"github.com/oedl/oedl/internal/estimate"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/manifest"
)

// CheckWorkUnwritten refuses, before anything is written there, a work
// directory that already exists, has no journal records and holds files
// that are not oedl's (a database's directory given as --work, say): the
// run would otherwise create its lock, log, journal and dump/ and sort/
// directories among them and only then refuse. A directory with a journal
// is left to the run (a resume, or the refusal of a second first run).
// Read-only: it creates nothing, so the CLI calls it before its log file.
func CheckWorkUnwritten(cfg Config) error {
	if cfg.Work == "" {
		return nil
	}
	if _, err := os.Stat(cfg.Work); err != nil {
		return nil // a new directory (or one the run's own checks report)
	}
	recs, err := journal.Read(filepath.Join(cfg.Work, journal.FileName))
	switch {
	case err == nil && len(recs) > 0:
		return nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		// A journal there that cannot be read is what to say, naming its
		// line: read as no journal, every file of the run was "not from a
		// run this work directory's journal knows", and the advice, a new
		// --work, threw the run's progress away.
		return &PreconditionError{Err: err}
	}
	planJSON, err := json.MarshalIndent(cfg.Plan, "", "  ")
	if err != nil {
		return err
	}
	prepared, err := journal.Read(filepath.Join(cfg.Work, journal.PrepareFileName))
	return checkWork(cfg.Work, planJSON, err == nil && len(prepared) > 0)
}

// checkWork proves the work files of a first invocation (no journal
// records): the work directory holds nothing but what the CLI and the lock
// made already and what an invocation killed before its first journal
// record may have written (the same plan.json, empty directories, the
// shipped ABL). Anything else is someone's file a run would write over
// (a plan.json, a report, dumps of another run whose journal is gone).
// With prepared (the work directory's preparation was read and holds for
// this run), the preparation's journal, tabanalys and logs are its own.
func checkWork(work string, planJSON []byte, prepared bool) error {
	entries, err := os.ReadDir(work)
	if err != nil {
		return precondition("work directory: %v", err)
	}
	var bad []manifest.Conflict
	for _, e := range entries {
		path := filepath.Join(work, e.Name())
		if harmlessWorkFile(path, e, planJSON) || (prepared && preparationFile(path, e)) {
			continue
		}
		is := "not from a run this work directory's journal knows"
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			is = "a symbolic link: oedl writes its own files there, never through a link"
		case e.IsDir() && e.Name() == estimate.ScratchDir:
			// What `oedl calibrate --work` leaves: the run cannot tell it
			// from someone's directory of that name, so it is not taken,
			// but the DBA is told what it is and what to do (safety trial 10).
			is = "a calibration's scratch, if oedl calibrate --work made it (a run never writes there): once the calibration is over, remove it or run in another --work"
		}
		bad = append(bad, manifest.Conflict{Entry: manifest.Entry{Path: path, Resolved: path, What: "in the work directory"}, Is: is})
	}
	if len(bad) > 0 {
		return &PreconditionError{Err: &manifest.ConflictError{Conflicts: bad,
			Advice: "a run writes its plan, dumps, logs and reports there: give a new or empty --work directory"}}
	}
	return nil
}

// harmlessWorkFile tells what a killed or refused first run leaves. Its
// files are regular files, never symbolic links: oedl appends to its log
// and truncates its lock, and through a link named oedl.log or oedl.lock
// it would write into whatever the link leads to (a database's extent).
func harmlessWorkFile(path string, e fs.DirEntry, planJSON []byte) bool {
	dir, regular := e.IsDir(), e.Type().IsRegular()
	switch e.Name() {
	case LogFile, LockFile, SourceTaskFile:
		// SourceTaskFile: a preflight killed between dump_lasttask.p and
		// its removal (fingerprint.go).
		return regular
	case journal.FileName, journal.PrepareFileName:
		st, err := os.Lstat(path)
		return err == nil && st.Mode().IsRegular() && st.Size() == 0
	case PlanFile:
		data, err := os.ReadFile(path)
		return regular && err == nil && string(data) == string(planJSON)+"\n"
	case "logs":
		// logs/run.log is appended to by every invocation, a refused one
		// included; logs/prepare.log by every oedl prepare, and one
		// refused before it journalled anything leaves it with nothing
		// else (the run never writes it: it is left as it is).
		return dir && emptyTree(path, "run.log", "prepare.log")
	case "dump", "sort", SecurityDir, TargetSecurityDir:
		// made before the first journal record (the security directories
		// because dump_security.p cannot make them).
		return dir && emptyTree(path)
	case "abl":
		return dir && onlyShippedABL(path)
	}
	return false
}

// preparationFile is a file `oedl prepare` leaves in the work directory.
func preparationFile(path string, e fs.DirEntry) bool {
	dir := e.IsDir()
	switch e.Name() {
	case journal.PrepareFileName, PreparedAnalysis:
		return e.Type().IsRegular()
	case "logs":
		return dir && emptyTree(path, "run.log", "prepare.log", "preflight.log", "create-target.log", PreparedAnalysisJob+".log")
	}
	return false
}

// emptyTree reports whether dir holds nothing but empty directories (and
// the files named in keep, at its top).
func emptyTree(dir string, keep ...string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if e.Type().IsRegular() && slices.Contains(keep, e.Name()) {
			continue
		}
		if !e.IsDir() || !emptyTree(filepath.Join(dir, e.Name())) {
			return false
		}
	}
	return true
}

func onlyShippedABL(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		want, err := ablFS.ReadFile("abl/" + e.Name())
		if err != nil || !e.Type().IsRegular() {
			return false
		}
		got, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil || string(got) != string(want) {
			return false
		}
	}
	return true
}

// OpenWorkLog opens a log of the work directory (oedl.log, logs/*.log)
// for appending. O_NOFOLLOW: a link planted there would make oedl append
// to whatever it leads to, a database's extent included.
func OpenWorkLog(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return nil, err
	}
	if err := atomicfile.OneName(f); err != nil {
		f.Close()
		return nil, precondition("%v", err)
	}
	return f, nil
}

// workDirs are the directories oedl keeps in a work directory: it writes
// its logs, dumps and batch lists there and empties each dump's directory
// before the dump.
var workDirs = []string{"logs", "dump", "sort", "abl", "batches", SecurityDir, TargetSecurityDir}

// checkWorkDirsNoLink refuses a resume whose work directory has a symbolic
// link where oedl keeps one of its directories. A first run refuses any
// link there (checkWork); a resume's work directory was not checked again,
// and WORK/dump moved to another disk and linked back made the resume
// empty each dump's directory there (rm -rf of OTHER/PUB.Customer: a
// directory of the DBA's of that name with it) and append its logs among
// his files (safety trial 7).
func checkWorkDirsNoLink(work string) error {
	var bad []manifest.Conflict
	for _, d := range workDirs {
		p := filepath.Join(work, d)
		if st, err := os.Lstat(p); err == nil && st.Mode()&fs.ModeSymlink != 0 {
			bad = append(bad, manifest.Conflict{Entry: manifest.Entry{Path: p, Resolved: p, What: "in the work directory"},
				Is: "a symbolic link: oedl writes, and empties its dumps' directories, only in its own directories, never through a link"})
		}
	}
	if len(bad) > 0 {
		return &PreconditionError{Err: &manifest.ConflictError{Conflicts: bad,
			Advice: "put the directory back in the work directory (mv it over the link), then --resume; or start again with a new --work"}}
	}
	return nil
}
