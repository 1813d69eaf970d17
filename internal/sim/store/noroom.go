package store

import (
	"syscall"

	"github.com/oedl/oedl/internal/sim/msg"
)

// NoRoomError is a write to a database extent that found the disk full.
// OpenEdge's block I/O says so with (6091), "bkioWrite:Insufficient disk
// space during write, fd N, len N, offset N, file F." (Progress KB P4404,
// P22954): the descriptor, the write's length and offset, the extent.
// It is ENOSPC underneath, which is what the caller tests.
type NoRoomError struct {
	FD          uintptr
	Len, Offset int64
	Path        string
}

func (e *NoRoomError) Error() string { return e.Message().Error() }

// Message is the catalog message the utility prints for the error.
func (e *NoRoomError) Message() *msg.Error {
	return msg.E("6091", "bkioWrite", "write", e.FD, e.Len, e.Offset, e.Path)
}

func (e *NoRoomError) Unwrap() error { return syscall.ENOSPC }

// NoRoom is the error of a write of n bytes at the end of af (its last
// extent, where a load appends) that found the disk full: the extent's
// own descriptor and size, as bkioWrite would name them.
func (af *AreaFile) NoRoom(n int64) error {
	f := af.files[len(af.files)-1]
	st, err := f.Stat()
	if err != nil {
		return err
	}
	return &NoRoomError{FD: f.Fd(), Len: n, Offset: st.Size(), Path: f.Name()}
}
