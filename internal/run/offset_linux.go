package run

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
)

// offsetProbe tells how far a running utility has read into a file: the
// offset of the descriptor that the utility (or a process below it: a
// wrapper script's child) holds open on it (/proc/PID/fdinfo/FD, "pos:").
// Binary load reads its .bd front to back, so the offset is the bytes
// consumed. It looks only under the utility's process (setRoot, from
// execx's Started), not under every process oedl runs, and remembers
// where it found the descriptor: a measure is then two small reads.
type offsetProbe struct {
	path    string       // as the kernel names it (symlinks resolved)
	root    atomic.Int64 // the utility's process ID; 0 = not started yet
	pid, fd int          // where it was last found; pid 0 = not yet
}

// setRoot is the utility's process ID (execx.Cmd.Started).
func (p *offsetProbe) setRoot(pid int) { p.root.Store(int64(pid)) }

func newOffsetProbe(path string) *offsetProbe {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		path = r
	}
	if a, err := filepath.Abs(path); err == nil {
		path = a
	}
	return &offsetProbe{path: path}
}

// Offset is the read position in the file, false while no child holds it
// open (not started yet, or already done).
func (p *offsetProbe) Offset() (int64, bool) {
	if p.pid != 0 {
		if pos, ok := p.pos(p.pid, p.fd); ok {
			return pos, true
		}
		p.pid = 0
	}
	root := int(p.root.Load())
	if root == 0 {
		return 0, false
	}
	for _, pid := range descendants(root) {
		fds, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
		if err != nil {
			continue
		}
		for _, d := range fds {
			fd, err := strconv.Atoi(d.Name())
			if err != nil {
				continue
			}
			if pos, ok := p.pos(pid, fd); ok {
				p.pid, p.fd = pid, fd
				return pos, true
			}
		}
	}
	return 0, false
}

// pos reads the offset of pid's fd if it is open on the probe's file.
func (p *offsetProbe) pos(pid, fd int) (int64, bool) {
	base := "/proc/" + strconv.Itoa(pid)
	n := strconv.Itoa(fd)
	if target, err := os.Readlink(base + "/fd/" + n); err != nil || target != p.path {
		return 0, false
	}
	info, err := os.ReadFile(base + "/fdinfo/" + n)
	if err != nil {
		return 0, false
	}
	for _, line := range bytes.Split(info, []byte{'\n'}) {
		if v, ok := bytes.CutPrefix(line, []byte("pos:")); ok {
			pos, err := strconv.ParseInt(strings.TrimSpace(string(v)), 10, 64)
			return pos, err == nil
		}
	}
	return 0, false
}

// descendants lists root and every process below it, from each thread's
// /proc/PID/task/TID/children (a Go program forks from any of its
// threads). A kernel without that file yields root alone.
func descendants(root int) []int {
	out := []int{root}
	seen := map[int]bool{root: true}
	for i := 0; i < len(out); i++ {
		base := "/proc/" + strconv.Itoa(out[i]) + "/task/"
		tasks, err := os.ReadDir(base)
		if err != nil {
			continue
		}
		for _, t := range tasks {
			b, err := os.ReadFile(base + t.Name() + "/children")
			if err != nil {
				continue
			}
			for _, f := range strings.Fields(string(b)) {
				if pid, err := strconv.Atoi(f); err == nil && !seen[pid] {
					seen[pid] = true
					out = append(out, pid)
				}
			}
		}
	}
	return out
}
