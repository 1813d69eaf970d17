package sim

import (
	"os"
	"path/filepath"
	"syscall"

	"github.com/oedl/oedl/internal/sim/store"
)

// refuseNoRoom is -validate's space check: the fixed extents on each
// filesystem against its free space now. It names each filesystem short
// of room by the directory of its first extent; it reads, never writes.
func refuseNoRoom(p *proc, areas []*store.Area) int {
	type fsNeed struct {
		dir     string
		needKB  int64
		availKB int64
	}
	var order []syscall.Fsid
	byFS := map[syscall.Fsid]*fsNeed{}
	for _, a := range areas {
		for _, e := range a.Extents {
			if !e.Fixed {
				continue
			}
			dir := existingDir(filepath.Dir(e.Path))
			var st syscall.Statfs_t
			if err := syscall.Statfs(dir, &st); err != nil {
				return p.failErr(err)
			}
			n := byFS[st.Fsid]
			if n == nil {
				n = &fsNeed{dir: filepath.Dir(e.Path), availKB: int64(st.Bavail) * int64(st.Bsize) / 1024}
				byFS[st.Fsid] = n
				order = append(order, st.Fsid)
			}
			n.needKB += e.SizeKB
		}
	}
	rc := 0
	for _, id := range order {
		if n := byFS[id]; n.needKB > n.availKB {
			p.msg("oesim.st.noroom", n.dir, n.needKB, n.availKB)
			rc = exitFail
		}
	}
	return rc
}

// existingDir is dir, or its nearest parent that exists: prostrct create
// makes an extent's missing directories, so their filesystem is the
// parent's.
func existingDir(dir string) string {
	for {
		if _, err := os.Stat(dir); err == nil || filepath.Dir(dir) == dir {
			return dir
		}
		dir = filepath.Dir(dir)
	}
}
