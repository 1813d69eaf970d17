// Package atomicfile replaces files so that a reader, or a run resumed after
// kill -9, sees either the old content or the new, never half of it: the
// data goes to a temporary file in the same directory, which is renamed over
// the target only once it is complete.
//
// WriteFile and Write also fsync the file before the rename, for what oedl
// claims (verify.json, the report, the plan); WriteFileNoSync skips it, for
// oesim, which simulates process crashes but not power loss and would
// otherwise make every schema change wait on the disk.
package atomicfile

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Perm is the mode of the files written.
const Perm = 0o644

// WriteFile replaces path with data, durably.
func WriteFile(path string, data []byte) error {
	return write(path, bytes.NewReader(data), true)
}

// WriteFileNoSync replaces path with data, atomically but without fsync.
func WriteFileNoSync(path string, data []byte) error {
	return write(path, bytes.NewReader(data), false)
}

// Write replaces path with what fn writes, durably. Nothing replaces path
// when fn fails.
func Write(path string, fn func(io.Writer) error) error {
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(fn(pw)) }()
	err := write(path, pr, true)
	pr.CloseWithError(err) // unblocks fn if the write side failed first
	return err
}

func write(path string, r io.Reader, sync bool) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = io.Copy(tmp, r); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Chmod(Perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if sync {
		if err = tmp.Sync(); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
