package tui

import (
	"os"
	"syscall"

	"golang.org/x/term"
)

// FreeSpace returns a Disks function for Options: pairs of label and path,
// e.g. FreeSpace("dumps", work+"/dump", "target", filepath.Dir(target)).
// A path that cannot be read shows as unknown rather than failing the run.
func FreeSpace(labelPath ...string) func() []Disk {
	return func() []Disk {
		out := make([]Disk, 0, len(labelPath)/2)
		for i := 0; i+1 < len(labelPath); i += 2 {
			out = append(out, Disk{Label: labelPath[i], Free: freeBytes(labelPath[i+1])})
		}
		return out
	}
}

func freeBytes(path string) int64 {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return -1
	}
	return int64(st.Bavail) * int64(st.Bsize) // what an unprivileged process may still write
}

// keyboard returns in when it is a terminal: bubbletea reads keys from it
// in raw mode. A pipe or a file on stdin is not a keyboard (and reading it
// would eat data meant for someone else).
func keyboard(in any) (*os.File, bool) {
	f, ok := in.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil, false
	}
	return f, true
}
