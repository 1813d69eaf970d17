package execx

import (
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// SignalName is the C name of a signal, "SIGKILL", as a DBA looks it up
// (Go's own String is "killed"); "signal N" when it has none.
func SignalName(s syscall.Signal) string {
	if n := unix.SignalName(s); n != "" {
		return n
	}
	return "signal " + strconv.Itoa(int(s))
}
