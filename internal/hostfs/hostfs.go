// Package hostfs is the files of one host, as oedl reaches them: this
// machine's through the os package, another's through commands over its
// SSH connection (execx.SSH). Run, resume and the transfers ask the same
// questions of both (does the file exist, how big is it, what is its
// SHA-256, what is in this directory) and get the same answers, so the
// proofs that hold on one machine hold on several.
//
// Decisions:
//
//   - A remote host answers through GNU coreutils and findutils (stat
//     --printf, find -printf, sha256sum): one call answers for many files,
//     every name is passed as its own quoted word and comes back
//     NUL-terminated, so no name is ever split or mangled. A host without
//     them is refused with that reason (CheckTools), not half served.
//   - Nothing is removed outside what the host's FS owns: its work
//     directory, and the files a caller allows one by one (the target's
//     files the manifest proved are oedl's). A removal anywhere else is
//     an error before any command runs.
//   - Writes of whole files go to a temporary name and are renamed into
//     place: a reader never sees half a file under its real name.
package hostfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"sync"
)

// Info is what a host says about one file.
type Info struct {
	Path  string // as asked (List: the directory joined with the name)
	Mode  fs.FileMode
	Size  int64
	Dev   uint64
	Ino   uint64
	Birth int64 // creation time in nanoseconds (0: the filesystem keeps none)
	Mtime int64 // modification time in nanoseconds
	Ctime int64 // inode change time in nanoseconds
}

// Name is the last element of the path.
func (i Info) Name() string { return path.Base(i.Path) }

// IsDir reports whether the file is a directory.
func (i Info) IsDir() bool { return i.Mode.IsDir() }

// Sum is a file's size and SHA-256 (hex), as read on its host.
type Sum struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// FS is the files of one host.
type FS interface {
	// Host names the host, for messages ("" for this machine).
	Host() string
	// Lstat describes the files that exist among paths, not following a
	// last symbolic link (a missing file is simply absent from the map).
	Lstat(ctx context.Context, paths ...string) (map[string]Info, error)
	// Readlink is the target of a symbolic link.
	Readlink(ctx context.Context, path string) (string, error)
	// List is the entries of a directory (fs.ErrNotExist when it is not there).
	List(ctx context.Context, dir string) ([]Info, error)
	// Sums reads every file whole and returns its size and SHA-256.
	Sums(ctx context.Context, paths ...string) ([]Sum, error)
	MkdirAll(ctx context.Context, dir string) error
	// RemoveAll removes path and what it holds, only where the FS owns it.
	RemoveAll(ctx context.Context, path string) error
	// RemoveFile removes the single file (or symbolic link) path, never a
	// directory, only where the FS owns it; a missing file is no error.
	RemoveFile(ctx context.Context, path string) error
	// Allow adds single files the FS may remove or replace (Owned.Allow).
	Allow(files ...string)
	// Rename moves a file within one filesystem (atomic), where the FS owns both names.
	Rename(ctx context.Context, from, to string) error
	// WriteFile writes data to path through a temporary name.
	WriteFile(ctx context.Context, path string, data []byte) error
	ReadFile(ctx context.Context, path string) ([]byte, error)
	// ReadTo streams the file at path into w.
	ReadTo(ctx context.Context, path string, w io.Writer) error
	// WriteFrom writes what r gives to path (created or truncated) and
	// flushes it to the disk; not atomic: callers write a temporary name.
	WriteFrom(ctx context.Context, path string, r io.Reader) error
	// WriteChecked writes what r gives to part, flushes it, reads it back
	// from the disk and, only if its size and SHA-256 are want's, renames
	// it to dst (in one call on a remote host). It returns the sum of
	// what landed; a mismatch removes the part and is a *MismatchError.
	WriteChecked(ctx context.Context, part, dst string, r io.Reader, want Sum) (Sum, error)
	// Fresh makes dir an empty directory (removing what it held, where
	// the FS owns it).
	Fresh(ctx context.Context, dir string) error
	// SumsIn is Sums of every regular file directly in dir.
	SumsIn(ctx context.Context, dir string) ([]Sum, error)
}

