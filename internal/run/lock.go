package run

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// LockFile guards a work directory: two oedl processes resuming the same
// run would load the same tables twice. The lock is an flock, so the
// kernel drops it when oedl dies, even by kill -9, and a resume never has
// to clean it up.
const LockFile = "oedl.lock"

// Go opens every file close-on-exec, so no utility oedl starts (nor a
// broker it leaves running) inherits the descriptor and, with it, the
// lock: the lock lives exactly as long as the oedl that took it.
func lockWork(work string) (func(), error) {
	path := filepath.Join(work, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := flockPatiently(f); err != nil {
		data, _ := os.ReadFile(path)
		f.Close()
		return nil, precondition("another oedl (pid %s) is running in %s: watch it with oedl status --work %s",
			strings.TrimSpace(string(data)), work, work)
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(fmt.Sprintf("%d\n", os.Getpid())), 0)
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

// flockPatiently takes the lock, trying for lockPatience: `oedl status`
// holds a shared lock for an instant when it asks whether a run is alive
// (lockHeld), and a run starting at that instant must not take it for
// another run.
func flockPatiently(f *os.File) error {
	deadline := time.Now().Add(lockPatience)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

const lockPatience = time.Second

// lockHeld tells whether an oedl run holds the work directory's lock
// (known is false when there is no lock file to ask). It takes a shared
// lock for an instant and never writes.
func lockHeld(work string) (held, known bool) {
	f, err := os.Open(filepath.Join(work, LockFile))
	if err != nil {
		return false, false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		return true, true
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false, true
}
