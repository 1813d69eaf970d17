package tune

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/oedl/oedl/internal/diskstats"
)

// Sampler reads what the controller is fed about the machine: the CPU
// time of the run (its process and its utilities), the cores' busy share
// from a /proc/stat-form file and a device's counters from a
// diskstats-form one (oesim's virtual disk writes one in its state
// directory; a real disk's line is in /proc/diskstats).
//
// The cores bind the run when its own processes keep them busy, not when
// other users of the machine do: a start-up that waits on latency gains
// from one more slot however busy the others keep the cores, and the
// machine's share (MachineBusy) is reported beside it.
type Sampler struct {
	Own   func() time.Duration // CPU time of the run so far; nil = not read
	Cores int
	Stat  string            // "/proc/stat"; "" = the machine's cores are not read
	Disk  *diskstats.Source // nil = the disk is not read
}

// Reading is the counters at one moment.
type Reading struct {
	At              time.Time
	own             time.Duration // the run's CPU time
	ownOK           bool
	cpuBusy, cpuAll uint64 // jiffies of all cores since boot
	cpuOK           bool
	disk            diskstats.Device
	diskOK          bool
}

// Read takes the counters now; a file it cannot read leaves that resource
// unknown in the interval (it then never binds) rather than stopping a run.
func (s Sampler) Read(now time.Time) Reading {
	r := Reading{At: now}
	if s.Own != nil && s.Cores > 0 {
		r.own, r.ownOK = s.Own(), true
	}
	if s.Stat != "" {
		r.cpuBusy, r.cpuAll, r.cpuOK = readCPU(s.Stat)
	}
	if s.Disk != nil {
		d, err := s.Disk.Line()
		r.disk, r.diskOK = d, err == nil
	}
	return r
}

// Interval is what happened between two readings of s, as the controller
// takes it (the slot classes are the caller's to add).
func (s Sampler) Interval(a, b Reading) Observation {
	o := Observation{Seconds: b.At.Sub(a.At).Seconds(), CPUBusy: -1, MachineBusy: -1, DiskBusy: -1}
	if a.ownOK && b.ownOK && o.Seconds > 0 && b.own >= a.own {
		// A utility's CPU time is counted when it ends: clip at 1.
		o.CPUBusy = min(1, (b.own-a.own).Seconds()/o.Seconds/float64(s.Cores))
	}
	if a.cpuOK && b.cpuOK && b.cpuAll > a.cpuAll && b.cpuBusy >= a.cpuBusy {
		o.MachineBusy = float64(b.cpuBusy-a.cpuBusy) / float64(b.cpuAll-a.cpuAll)
	}
	if a.diskOK && b.diskOK && o.Seconds > 0 {
		d := b.disk.Counts.Sub(a.disk.Counts)
		o.DiskBytes = float64(d.SectorsRead+d.SectorsWritten) * 512
		if b.disk.BusyMs >= a.disk.BusyMs {
			// A reservation may end after the reading: clip at 1.
			o.DiskBusy = min(1, float64(b.disk.BusyMs-a.disk.BusyMs)/1000/o.Seconds)
		}
	}
	return o
}

// readCPU reads the "cpu" line of a /proc/stat-form file: user, nice,
// system, idle, iowait, irq, softirq, steal (proc(5)); busy is all but
// idle and iowait (a core waiting for the disk is free to run a job).
func readCPU(path string) (busy, all uint64, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		busy, all, err := parseCPU(sc.Text())
		if err == nil {
			return busy, all, true
		}
	}
	return 0, 0, false
}

func parseCPU(line string) (busy, all uint64, err error) {
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, 0, fmt.Errorf("not the cpu line")
	}
	for i, s := range f[1:9] {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("%q is not a counter", s)
		}
		all += v
		if i != 3 && i != 4 { // idle, iowait
			busy += v
		}
	}
	return busy, all, nil
}
