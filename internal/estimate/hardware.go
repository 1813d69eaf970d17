package estimate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/oedl/oedl/internal/units"
)

// Hardware is the machine an estimate is for. The disk is one shared device
// (source, dump directory and target on the same volume, the common case
// for a migration box); its two ceilings are both needed because dump/load
// I/O is a mix of large sequential and small random requests
// (performance-model.md §1.1: "a throughput ceiling and an IOPS ceiling,
// not IOPS alone").
type Hardware struct {
	Cores       int     `json:"cores"`
	MemoryBytes int64   `json:"memory_bytes"`
	DiskMBps    float64 `json:"disk_mbps"` // device throughput ceiling, MB/s (10^6 bytes)
	DiskIOPS    float64 `json:"disk_iops"` // device request ceiling
	// DiskLatencyMs is the service time of one request as seen by a single
	// synchronous stream. A proutil stream has about one request in
	// flight, so one stream cannot use more than 1000/latency IOPS however
	// fast the device is. This is what makes overlapped dump and load faster
	// than staged ones on a device that neither saturates alone
	// (performance-model.md §4, ε = 0.83 in seed 003). 0 = no per-stream
	// limit.
	DiskLatencyMs float64 `json:"disk_latency_ms"`
	// DiskModel says how the two ceilings combine (DiskSerial, the default,
	// or DiskCeilings).
	DiskModel string `json:"disk_model"`
	Note      string `json:"note,omitempty"`
}

// Disk models.
const (
	// DiskSerial: one request at a time, each costing bytes/MBps + 1/IOPS
	// (a local disk; oesim's virtual disk).
	DiskSerial = "serial"
	// DiskCeilings: MB/s and IOPS are separate provisioned limits (a cloud
	// block volume such as the seed's 4000-IOPS EBS volume).
	DiskCeilings = "ceilings"
)

// Validate reports the first field that makes the hardware unusable.
func (h Hardware) Validate() error {
	var errs []error
	if h.Cores < 1 {
		errs = append(errs, fmt.Errorf("cores must be at least 1 (got %d)", h.Cores))
	}
	if h.Cores > 1<<16 {
		errs = append(errs, fmt.Errorf("cores %d: more than this estimator handles", h.Cores))
	}
	if h.DiskMBps < 0 || h.DiskIOPS < 0 || h.DiskLatencyMs < 0 || h.MemoryBytes < 0 {
		errs = append(errs, errors.New("disk_mbps, disk_iops, disk_latency_ms and memory_bytes must not be negative"))
	}
	if h.DiskModel != "" && h.DiskModel != DiskSerial && h.DiskModel != DiskCeilings {
		errs = append(errs, fmt.Errorf("disk_model %q: want %q or %q", h.DiskModel, DiskSerial, DiskCeilings))
	}
	if h.DiskMBps == 0 && h.DiskIOPS == 0 && h.DiskLatencyMs == 0 {
		errs = append(errs, errors.New("the disk needs at least one limit: disk_mbps, disk_iops or disk_latency_ms"))
	}
	return errors.Join(errs...)
}

// DiskRate is the disk's throughput ceiling as oedl shows every rate,
// in MiB/s ("381.5 MiB/s"); DiskMBps is in the decimal MB/s of disk
// datasheets (--disk-mbps 400), and that is the one place it is typed.
func (h Hardware) DiskRate() string {
	if h.DiskMBps <= 0 {
		return "unlimited"
	}
	return units.FormatRate(h.DiskMBps * 1e6)
}

// String is a one-line description for reports.
func (h Hardware) String() string {
	s := fmt.Sprintf("%d cores, disk %s / %.0f IOPS", h.Cores, h.DiskRate(), h.DiskIOPS)
	if h.DiskLatencyMs > 0 {
		s += fmt.Sprintf(" / %.2g ms", h.DiskLatencyMs)
	}
	if h.MemoryBytes > 0 {
		s += ", " + units.FormatIEC(h.MemoryBytes) + " RAM"
	}
	return s
}

// ReadHardware reads a Hardware JSON file. Unknown fields are an error so
// that a typo ("iops" for "disk_iops") does not silently fall back to a
// default.
func ReadHardware(path string) (Hardware, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Hardware{}, err
	}
	return ParseHardware(data, path)
}

// ParseHardware reads a Hardware description from data; name is used in
// errors.
func ParseHardware(data []byte, name string) (Hardware, error) {
	var h Hardware
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return h, fmt.Errorf("%s: %w", name, err)
	}
	if err := h.Validate(); err != nil {
		return h, fmt.Errorf("%s: %w", name, err)
	}
	return h, nil
}