// Owned is the part of a host an FS may remove and rename in: directory
// trees (a work directory) and single files allowed one by one.
// Its methods may be called from several goroutines: a resume that
// rebuilds a remote target allows the target's files while the moves of
// dumps to that host check theirs (a concurrent map read and write killed
// oedl there, TestHostsResumeAfterTheDBA under load).
type Owned struct {
	mu    sync.RWMutex
	roots []string
	files map[string]bool
}

// Own adds directory trees the FS may change.
func (o *Owned) Own(dirs ...string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, d := range dirs {
		if d != "" {
			o.roots = append(o.roots, path.Clean(d))
		}
	}
}

// Allow adds single files the FS may remove or replace (the target's
// files a proof allowed).
func (o *Owned) Allow(files ...string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.files == nil {
		o.files = map[string]bool{}
	}
	for _, f := range files {
		o.files[path.Clean(f)] = true
	}
}

// ErrNotOwned is a change refused because the path is not oedl's to change.
var ErrNotOwned = errors.New("not in oedl's work directory nor a file proven oedl's")

// check refuses a change of p unless it lies strictly inside an owned
// tree or is an allowed file. p must be absolute and clean: "a/../b"
// games are refused, not resolved.
func (o *Owned) check(host, p string) error {
	if !path.IsAbs(p) || path.Clean(p) != p || strings.ContainsRune(p, 0) {
		return fmt.Errorf("%s%s: %w (not an absolute, clean path)", hostPrefix(host), p, ErrNotOwned)
	}
	o.mu.RLock()
	defer o.mu.RUnlock()
	if o.files[p] {
		return nil
	}
	for _, r := range o.roots {
		if r != "/" && strings.HasPrefix(p, r+"/") {
			return nil
		}
	}
	return fmt.Errorf("%s%s: %w", hostPrefix(host), p, ErrNotOwned)
}

// between lists the directories from below the owned root that holds p
// down to p's parent: a removal or rename of p goes through them, and if
// one is a symbolic link, p is not in the owned tree at all (the DBA moved
// WORK/dump to another disk and linked it back: rm -rf of
// WORK/dump/PUB.Customer would empty a directory of his there). None for an
// allowed file (proven by the manifest, links included) or a path no root
// holds.
func (o *Owned) between(p string) []string {
	o.mu.RLock()
	defer o.mu.RUnlock()
	if o.files[p] {
		return nil
	}
	for _, r := range o.roots {
		if r == "/" || !strings.HasPrefix(p, r+"/") {
			continue
		}
		var dirs []string
		for d := path.Dir(p); d != r && strings.HasPrefix(d, r+"/"); d = path.Dir(d) {
			dirs = append(dirs, d)
		}
		return dirs
	}
	return nil
}

// ErrThroughLink is a change refused because a directory on the way from
// the owned root to the path is a symbolic link.
var ErrThroughLink = errors.New("a symbolic link in oedl's work directory: oedl removes and renames only in its own directories, never through a link")

// checkNoLink refuses a change of p when a directory between its owned
// root and p is a symbolic link (fs reads the host's files; its Lstat does
// not follow the last link).
func (o *Owned) checkNoLink(ctx context.Context, fsys interface {
	Lstat(ctx context.Context, paths ...string) (map[string]Info, error)
}, host, p string) error {
	dirs := o.between(p)
	if len(dirs) == 0 {
		return nil
	}
	infos, err := fsys.Lstat(ctx, dirs...)
	if err != nil {
		return err
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if in, ok := infos[dirs[i]]; ok && in.Mode&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s%s: %s is %w", hostPrefix(host), p, dirs[i], ErrThroughLink)
		}
	}
	return nil
}

func hostPrefix(host string) string {
	if host == "" {
		return ""
	}
	return host + ":"
}
