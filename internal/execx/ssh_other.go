//go:build !linux

package execx

import (
	"os/exec"
	"syscall"
)

// masterAttr: elsewhere a master outlives a killed oedl until its host
// stops answering; Close ends it in every other case.
func masterAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func holdMaster(cmd *exec.Cmd, started chan<- error, dead chan<- struct{}) {
	if err := cmd.Start(); err != nil {
		started <- err
		close(dead)
		return
	}
	started <- nil
	_ = cmd.Wait()
	close(dead)
}
