package execx

import (
	"os/exec"
	"runtime"
	"syscall"
)

// masterAttr puts the master in a process group of its own (a Ctrl-C on
// the terminal must leave it up: the remote utilities are stopped through
// it) and has the kernel end it when oedl dies (kill -9 included), so
// that no connection outlives the process that owns it.
func masterAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}

// holdMaster starts the master and waits for it on a thread of its own:
// Linux sends Pdeathsig when the thread that started the process ends,
// not the process, so the thread stays locked to this goroutine for as
// long as the master lives.
func holdMaster(cmd *exec.Cmd, started chan<- error, dead chan<- struct{}) {
	runtime.LockOSThread()
	if err := cmd.Start(); err != nil {
		started <- err
		close(dead)
		return
	}
	started <- nil
	_ = cmd.Wait()
	close(dead)
}
