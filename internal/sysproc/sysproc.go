package sysproc

import (
	"errors"
	"syscall"
	"time"
)

// ID is one process, as the journal records it.
type ID struct {
	PID int `json:"pid"`
	// Start is when the process started, in clock ticks since boot
	// (/proc/PID/stat field 22); 0 when unknown.
	Start uint64 `json:"start,omitempty"`
	// Boot is the kernel's boot_id: a start time means nothing across a
	// reboot. "" when unknown.
	Boot string `json:"boot,omitempty"`
}

// ErrUnknown is returned where the system does not tell who a process is.
var ErrUnknown = errors.New("process identity unknown on this system")

// Self is this process.
func Self() ID {
	id, err := Of(syscall.Getpid())
	if err != nil {
		return ID{PID: syscall.Getpid()}
	}
	return id
}

// Alive reports whether the process id names still exists and has not
// exited (a zombie waiting for its parent has). Without a start time it
// is never taken for alive: the PID alone may be someone else's.
func (id ID) Alive() bool {
	if id.PID <= 0 || id.Start == 0 {
		return false
	}
	now, err := Of(id.PID)
	if err != nil {
		return false
	}
	return id.Same(now) && !zombie(id.PID)
}

// Same says whether now, the process that has id's PID at present, is
// the one id names: its start time, on the same boot. Without a start
// time it is never the same.
func (id ID) Same(now ID) bool {
	return id.Start != 0 && now.PID == id.PID && now.Start == id.Start && (id.Boot == "" || now.Boot == "" || now.Boot == id.Boot)
}

// Signal sends sig to the process and, when it leads its own process
// group (oedl starts every utility so), to the whole group: whatever the
// utility started goes with it. It checks first that the PID is still
// the process id names.
func (id ID) Signal(sig syscall.Signal) error {
	if !id.Alive() {
		return nil
	}
	if pgid, err := syscall.Getpgid(id.PID); err == nil && pgid == id.PID {
		return syscall.Kill(-id.PID, sig)
	}
	return syscall.Kill(id.PID, sig)
}

// WaitGone waits until none of ids is alive, or the deadline passes; it
// returns those still alive.
func WaitGone(ids []ID, within time.Duration) []ID {
	deadline := time.Now().Add(within)
	for {
		var alive []ID
		for _, id := range ids {
			if id.Alive() {
				alive = append(alive, id)
			}
		}
		if len(alive) == 0 || time.Now().After(deadline) {
			return alive
		}
		// Polling /proc: the processes are not our children (their
		// parent died), so there is nothing to wait(2) for.
		time.Sleep(20 * time.Millisecond)
	}
}
