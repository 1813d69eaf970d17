package manifest

import (
	"io/fs"
	"syscall"
)

// changeTime is the inode change time (st_ctim) in nanoseconds, 0 when
// the view gives none.
func changeTime(fi fs.FileInfo) int64 {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || st == nil {
		return 0
	}
	return st.Ctim.Nano()
}
