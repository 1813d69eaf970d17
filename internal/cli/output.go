package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Every command checks where it will write before it does any work, so
// that an hour of calibration or a whole plan is not lost at the last
// step, and the exit code says who must act: a path that names a file
// where a directory is wanted (or the reverse) is bad usage (2); a
// directory that cannot be created or written is a precondition (3).

// checkOutputDir checks that dir (given with flag) is, or can be created
// as, a writable directory. It creates nothing.
func checkOutputDir(flag, dir string) error {
	st, err := os.Stat(dir)
	if err == nil && !st.IsDir() {
		return UsageError("%s %s is a file, not a directory", flag, dir)
	}
	if err == nil {
		return probeWrite(flag, dir, dir)
	}
	return checkAncestor(flag, dir)
}

// checkOutputFile checks that path (given with flag) can be written as a
// file: it is not a directory, and its directory can be written.
func checkOutputFile(flag, path string) error {
	st, err := os.Stat(path)
	if err == nil && st.IsDir() {
		return UsageError("%s %s is a directory, not a file", flag, path)
	}
	return checkAncestor(flag, filepath.Dir(path))
}

// checkAncestor checks the nearest existing directory on the way to dir.
func checkAncestor(flag, dir string) error {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		switch {
		case err == nil && !st.IsDir():
			return UsageError("%s %s: %s is a file, not a directory", flag, dir, d)
		case err == nil:
			return probeWrite(flag, dir, d)
		case !errors.Is(err, fs.ErrNotExist) && !isNotDir(err):
			return PreconditionError(fmt.Errorf("%s %s: %w", flag, dir, err))
		case d == filepath.Dir(d):
			return PreconditionError(fmt.Errorf("%s %s: no directory on its path exists", flag, dir))
		}
	}
}

func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }

// probeWrite creates and removes a file in existing (the directory that
// exists on the way to what flag names): permissions alone do not tell
// (root, read-only mounts, ACLs).
func probeWrite(flag, named, existing string) error {
	f, err := os.CreateTemp(existing, ".oedl-write-test-*")
	if err != nil {
		return PreconditionError(fmt.Errorf("%s %s: cannot write in %s: %w", flag, named, existing, unwrapPath(err)))
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
