package plan

import (
	"runtime"

	"github.com/oedl/oedl/internal/sysmem"
)

// DetectMachine describes this machine: its CPU count and physical memory
// (MemTotal of /proc/meminfo; 0 where that file does not exist, and the
// caller must then ask for --memory).
func DetectMachine() Machine {
	return Machine{Cores: runtime.NumCPU(), MemoryBytes: sysmem.Read().Total}
}
