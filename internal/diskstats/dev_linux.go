package diskstats

import (
	"fmt"
	"os"
	"syscall"
)

// devOf is the major and minor number of the device holding dir.
func devOf(dir string) (major, minor uint32, err error) {
	st, err := os.Stat(dir)
	if err != nil {
		return 0, 0, err
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, fmt.Errorf("%s: no device number", dir)
	}
	dev := uint64(sys.Dev)
	// The kernel's encoding (new_encode_dev): major in bits 8-19, minor in
	// bits 0-7 and 20-31.
	return uint32((dev >> 8) & 0xfff), uint32((dev & 0xff) | ((dev >> 12) & 0xfff00)), nil
}
