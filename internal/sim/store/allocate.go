package store

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// Room is what a utility call may still write on its disk: oesim's
// diskfull-after fault gives a call less than the filesystem has. nil is
// the filesystem's own room.
type Room interface {
	// Take is n more bytes of f at offset: nil, or the *NoRoomError the
	// write gets.
	Take(f *os.File, offset, n int64) error
}

// AllocateFixed makes f a fixed extent of size bytes whose blocks are on
// disk. Real prostrct create (and prostrct add) format a fixed extent:
// its blocks are written, so its disk space is held from its creation and
// a disk filled afterwards cannot take it (Database Management, "Extent
// length": fixed extents are preallocated and preformatted). A sparse
// file would give the space back to whoever fills the disk first.
// fallocate(2) allocates without writing; where the filesystem does not
// support it, zeros are written. The device time of the formatting is the
// caller's to charge (prostrct charges it as written in sequence).
func AllocateFixed(f *os.File, size int64, room Room) error {
	if room != nil {
		if err := room.Take(f, 0, size); err != nil {
			return err
		}
	}
	if err := f.Truncate(size); err != nil {
		return err
	}
	return allocate(f, 0, size)
}

// allocate gives f's bytes [off, off+n) their blocks; a full disk is a
// *NoRoomError naming the file, as OpenEdge's (6091) does.
func allocate(f *os.File, off, n int64) error {
	if n <= 0 {
		return nil
	}
	err := unix.Fallocate(int(f.Fd()), 0, off, n)
	if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOSYS) {
		err = writeZeros(f, off, n)
	}
	if errors.Is(err, syscall.ENOSPC) {
		return &NoRoomError{FD: f.Fd(), Len: n, Offset: off, Path: f.Name()}
	}
	if err != nil {
		return &os.PathError{Op: "allocate", Path: f.Name(), Err: err}
	}
	return nil
}

// writeZeros is allocate where fallocate(2) is not supported.
func writeZeros(f *os.File, off, n int64) error {
	buf := make([]byte, min(n, 1<<20))
	for n > 0 {
		k := min(n, int64(len(buf)))
		if _, err := f.WriteAt(buf[:k], off); err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				return pe.Err
			}
			return err
		}
		off, n = off+k, n-k
	}
	return nil
}
