// Package sysmem reads this machine's memory from /proc/meminfo. The
// planner sizes idxbuild's sort memory (-TF) with it, calibrate records it
// in the model, and oesim's idxbuild decides with it whether its sort fits
// in -TF memory or goes through the -T sort file.
package sysmem

import (
	"bufio"
	"io"
	"os"
	"strconv"
	"strings"
)

// Info is the machine's physical memory and how much of it is available
// (0 when unknown).
type Info struct {
	Total, Available int64
}

// Read reads /proc/meminfo; the zero Info where it cannot be read.
func Read() Info {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return Info{}
	}
	defer f.Close()
	return Parse(f)
}

// Parse reads the "MemTotal:  24567890 kB" and "MemAvailable: … kB" lines
// of a /proc/meminfo; a line that does not parse counts as absent.
func Parse(r io.Reader) Info {
	var in Info
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		var dst *int64
		switch f[0] {
		case "MemTotal:":
			dst = &in.Total
		case "MemAvailable:":
			dst = &in.Available
		default:
			continue
		}
		if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil && kb >= 0 && kb < 1<<53 {
			*dst = kb << 10
		}
	}
	return in
}
