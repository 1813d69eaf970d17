package run

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// offsetProbe tells how far a running utility has read into a file: the
// offset of the descriptor that a descendant of oedl holds open on it
// (/proc/PID/fdinfo/FD, "pos:"). Binary load reads its .bd front to back,
// so the offset is the bytes consumed. It remembers where it found the
// descriptor: a measure is then two small reads, and the process tree is
// walked again only when the descriptor goes away.
type offsetProbe struct {
	path    string // as the kernel names it (symlinks resolved)
	pid, fd int    // where it was last found; pid 0 = not yet
}

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
	self := os.Getpid()
	for _, pid := range descendants(self) {
		if pid == self {
			continue
		}
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
