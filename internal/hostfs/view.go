package hostfs

import (
	"context"
	"io/fs"
	"path"
	"sync"
	"syscall"
	"time"
)

// View is an FS as internal/manifest reads a filesystem (Lstat, Readlink,
// ReadDir, Birth, ReadFile), so that the proof of the target's files runs
// on the host they live on. Answers are kept for the life of the View (one
// proof): the proof walks every component of every path, and a remote
// host answers many at once (Prefetch) rather than one call each.
type View struct {
	ctx context.Context
	fs  FS

	mu    sync.Mutex
	infos map[string]*Info // nil entry: known not to exist
}

// NewView returns a view of f for one proof.
func NewView(ctx context.Context, f FS) *View {
	return &View{ctx: ctx, fs: f, infos: map[string]*Info{}}
}

// Prefetch asks the host about paths and every directory above them in
// one call.
func (v *View) Prefetch(paths ...string) error {
	seen := map[string]bool{}
	var ask []string
	for _, p := range paths {
		for q := path.Clean(p); ; q = path.Dir(q) {
			if !seen[q] {
				seen[q] = true
				ask = append(ask, q)
			}
			if q == "/" || q == "." {
				break
			}
		}
	}
	got, err := v.fs.Lstat(v.ctx, ask...)
	if err != nil {
		return err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, q := range ask {
		if i, ok := got[q]; ok {
			v.infos[q] = &i
		} else {
			v.infos[q] = nil
		}
	}
	return nil
}

func (v *View) lookup(name string) (*Info, error) {
	v.mu.Lock()
	i, ok := v.infos[name]
	v.mu.Unlock()
	if ok {
		return i, nil
	}
	got, err := v.fs.Lstat(v.ctx, name)
	if err != nil {
		return nil, err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if x, ok := got[name]; ok {
		v.infos[name] = &x
		return &x, nil
	}
	v.infos[name] = nil
	return nil, nil
}

// Lstat describes name without following a last link.
func (v *View) Lstat(name string) (fs.FileInfo, error) {
	i, err := v.lookup(name)
	if err != nil {
		return nil, err
	}
	if i == nil {
		return nil, &fs.PathError{Op: "lstat", Path: name, Err: fs.ErrNotExist}
	}
	return fileInfo{*i}, nil
}

func (v *View) Readlink(name string) (string, error) { return v.fs.Readlink(v.ctx, name) }

func (v *View) ReadDir(name string) ([]fs.DirEntry, error) {
	list, err := v.fs.List(v.ctx, name)
	if err != nil {
		return nil, err
	}
	out := make([]fs.DirEntry, len(list))
	v.mu.Lock()
	defer v.mu.Unlock()
	for k, i := range list {
		x := i
		v.infos[i.Path] = &x
		out[k] = fs.FileInfoToDirEntry(fileInfo{i})
	}
	return out, nil
}

// Birth is the creation time the host reported for name.
func (v *View) Birth(name string) (int64, bool) {
	i, err := v.lookup(name)
	if err != nil || i == nil || i.Birth == 0 {
		return 0, false
	}
	return i.Birth, true
}

// ReadFile reads a whole file on the host.
func (v *View) ReadFile(name string) ([]byte, error) { return v.fs.ReadFile(v.ctx, name) }

// fileInfo is an Info as fs.FileInfo; Sys is a *syscall.Stat_t with the
// device and inode, as manifest.IDOf reads them, and the change time, as
// manifest.StateOf does.
type fileInfo struct{ i Info }

func (f fileInfo) Name() string       { return f.i.Name() }
func (f fileInfo) Size() int64        { return f.i.Size }
func (f fileInfo) Mode() fs.FileMode  { return f.i.Mode }
func (f fileInfo) ModTime() time.Time { return time.Unix(0, f.i.Mtime) }
func (f fileInfo) IsDir() bool        { return f.i.IsDir() }
func (f fileInfo) Sys() any {
	return &syscall.Stat_t{Dev: f.i.Dev, Ino: f.i.Ino, Size: f.i.Size, Ctim: syscall.NsecToTimespec(f.i.Ctime)}
}
