package vdisk

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// PageCacheDir is the directory, in the state directory, that remembers
// which blocks the host's page cache holds (CachedRead).
const PageCacheDir = "pagecache"

// CachedRead performs the read of size bytes at offset of file through the
// host's page cache, as a buffered read(2) goes: from the device (one
// random request, waited for) the first time any process sharing the
// device reads that block, from memory after that, costing the device
// nothing. A database opened without -directio is read this way
// (docs/oesim.md, "What a utility call costs the disk").
//
// The cache is the state directory's: it starts empty with the device (a
// machine just booted) and never evicts (what is read this way is a block
// or two per database, nothing a host's memory gives up while the same
// databases are in use). A private device (no state directory) remembers
// nothing across processes, so every read is from the device: the dearer
// side. A block is known by the file's device and inode, so a database
// reached by two names is one block, and one removed and made again may
// hit a block its predecessor left (its creator's writes left its pages
// in the cache too).
func (d *Disk) CachedRead(file string, offset, size int64) error {
	if !d.On() || size <= 0 {
		return nil
	}
	if d.cfg.StateDir == "" {
		return d.Random(1, size, false)
	}
	cached, err := d.pageCached(file, offset)
	if err != nil {
		return err
	}
	if cached {
		return nil
	}
	return d.Random(1, size, false)
}

// pageCached reports whether the block was read before on this device, and
// records it read: one marker file per block, created exclusively, so two
// processes reading it at once make one device request between them.
func (d *Disk) pageCached(file string, offset int64) (bool, error) {
	fi, err := os.Stat(file)
	if err != nil {
		return false, fmt.Errorf("virtual disk: page cache: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false, nil // no inode to know the block by: read it from the device
	}
	dir := filepath.Join(d.cfg.StateDir, PageCacheDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("virtual disk: page cache: %w", err)
	}
	mark := filepath.Join(dir, fmt.Sprintf("%d-%d-%d", uint64(st.Dev), st.Ino, offset))
	f, err := os.OpenFile(mark, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	switch {
	case errors.Is(err, os.ErrExist):
		return true, nil
	case err != nil:
		return false, fmt.Errorf("virtual disk: page cache: %w", err)
	}
	return false, f.Close()
}
