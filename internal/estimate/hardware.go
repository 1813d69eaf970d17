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
// not IOPS alone"). Volume says which kind of device it is, and with it
// what counts as one request, which ceilings apply and whether it bursts
// (volume.go; docs/estimate.md "Disk physics").
type Hardware struct {
	Cores       int     `json:"cores"`
	MemoryBytes int64   `json:"memory_bytes"`
	DiskMBps    float64 `json:"disk_mbps"` // device throughput ceiling, MB/s (10^6 bytes); with a volume class, 0 = the class's
	DiskIOPS    float64 `json:"disk_iops"` // device request ceiling; gp2: the baseline; gp3, io1, io2: the provisioned IOPS
	// Volume is the kind of device (VolumeGP2 … VolumeHDD); "" is a
	// generic device described by disk_mbps, disk_iops and disk_model
	// alone (oesim's virtual disk).
	Volume    string  `json:"volume,omitempty"`
	VolumeGiB float64 `json:"volume_gib,omitempty"` // size: gp2's baseline, st1 and sc1 throughput
	// BurstSpent is the share of the burst bucket (gp2 I/O credits, st1
	// and sc1 throughput credits) already spent when the run starts: 0, a
	// full bucket (a new volume, or one idle for hours), to 1, empty.
	BurstSpent float64 `json:"burst_spent,omitempty"`
	// ReadAheadKB and MaxSectorsKB are the kernel's block-layer settings
	// (/sys/block/<dev>/queue/read_ahead_kb and max_sectors_kb; 0 = 128
	// and 512): the size of a read-ahead request and of the largest
	// request the kernel builds. MaxIOKB is what a generic device counts
	// as one sequential request (0 = 256 KiB).
	ReadAheadKB  int `json:"read_ahead_kb,omitempty"`
	MaxSectorsKB int `json:"max_sectors_kb,omitempty"`
	MaxIOKB      int `json:"max_io_kb,omitempty"`
	// DiskLatencyMs is the service time of one request as seen by a single
	// synchronous stream. A proutil stream has about one request in
	// flight, so one stream cannot use more than 1000/latency IOPS however
	// fast the device is. This is what makes overlapped dump and load faster
	// than staged ones on a device that neither saturates alone
	// (performance-model.md §4, ε = 0.83 in seed 003). 0 = no per-stream
	// limit.
	DiskLatencyMs float64 `json:"disk_latency_ms"`
	// DiskQueueMs is the most device time one request queued ahead of a
	// waited one holds the device. A device serves its queue in arrival
	// order: a small request a stream waits for (a commit's BI block, a
	// .bd's first block) is served after the request every other stream
	// doing I/O has queued before it, each holding the device up to this
	// long (a streaming request is cut at the device's largest). 0 = a
	// waited request is served at once (calibrate measures it: a batch of
	// small loads beside a dump, calibrate.go step 7b).
	DiskQueueMs float64 `json:"disk_queue_ms,omitempty"`
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
	if h.DiskMBps < 0 || h.DiskIOPS < 0 || h.DiskLatencyMs < 0 || h.DiskQueueMs < 0 || h.MemoryBytes < 0 || h.VolumeGiB < 0 {
		errs = append(errs, errors.New("disk_mbps, disk_iops, disk_latency_ms, disk_queue_ms, volume_gib and memory_bytes must not be negative"))
	}
	if h.VolumeGiB > 1<<20 {
		errs = append(errs, fmt.Errorf("volume_gib %g: more than any volume (1 PiB)", h.VolumeGiB))
	}
	if !(h.BurstSpent >= 0 && h.BurstSpent <= 1) {
		errs = append(errs, fmt.Errorf("burst_spent %g: want a share from 0 (a full bucket) to 1 (empty)", h.BurstSpent))
	}
	if h.ReadAheadKB < 0 || h.MaxSectorsKB < 0 || h.MaxIOKB < 0 {
		errs = append(errs, errors.New("read_ahead_kb, max_sectors_kb and max_io_kb must not be negative"))
	}
	if h.DiskModel != "" && h.DiskModel != DiskSerial && h.DiskModel != DiskCeilings {
		errs = append(errs, fmt.Errorf("disk_model %q: want %q or %q", h.DiskModel, DiskSerial, DiskCeilings))
	}
	if h.Volume == "" && h.DiskMBps == 0 && h.DiskIOPS == 0 && h.DiskLatencyMs == 0 {
		errs = append(errs, errors.New("the disk needs at least one limit: disk_mbps, disk_iops or disk_latency_ms (or a volume class)"))
	}
	if len(errs) == 0 {
		if _, err := resolveDisk(h); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// DiskRate is the disk's throughput ceiling as oedl shows every rate,
// in MiB/s ("381.5 MiB/s"): the ceiling in effect (a volume class's own
// when no disk_mbps is given); DiskMBps is in the decimal MB/s of disk
// datasheets (--disk-mbps 400), and that is the one place it is typed.
func (h Hardware) DiskRate() string {
	_, mbps, _, _ := h.Ceilings()
	return rate(mbps)
}

// rate is a ceiling in MB/s as oedl shows rates; 0 is no ceiling.
func rate(mbps float64) string {
	if mbps <= 0 {
		return "unlimited"
	}
	return units.FormatRate(mbps * 1e6)
}

// disk is the resolved disk; Validate has checked it resolves (a
// description that does not falls back to a generic disk of its bare
// figures).
func (h Hardware) disk() disk {
	d, err := resolveDisk(h)
	if err != nil {
		d, _ = resolveDisk(Hardware{DiskIOPS: h.DiskIOPS, DiskMBps: h.DiskMBps, DiskModel: h.DiskModel, DiskLatencyMs: h.DiskLatencyMs, DiskQueueMs: h.DiskQueueMs})
	}
	return d
}

// Ceilings are the disk's effective figures: IOPS and MB/s while the burst
// bucket lasts, and once it is empty (the same when the volume does not
// burst).
func (h Hardware) Ceilings() (iops, mbps, baseIOPS, baseMBps float64) {
	d := h.disk()
	return d.iops, d.mbps, d.baseIOPS, d.baseMBps
}

// DiskFigures is the disk in effect, for reports and JSON.
type DiskFigures struct {
	IOPS     float64 `json:"iops"`      // while burst credits last (the only figure when the volume does not burst)
	MBps     float64 `json:"mbps"`      // MB/s, likewise
	BaseIOPS float64 `json:"base_iops"` // once the bucket is empty
	BaseMBps float64 `json:"base_mbps"`
}

// Figures returns the disk in effect.
func (h Hardware) Figures() DiskFigures {
	var c DiskFigures
	c.IOPS, c.MBps, c.BaseIOPS, c.BaseMBps = h.Ceilings()
	return c
}

// String is a one-line description for reports.
func (h Hardware) String() string {
	d := h.disk()
	s := fmt.Sprintf("%d cores, %s", h.Cores, d.describe())
	if h.MemoryBytes > 0 {
		s += ", " + units.FormatIEC(h.MemoryBytes) + " RAM"
	}
	return s
}

// DiskString describes the disk alone ("gp2 262 MB/s / 4002 IOPS / 1.5 ms").
func (h Hardware) DiskString() string {
	d := h.disk()
	return d.describe()
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
