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
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Perm is the mode of the files written, less the umask: the kernel applies
// it when the file is created, as for any program, so a DBA whose umask is
// 077 keeps oedl's files (the plan's schema, the report) to himself.
const Perm = 0o644

// WriteFile replaces path with data, durably.
func WriteFile(path string, data []byte) error {
	return write(path, bytes.NewReader(data), Perm, true)
}

// WriteFileMode is WriteFile for a file of another mode than Perm (a
// script: 0o755), less the umask too.
func WriteFileMode(path string, data []byte, perm fs.FileMode) error {
	return write(path, bytes.NewReader(data), perm, true)
}

// WriteFileNoSync replaces path with data, atomically but without fsync.
func WriteFileNoSync(path string, data []byte) error {
	return write(path, bytes.NewReader(data), Perm, false)
}

// Write replaces path with what fn writes, durably. Nothing replaces path
// when fn fails.
func Write(path string, fn func(io.Writer) error) error {
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(fn(pw)) }()
	err := write(path, pr, Perm, true)
	pr.CloseWithError(err) // unblocks fn if the write side failed first
	return err
}

// The temporary file write makes beside its path: ".NAME.<random>.tmp".
const tempSuffix = ".tmp"

func tempPrefix(name string) string { return "." + name + "." }

// TempFor names the file a temporary file of this package was for, when
// name is one (".eta.json.1489450356.tmp" -> "eta.json"): a process killed
// between its creation and the rename leaves it behind.
func TempFor(name string) (string, bool) {
	rest, ok := strings.CutSuffix(name, tempSuffix)
	if !ok || !strings.HasPrefix(rest, ".") {
		return "", false
	}
	dot := strings.LastIndexByte(rest, '.')
	if dot <= 1 {
		return "", false
	}
	if _, err := strconv.ParseUint(rest[dot+1:], 10, 32); err != nil {
		return "", false
	}
	return rest[1:dot], true
}

func write(path string, r io.Reader, perm fs.FileMode, sync bool) (err error) {
	tmp, err := createTemp(filepath.Dir(path), tempPrefix(filepath.Base(path)), tempSuffix, perm)
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

// createTemp is os.CreateTemp with a mode: os.CreateTemp makes 0600, and
// widening that with a chmod would override the umask.
func createTemp(dir, prefix, suffix string, perm fs.FileMode) (*os.File, error) {
	return createNew(dir, prefix, suffix, func(name string) (*os.File, error) {
		return os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
	})
}

// MkdirTemp is os.MkdirTemp with the mode of any directory made (0o777
// less the umask): os.MkdirTemp makes 0700, and widening that with a
// chmod would override the DBA's umask.
func MkdirTemp(parent, prefix string) (string, error) {
	return createNew(parent, prefix, "", func(name string) (string, error) {
		return name, os.Mkdir(name, 0o777)
	})
}

// createNew calls create on random names in dir until one did not exist.
func createNew[T any](dir, prefix, suffix string, create func(name string) (T, error)) (T, error) {
	for try := 0; ; try++ {
		v, err := create(filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10)+suffix))
		if errors.Is(err, fs.ErrExist) && try < 10000 {
			continue
		}
		return v, err
	}
}
