package sysproc

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Parse names process pid from its /proc/PID/stat and the boot_id of the
// machine it runs on, read here or on another host (over ssh); running
// is false for a process that has exited and waits for its parent
// (zombie).
func Parse(pid int, stat []byte, boot string) (id ID, running bool, err error) {
	f, err := statFields(pid, stat)
	if err != nil {
		return ID{}, false, err
	}
	// After "pid (comm)", field 3 is the state and field 22 the start
	// time: index 19 of what follows the comm.
	if len(f) < 20 {
		return ID{}, false, fmt.Errorf("/proc/%d/stat: %d fields after the name", pid, len(f))
	}
	start, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return ID{}, false, fmt.Errorf("/proc/%d/stat: start time %q: %w", pid, f[19], err)
	}
	return ID{PID: pid, Start: start, Boot: strings.TrimSpace(boot)}, f[0] != "Z" && f[0] != "X", nil
}

// statFields are the fields of a /proc/PID/stat after the command name,
// which is in parentheses and may itself hold spaces and parentheses.
func statFields(pid int, b []byte) ([]string, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	return strings.Fields(string(b[i+1:])), nil
}
