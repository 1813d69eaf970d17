package sim

import (
	"errors"
	"github.com/oedl/oedl/internal/sim/msg"
	"os"
	"syscall"

	"github.com/oedl/oedl/internal/sim/fault"
)

// dumpFile is a .bd (or sort file) being written, with the virtual disk
// charged per write (the writers above it issue ~1 MB writes) and an
// optional disk-full fault.
type dumpFile struct {
	f      *os.File
	env    *environment
	budget int64 // bytes left before ENOSPC; < 0 = unlimited
	fp     *faultPlan
	off    int64 // bytes written so far: where the next write goes
}

// fileWriteError is a write of a dumpFile that failed: what OpenEdge's
// (290) names besides the errno, the descriptor and the offset.
type fileWriteError struct {
	fd     uintptr
	offset int64
	err    *os.PathError
}

func (e *fileWriteError) Error() string { return e.err.Error() }
func (e *fileWriteError) Unwrap() error { return e.err }

// systemIOError is (290), "SYSTEM ERROR: I/O error <errno> in <function>,
// ret <n>, file <fd>(<path>), addr <offset>.", OpenEdge's message for a
// failed write of idxbuild's sort file (Progress KB P55740 lists it among
// what a sort file short of room ends the rebuild with; KB 12646, 18401:
// its first number is the errno). The function the real one names for a
// sort file write was not found; oesim names the system call. ok is false
// for an error that is not a failed write with an errno.
func systemIOError(err error) (m *msg.Error, ok bool) {
	var we *fileWriteError
	var errno syscall.Errno
	if !errors.As(err, &we) || !errors.As(err, &errno) {
		return nil, false
	}
	return msg.E("290", int(errno), "write", -1, int(we.fd), we.err.Path, we.offset), true
}

func createDumpFile(path string, env *environment, fp *faultPlan) (*dumpFile, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	d := &dumpFile{f: f, env: env, budget: -1}
	if fp.is(fault.DiskFullAfter) {
		d.budget, d.fp = fp.n(), fp
	}
	return d, nil
}

func (d *dumpFile) Write(b []byte) (int, error) {
	if d.budget >= 0 && int64(len(b)) > d.budget {
		if !d.fp.strike() { // the rule's firings are spent: the disk has room again
			d.budget = -1
		} else {
			n, _ := d.f.Write(b[:d.budget])
			d.budget, d.off = 0, d.off+int64(n)
			return n, &fileWriteError{fd: d.f.Fd(), offset: d.off,
				err: &os.PathError{Op: "write", Path: d.f.Name(), Err: syscall.ENOSPC}}
		}
	}
	n, err := d.f.Write(b)
	if d.budget >= 0 {
		d.budget = max(0, d.budget-int64(n))
	}
	d.off += int64(n)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return n, &fileWriteError{fd: d.f.Fd(), offset: d.off, err: pe}
		}
		return n, err
	}
	return n, d.env.seqWrite(int64(n))
}

func (d *dumpFile) Close() error { return d.f.Close() }

// ioError is the console message of a failed write: OpenEdge's shape for
// an operating-system error, with errno.
func ioError(err error) *msg.Error {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return msg.E("oesim.write.errno", pathOf(err), int(errno), errno)
	}
	return msg.E("oesim.write", err)
}

func pathOf(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Path
	}
	return "file"
}
