package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/oedl/oedl/internal/manifest"
)

// Every command checks where it will write before it does any work, so
// that an hour of calibration or a whole plan is not lost at the last
// step, and the exit code says who must act: a path that names a file
// where a directory is wanted (or the reverse) is bad usage (2); a
// directory that cannot be created or written is a precondition (3).

// checkOutputDir checks that dir (given with flag) is, or can be created
// as, a writable directory. It creates nothing.
func checkOutputDir(flag, dir string) error {
	if err := notADatabasesName(flag, dir); err != nil {
		return err
	}
	st, err := os.Stat(dir)
	if err == nil && !st.IsDir() {
		return UsageError("%s %s is a file, not a directory", flag, dir)
	}
	if err == nil {
		return probeWrite(flag, dir, dir)
	}
	return checkAncestor(flag, dir, dir)
}

// checkOutputFile checks that path (given with flag) can be written as a
// file: it is not a directory, its directory can be written, and a file
// already there is one oedl wrote (ours says so from its first bytes):
// `--html prod.db` or `-o prod.st` must not replace a database's file, nor
// anyone else's.
func checkOutputFile(flag, path string, ours func(head []byte) bool) error {
	if err := notADatabasesName(flag, path); err != nil {
		return err
	}
	st, err := os.Stat(path)
	if err == nil && st.IsDir() {
		return UsageError("%s %s is a directory, not a file", flag, path)
	}
	if err == nil && st.Size() > 0 {
		head, err := readHead(path)
		if err != nil {
			return PreconditionError(fmt.Errorf("%s %s: %w", flag, path, err))
		}
		if !ours(head) {
			return UsageError("%s %s exists and is not a file oedl wrote: oedl replaces only its own; remove it yourself or choose another name", flag, path)
		}
	}
	return checkAncestor(flag, path, filepath.Dir(path))
}

// notADatabasesName refuses (exit 2) an output path that does not exist
// yet, or a directory to be made on its way, named as a file of a
// database beside its DB.db: `--work /db/prod.lk` made a directory at the
// source's lock file (absent while it is shut down), and the source could
// not be opened until the DBA removed it (safety trial 7).
func notADatabasesName(flag, path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil // the checks after say what is wrong with it
	}
	for p := abs; p != filepath.Dir(p); p = filepath.Dir(p) {
		if _, err := os.Lstat(p); err == nil {
			return nil
		}
		if db := manifest.DatabaseNamed(manifest.OS{}, p); db != "" {
			return UsageError("%s %s: nothing is there yet, but %s would be made under the name of a file of the database %s (%s, which OpenEdge makes when it opens or lists it): oedl makes nothing under another database's names; choose another name",
				flag, path, p, db, filepath.Base(p))
		}
	}
	return nil
}

// makeOutputParent makes the directory of an output file that
// checkOutputFile accepted as one to be created (--html out/window.html
// with no out/ yet). The check creates nothing, so that a refused or
// failed command leaves nothing behind; the write does, once the work is
// done: else an hour of calibration ended in "no such file or directory".
func makeOutputParent(flag, path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return PreconditionError(fmt.Errorf("%s %s: %w", flag, path, err))
	}
	return nil
}

// readHead is the start of a file, enough to tell whose it is.
func readHead(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, err
	}
	return head[:n], nil
}

// oedlHTML tells an HTML page oedl wrote (an estimate or a run report):
// their titles start with "oedl ".
func oedlHTML(head []byte) bool {
	return bytes.HasPrefix(head, []byte("<!DOCTYPE html>")) && bytes.Contains(head, []byte("<title>oedl "))
}

// oedlReportMD tells a run's report.md: its title heading.
func oedlReportMD(head []byte) bool {
	return bytes.HasPrefix(head, []byte("# oedl run report"))
}

// oedlCalibration tells a calibration file (oedl calibrate -o): a JSON
// object whose first keys are its version and, soon after, the hardware
// it was measured on. Any version: an older one is replaced by a new
// calibration.
func oedlCalibration(head []byte) bool {
	return bytes.HasPrefix(bytes.TrimSpace(head), []byte("{")) &&
		bytes.Contains(head, []byte(`"version"`)) && bytes.Contains(head, []byte(`"hardware"`))
}

// oedlVerify tells a verify.json oedl wrote: a JSON object whose first
// keys are its version and its verdict.
func oedlVerify(head []byte) bool {
	return bytes.HasPrefix(bytes.TrimSpace(head), []byte("{")) &&
		bytes.Contains(head, []byte(`"v"`)) && bytes.Contains(head, []byte(`"ok"`)) && bytes.Contains(head, []byte(`"before"`))
}

// oedlCounts tells a counts list verify wrote: lines of a table name and
// a record count (the last line of the head may be cut).
func oedlCounts(head []byte) bool {
	lines := bytes.Split(head, []byte("\n"))
	if len(lines) > 1 {
		lines = lines[:len(lines)-1]
	}
	for _, l := range lines {
		name, n, ok := bytes.Cut(l, []byte(" "))
		if !ok || len(name) == 0 || len(n) == 0 || len(bytes.Trim(n, "0123456789")) > 0 {
			return false
		}
	}
	return true
}

// checkAncestor checks the nearest existing directory on the way to dir,
// where named (what flag gave: dir itself, or a file to be written in it)
// would be made. Errors name named, as the DBA typed it.
func checkAncestor(flag, named, dir string) error {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		switch {
		case err == nil && !st.IsDir():
			return UsageError("%s %s: %s is a file, not a directory", flag, named, d)
		case err == nil:
			return probeWrite(flag, named, d)
		case !errors.Is(err, fs.ErrNotExist) && !isNotDir(err):
			return PreconditionError(fmt.Errorf("%s %s: %w", flag, named, err))
		case d == filepath.Dir(d):
			return PreconditionError(fmt.Errorf("%s %s: no directory on its path exists", flag, named))
		}
	}
}

func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }

// probeWrite creates and removes a file in existing (the directory that
// exists on the way to what flag names): permissions alone do not tell
// (root, read-only mounts, ACLs). The directory is named in full: "." or
// "out/.." do not tell the DBA where he stood.
func probeWrite(flag, named, existing string) error {
	f, err := os.CreateTemp(existing, ".oedl-write-test-*")
	if err != nil {
		where := existing
		if abs, aerr := filepath.Abs(existing); aerr == nil {
			where = abs
		}
		return PreconditionError(fmt.Errorf("%s %s: cannot write in %s: %w", flag, named, where, unwrapPath(err)))
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
