package run

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/oedl/oedl/internal/atomicfile"
	"github.com/oedl/oedl/internal/execx"
)

// LockFile guards a work directory: two oedl processes resuming the same
// run would load the same tables twice.
//
// The lock is a POSIX record lock (fcntl F_SETLK) on the whole file. It
// belongs to the oedl process, not to a file descriptor: no child ever
// holds it, not even a utility caught between fork and exec when oedl is
// killed (an flock belongs to the open file, which such a child shares
// until its exec closes it: the lock outlived a killed oedl by as long as
// the child took to exec, once in 60 kill -9 rounds), and the kernel drops
// it when oedl dies, even by kill -9, so a resume never has to clean it
// up. Two quirks of POSIX locks are handled here: they do not exclude the
// process that holds them (a second run in the same process, as the demo
// or a test might start, is refused by lockedHere), and closing any
// descriptor of the file drops them (oedl opens its own lock file nowhere
// else; `oedl status` asks from its own process, with F_GETLK, which takes
// nothing).
const LockFile = "oedl.lock"

// lockedHere are the lock files this process holds, by device and inode.
var lockedHere = struct {
	sync.Mutex
	m map[[2]uint64]bool
}{m: map[[2]uint64]bool{}}

// lockWork takes work's lock for the command kind ("run", "prepare",
// "calibrate"), stamping it with this process's pid and kind so that a
// second oedl refused there is told who holds it.
func lockWork(work, kind string) (func(), error) {
	path := filepath.Join(work, LockFile)
	return lockPath(path, fmt.Sprintf("%d %s\n", os.Getpid(), kind), func() error {
		data, _ := os.ReadFile(path)
		return workBusy(work, kind, data)
	})
}

// workBusy is the refusal of command kind in work, whose lock another
// oedl holds, by the lock's stamp: the holder's pid and kind (the pid
// alone from an oedl before lefts29: a run or a preparation). A run or a
// preparation is watched with oedl status; a calibration keeps no journal
// for status to read (it said "no run" of it), so the DBA is told it ends
// by itself, and where its scratch is.
func workBusy(work, kind string, stamp []byte) error {
	pid, holder, _ := strings.Cut(strings.TrimSpace(string(stamp)), " ")
	q := execx.ShellQuote(work)
	var then string
	switch {
	case holder == "calibrate" && kind == "calibrate":
		then = "wait for it to end (it ends by itself once its sample is timed), or calibrate in another --work"
	case holder == "calibrate":
		then = fmt.Sprintf("wait for it to end (it ends by itself once its sample is timed), or give %s another --work", kind)
	case kind == "calibrate":
		then = fmt.Sprintf("watch it with oedl status --work %s, or calibrate in another --work", q)
	default:
		then = "watch it with oedl status --work " + q
	}
	switch holder {
	case "":
		return precondition("another oedl (pid %s) is running in %s: %s", pid, work, then)
	case "calibrate":
		return precondition("another oedl calibrate (pid %s) is using %s (its scratch databases are in %s): %s",
			pid, work, filepath.Join(work, "calibrate"), then)
	}
	return precondition("another oedl %s (pid %s) is running in %s: %s", holder, pid, work, then)
}

// lockPath takes the POSIX lock of the file at path for this process
// (LockFile says why POSIX), writes stamp into it once it holds it, and
// returns busy() when another process, or this one, holds it already.
func lockPath(path, stamp string, busy func() error) (func(), error) {
	// O_NOFOLLOW: the lock is truncated below; through a link it would
	// truncate whatever the link leads to.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return nil, err
	}
	if err := atomicfile.OneName(f); err != nil {
		f.Close()
		return nil, precondition("%v", err)
	}
	key, err := fileKey(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	lockedHere.Lock()
	defer lockedHere.Unlock()
	if lockedHere.m[key] {
		f.Close()
		return nil, busy()
	}
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: io.SeekStart}
	if err := syscall.FcntlFlock(f.Fd(), syscall.F_SETLK, &lk); err != nil {
		f.Close()
		return nil, busy()
	}
	lockedHere.m[key] = true
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(stamp), 0)
	return func() {
		lockedHere.Lock()
		defer lockedHere.Unlock()
		delete(lockedHere.m, key)
		f.Close() // drops the POSIX lock
	}, nil
}

func fileKey(f *os.File) ([2]uint64, error) {
	st, err := f.Stat()
	if err != nil {
		return [2]uint64{}, err
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return [2]uint64{}, fmt.Errorf("%s: no device and inode", f.Name())
	}
	return [2]uint64{uint64(sys.Dev), uint64(sys.Ino)}, nil
}

// lockHeld tells whether another process holds the work directory's lock
// (known is false when there is no lock file to ask). It asks with
// F_GETLK: it takes nothing and writes nothing.
func lockHeld(work string) (held, known bool) {
	f, err := os.Open(filepath.Join(work, LockFile))
	if err != nil {
		return false, false
	}
	defer f.Close()
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: io.SeekStart}
	if err := syscall.FcntlFlock(f.Fd(), syscall.F_GETLK, &lk); err != nil {
		return false, false
	}
	return lk.Type != syscall.F_UNLCK, true
}

// workLocked tells whether an oedl holds work's lock now: this process
// (asked by device and inode without opening the file, since closing any
// descriptor of it would drop this process's lock) or another one
// (lockHeld's F_GETLK).
func workLocked(work string) bool {
	st, err := os.Stat(filepath.Join(work, LockFile))
	if err != nil {
		return false
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		lockedHere.Lock()
		here := lockedHere.m[[2]uint64{uint64(sys.Dev), uint64(sys.Ino)}]
		lockedHere.Unlock()
		if here {
			return true
		}
	}
	held, _ := lockHeld(work)
	return held
}
