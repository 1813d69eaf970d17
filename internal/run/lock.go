package run

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// LockFile guards a work directory: two oedl processes resuming the same
// run would load the same tables twice. The lock is an flock, so the
// kernel drops it when oedl dies, even by kill -9, and a resume never has
// to clean it up.
const LockFile = "oedl.lock"

func lockWork(work string) (func(), error) {
	path := filepath.Join(work, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		data, _ := os.ReadFile(path)
		f.Close()
		return nil, precondition("another oedl (pid %s) is running in %s: watch it with oedl status --work %s",
			strings.TrimSpace(string(data)), work, work)
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(fmt.Sprintf("%d\n", os.Getpid())), 0)
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}
