package run

import (
	"os"
	"syscall"
	"time"
)

// crashHook is what the OEDL_TEST_CRASH_AT hook calls; tests replace it.
var crashHook = crashNow

// crashNow kills oedl with SIGKILL, as kill -9 would: no deferred function
// runs and the journal holds exactly what was fsynced. It does not return.
// Until the signal lands it sleeps in a loop rather than blocking in
// select {}: if every other goroutine happened to be blocked too, Go's
// runtime would end the program with "all goroutines are asleep -
// deadlock!" (exit 2), which a test would take for an ordinary failure.
func crashNow() {
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	for {
		time.Sleep(time.Hour)
	}
}
