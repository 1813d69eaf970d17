package plan

import (
	"bufio"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// DetectMachine describes this machine: its CPU count and physical memory
// (MemTotal of /proc/meminfo; 0 where that file does not exist, and the
// caller must then ask for --memory).
func DetectMachine() Machine {
	m := Machine{Cores: runtime.NumCPU()}
	if f, err := os.Open("/proc/meminfo"); err == nil {
		defer f.Close()
		m.MemoryBytes = memTotal(f)
	}
	return m
}

// memTotal reads the "MemTotal:  24567890 kB" line of /proc/meminfo.
func memTotal(r io.Reader) int64 {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil || kb < 0 {
				return 0
			}
			return kb * 1024
		}
	}
	return 0
}
