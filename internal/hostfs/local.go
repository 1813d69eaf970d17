package hostfs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/oedl/oedl/internal/atomicfile"
	"github.com/oedl/oedl/internal/manifest"
)

// Local is this machine's files.
type Local struct {
	Owned
}

func (*Local) Host() string { return "" }

func (*Local) Lstat(_ context.Context, paths ...string) (map[string]Info, error) {
	out := map[string]Info{}
	for _, p := range paths {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out[p] = localInfo(p, fi)
	}
	return out, nil
}

func localInfo(p string, fi fs.FileInfo) Info {
	st := manifest.StateOf(fi)
	i := Info{Path: p, Mode: fi.Mode(), Size: fi.Size(), Mtime: st.Mtime, Ctime: st.Ctime}
	if id, ok := manifest.IDOf(fi); ok {
		i.Dev, i.Ino = id.Dev, id.Ino
		i.Birth, _ = manifest.OS{}.Birth(p)
	}
	return i
}

func (*Local) Readlink(_ context.Context, p string) (string, error) { return os.Readlink(p) }

func (*Local) List(_ context.Context, dir string) ([]Info, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := make([]Info, 0, len(entries))
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			continue // gone since
		}
		out = append(out, localInfo(filepath.Join(dir, e.Name()), fi))
	}
	return out, nil
}

func (*Local) Sums(ctx context.Context, paths ...string) ([]Sum, error) {
	out := make([]Sum, 0, len(paths))
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		h := sha256.New()
		n, err := io.Copy(h, f)
		f.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, Sum{Path: p, Size: n, SHA256: hex.EncodeToString(h.Sum(nil))})
	}
	return out, nil
}

func (*Local) MkdirAll(_ context.Context, dir string) error { return os.MkdirAll(dir, 0o755) }

func (l *Local) RemoveAll(ctx context.Context, p string) error {
	if err := l.owned(ctx, p); err != nil {
		return err
	}
	return os.RemoveAll(p)
}

// RemoveFile unlinks p: unlink(2) refuses a directory (EISDIR), so a
// name that became a directory since it was proven a file is refused,
// not emptied, as rm -f refuses it on a remote host (Remote.RemoveFile).
func (l *Local) RemoveFile(ctx context.Context, p string) error {
	if err := l.owned(ctx, p); err != nil {
		return err
	}
	if err := syscall.Unlink(p); err != nil && !errors.Is(err, syscall.ENOENT) {
		return &fs.PathError{Op: "remove", Path: p, Err: err}
	}
	return nil
}

func (l *Local) Rename(ctx context.Context, from, to string) error {
	if err := l.owned(ctx, from); err != nil {
		return err
	}
	if err := l.owned(ctx, to); err != nil {
		return err
	}
	return os.Rename(from, to)
}

func (*Local) WriteFile(_ context.Context, p string, data []byte) error {
	return atomicfile.WriteFile(p, data)
}

func (*Local) ReadFile(_ context.Context, p string) ([]byte, error) { return os.ReadFile(p) }

func (*Local) ReadTo(ctx context.Context, p string, w io.Writer) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, ctxReader{ctx, f})
	return err
}

func (l *Local) WriteFrom(ctx context.Context, p string, r io.Reader) error {
	if err := l.owned(ctx, p); err != nil {
		return err
	}
	f, err := os.Create(p)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, ctxReader{ctx, r}); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ctxReader stops a copy when its context ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

func (l *Local) WriteChecked(ctx context.Context, part, dst string, r io.Reader, want Sum) (Sum, error) {
	if err := l.owned(ctx, dst); err != nil {
		return Sum{}, err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return Sum{}, err
	}
	if err := l.WriteFrom(ctx, part, r); err != nil {
		_ = os.Remove(part)
		return Sum{}, err
	}
	got, err := l.Sums(ctx, part)
	if err != nil {
		return Sum{}, err
	}
	g := got[0]
	g.Path = dst
	if g.Size != want.Size || g.SHA256 != want.SHA256 {
		_ = os.Remove(part)
		return g, &MismatchError{To: dst, Want: want, Got: g}
	}
	return g, os.Rename(part, dst)
}

func (l *Local) Fresh(ctx context.Context, dir string) error {
	if err := l.owned(ctx, dir); err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return os.MkdirAll(dir, 0o755)
}

func (l *Local) SumsIn(ctx context.Context, dir string) ([]Sum, error) {
	list, err := l.List(ctx, dir)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, i := range list {
		if i.Mode.IsRegular() {
			paths = append(paths, i.Path)
		}
	}
	return l.Sums(ctx, paths...)
}

// owned refuses a change of p outside what this FS owns, or through a
// symbolic link inside it.
func (l *Local) owned(ctx context.Context, p string) error {
	if err := l.check("", p); err != nil {
		return err
	}
	return l.checkNoLink(ctx, l, "", p)
}
