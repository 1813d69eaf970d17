package run

import (
	"encoding/json"
	"syscall"
	"time"

	"github.com/oedl/oedl/internal/atomicfile"
)

// RusageFile records what the run cost in CPU: oedl's own (the scheduler,
// the journal, the printers) and its utilities' (children it waited for).
// The benchmark reads it to show that oedl itself costs next to nothing.
const RusageFile = "rusage.json"

// Rusage is the content of RusageFile.
type Rusage struct {
	Elapsed      time.Duration `json:"elapsed_ns"`
	SelfUser     time.Duration `json:"self_user_ns"`
	SelfSys      time.Duration `json:"self_sys_ns"`
	ChildrenUser time.Duration `json:"children_user_ns"`
	ChildrenSys  time.Duration `json:"children_sys_ns"`
	SelfCPUShare float64       `json:"self_cpu_share"` // (self user+sys) / elapsed
}

func measureRusage(elapsed time.Duration) Rusage {
	var self, children syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	r := Rusage{Elapsed: elapsed, SelfUser: tv(self.Utime), SelfSys: tv(self.Stime),
		ChildrenUser: tv(children.Utime), ChildrenSys: tv(children.Stime)}
	if elapsed > 0 {
		r.SelfCPUShare = float64(r.SelfUser+r.SelfSys) / float64(elapsed)
	}
	return r
}

func writeRusage(c *Config, elapsed time.Duration) (Rusage, error) {
	r := measureRusage(elapsed)
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return r, err
	}
	return r, atomicfile.WriteFile(c.work(RusageFile), append(data, '\n'))
}
