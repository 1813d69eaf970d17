package sysproc

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
)

var bootID = sync.OnceValue(func() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
})

// Of names the running process pid.
func Of(pid int) (ID, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ID{}, err
	}
	id, _, err := Parse(pid, b, bootID())
	return id, err
}

// stat returns the fields of /proc/PID/stat after the command name.
func stat(pid int) ([]string, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil, err
	}
	return statFields(pid, b)
}

func zombie(pid int) bool {
	f, err := stat(pid)
	return err == nil && len(f) > 0 && (f[0] == "Z" || f[0] == "X")
}

// WithEnv returns the processes (of this user, whose /proc entries can be
// read) whose initial environment holds key=value.
func WithEnv(key, value string) []ID {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	want := []byte(key + "=" + value)
	self := os.Getpid()
	var out []ID
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue
		}
		for _, kv := range bytes.Split(env, []byte{0}) {
			if bytes.Equal(kv, want) {
				if id, err := Of(pid); err == nil && !zombie(pid) {
					out = append(out, id)
				}
				break
			}
		}
	}
	return out
}
