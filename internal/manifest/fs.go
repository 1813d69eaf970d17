package manifest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// FS is the view of the filesystem the proof reads. OS is the real one.
type FS interface {
	Lstat(name string) (fs.FileInfo, error)
	Readlink(name string) (string, error)
	ReadDir(name string) ([]fs.DirEntry, error)
	// Birth is the creation time of the file at name (not following a
	// last link), in nanoseconds; false when the filesystem keeps none.
	Birth(name string) (int64, bool)
}

// OS reads the machine's filesystem.
type OS struct{}

func (OS) Lstat(name string) (fs.FileInfo, error)     { return os.Lstat(name) }
func (OS) Readlink(name string) (string, error)       { return os.Readlink(name) }
func (OS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }

// ID is a file's identity: its device and inode, and its creation time
// where the filesystem keeps one. Device and inode say whether two paths
// are one file whatever links lead to them; the creation time tells a
// file from a new one that got the inode number of a deleted one (a
// database restored where oedl's target was), which device and inode
// alone cannot.
type ID struct {
	Dev   uint64 `json:"dev"`
	Ino   uint64 `json:"ino"`
	Birth int64  `json:"birth_ns,omitempty"`
}

// Same reports whether a and b are one file: the same device and inode,
// and the same creation time when both know it.
func (a ID) Same(b ID) bool {
	return a.Dev == b.Dev && a.Ino == b.Ino && (a.Birth == 0 || b.Birth == 0 || a.Birth == b.Birth)
}

// IDOf is the device and inode of a file from its FileInfo (false when
// the view does not say, or the file is not on a Unix filesystem).
func IDOf(fi fs.FileInfo) (ID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || st == nil {
		return ID{}, false
	}
	return ID{Dev: uint64(st.Dev), Ino: uint64(st.Ino)}, true
}

// identify is the full identity of the file at path, whose Lstat is fi.
func identify(view FS, path string, fi fs.FileInfo) (ID, bool) {
	id, ok := IDOf(fi)
	if ok {
		id.Birth, _ = view.Birth(path)
	}
	return id, ok
}

// maxLinks bounds the symbolic links followed in one path (the kernel's
// ELOOP limit is 40; a deeper chain is refused as a loop).
const maxLinks = 40

// ErrLoop is a path whose symbolic links do not end.
var ErrLoop = errors.New("too many levels of symbolic links")

// Resolve returns the physical path of the absolute path p, as the kernel
// would find it: each existing component that is a symbolic link is
// replaced by its target (recursively), and ".." goes up from where the
// path has got to (after the links). Components from the first one that
// does not exist are appended as written: a file or directory the run
// will create. An error means a component exists but cannot be a
// directory, or the links loop.
func Resolve(view FS, p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("%s: not an absolute path", p)
	}
	todo := components(p)
	resolved := string(filepath.Separator)
	links, missing := 0, false
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, c)
		if missing {
			resolved = next
			continue
		}
		fi, err := view.Lstat(next)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			missing = true
			resolved = next
			continue
		case err != nil:
			return "", fmt.Errorf("%s: %w", next, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			if len(todo) > 0 && !fi.IsDir() {
				return "", fmt.Errorf("%s: %w", next, syscall.ENOTDIR)
			}
			resolved = next
			continue
		}
		if links++; links > maxLinks {
			return "", fmt.Errorf("%s: %w", p, ErrLoop)
		}
		target, err := view.Readlink(next)
		if err != nil {
			return "", fmt.Errorf("%s: %w", next, err)
		}
		if filepath.IsAbs(target) {
			resolved = string(filepath.Separator)
		}
		todo = append(components(target), todo...)
	}
	return resolved, nil
}

func components(p string) []string {
	var out []string
	for _, c := range strings.Split(p, string(filepath.Separator)) {
		if c != "" {
			out = append(out, c)
		}
	}
	return out
}

// stat is Lstat of a resolved path: what is there, if anything.
func stat(view FS, resolved string) (fs.FileInfo, bool, error) {
	fi, err := view.Lstat(resolved)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return nil, false, nil
	case err != nil:
		return nil, false, err
	}
	return fi, true, nil
}

// isDir reports whether the absolute path p is, after its links, an
// existing directory.
func isDir(view FS, p string) (bool, error) {
	r, err := Resolve(view, p)
	if err != nil {
		return false, err
	}
	fi, ok, err := stat(view, r)
	return ok && fi.IsDir(), err
}
