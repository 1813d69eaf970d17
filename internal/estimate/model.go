package estimate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/oedl/oedl/internal/atomicfile"
	"github.com/oedl/oedl/internal/schedule"
	"github.com/oedl/oedl/internal/volume"
)

// ModelVersion is bumped when the calibration file changes incompatibly,
// or when a parameter calibrate fits changes its meaning: a file keeps the
// meaning of the version that wrote it, and ParseModel converts it to the
// current one (or refuses it, naming the file), never reads it silently
// with the new meaning. Version 2 describes a phase's requests by access
// pattern (read_random, write_random) instead of one mean request size
// (io_size_kb). Version 3 counts a WORD index's keys per word
// (idxbuild.word_key_bytes): a version 2 file's cpu_per_key_us was fitted
// counting one key a record per index, and read with the prior's 12 bytes
// a word it priced sports' rebuild 19 % long (22.9 s against 19.2,
// docs/benchmarks/eta.md, i14-eta3). Version 4 prices a variable
// extent's growth apart (vargrow.go), calibrate measuring the load and
// idxbuild rates on fixed extents: a version 3 file's rates were measured
// into variable extents and hold whatever their growth cost, so it is read
// with growth_in_rates (the growth not priced again).
const ModelVersion = 4

// Model is the cost model of performance-model.md §5, in the form the
// simulated executor needs: what each job asks of the CPU and of the disk.
// It is also the calibration file `oedl calibrate` writes.
//
// A job is a fixed start-up (process start, connect, .bd header: latency,
// no resource) followed by a body that needs CPU seconds, device bytes and
// device requests. The simulator shares the machine between the bodies
// that run at the same time, so phase times, the benefit of overlap and the
// effect of more cores or faster disks come out of the simulation rather
// than out of per-phase formulas.
type Model struct {
	Version int    `json:"version"`
	Origin  string `json:"origin"` // "default priors", or where and when it was calibrated

	// Hardware is the machine the parameters were measured on. Cost uses
	// it; an estimate for other hardware replaces it.
	Hardware Hardware `json:"hardware"`

	Dump      PhaseCost    `json:"dump"`
	Load      PhaseCost    `json:"load"`
	Idxbuild  IdxbuildCost `json:"idxbuild"`
	Tabanalys PhaseCost    `json:"tabanalys"`
	// SourceScanFactor is the source's tabanalys traffic per table byte
	// against a freshly loaded database's (0: the same). Tabanalys reads
	// every block of an area; a source grown over years holds its records
	// in more blocks than the target the load packs them into (the sports
	// source on oesim: 4.8 device bytes read per table byte, its loaded
	// copy 1.3), so one cost for both made the target's tabanalys 2.6
	// times what it took (docs/benchmarks/eta.md, i14-eta2). Tabanalys is
	// priced on a loaded database, as the target is; the source's times
	// this. Calibrate sets it from what each call read (the disk's
	// counters) or, without them, from each call's time (fitTabanalys).
	SourceScanFactor float64 `json:"source_scan_factor,omitempty"`

	// FixedSec is the duration of the jobs that move no table data, by
	// schedule.Kind (preflight, serve, shutdown, create-target, dump-df,
	// dump-sequences, load-sequences, dump-security, load-security, verify,
	// post).
	FixedSec map[string]float64 `json:"fixed_s"`
	// DFPerTableSec is added to create-target per table (loading the .df).
	DFPerTableSec float64 `json:"df_per_table_s"`
	// ExtentWritePerByte is the device traffic of creating a fixed extent,
	// per byte of extent: 1 where prostrct create formats every block.
	ExtentWritePerByte float64 `json:"extent_write_per_byte"`
	// GrowthInRates: the load and idxbuild rates already hold the
	// formatting of the variable extents they grew (a version 3
	// calibration, whose scratch database had one variable extent per
	// area), so the estimate does not price that growth again. False in
	// the priors and in what calibrate writes now (its scratch grows no
	// extent).
	GrowthInRates bool `json:"growth_in_rates,omitempty"`
	// LoadTableSec is the part of a load's start-up that each table it
	// loads costs again: its indexes deactivated, a schema update under
	// the database's schema lock, so that the loads of a batch pay it
	// once per table and concurrent loads into one database one after the
	// other (docs/estimate.md, "Accuracy against real runs"). Calibrate
	// measures it by loading its small sample tables in one -dumplist
	// call; 0 in the priors and in older calibrations (no such cost).
	LoadTableSec float64 `json:"load_table_s,omitempty"`
	// RunCPUPerJobSec is oedl run's own CPU for each job it journals
	// (starting the utility and waiting for it, reading its output, its
	// log, the job's journal records, its events): on the run's cores
	// beside the utilities, which matters when hundreds of small jobs run
	// on few cores. Calibrate measures its own CPU per call over its queue
	// of small dumps (the start and the output, not the journal: a lower
	// bound); 0 in the priors (docs/estimate.md, "Accuracy against real
	// runs").
	RunCPUPerJobSec float64 `json:"run_cpu_per_job_s,omitempty"`
	// BracketSkew: in a threaded dump the largest bracket holds
	// (1+skew)/threads of the table (KB 000061242: brackets come from the
	// index root and are uneven; the last thread finishes late).
	BracketSkew float64 `json:"bracket_skew"`

	// OverlapEfficiency is ε = (T_D + T_L − T_DL)/min(T_D, T_L) as measured
	// by calibrate; it is informative (the simulation derives overlap from
	// the per-stream latency), and reported next to the simulated value.
	OverlapEfficiency float64 `json:"overlap_efficiency,omitempty"`

	// Uncertainty gives the P50/P90 range.
	Uncertainty Uncertainty `json:"uncertainty"`

	// Older says how a file written by an older oedl was read (empty for
	// a current one): the commands warn with it, so a DBA knows to
	// calibrate again.
	Older string `json:"-"`
}

// PhaseCost is what one stream of a dump, load or tabanalys needs.
type PhaseCost struct {
	StartupSec    float64 `json:"startup_s"`     // t0 per job
	StartupCPUSec float64 `json:"startup_cpu_s"` // the part of t0 that is CPU (process start, connect)
	// StartupIOKB is the disk traffic of a start (opening the database,
	// its log and before-image): what makes many small jobs at once slower
	// than one after the other on the same disk.
	StartupIOKB    float64 `json:"startup_io_kb"`
	CPUPerRecordUs float64 `json:"cpu_per_record_us"` // c per record, µs of one core
	CPUPerMB       float64 `json:"cpu_s_per_mb"`      // 1/θ: core seconds per MB of table data
	ReadPerByte    float64 `json:"read_per_byte"`     // device bytes read per table byte
	WritePerByte   float64 `json:"write_per_byte"`    // device bytes written per table byte
	// ReadRandom and WriteRandom are the shares of the read and written
	// device bytes that go as random requests of RandomIOKB (0: one
	// database block): each one operation, and each random read waited
	// for by the stream. The rest is sequential, merged by the kernel and
	// the volume into large requests (traffic.go).
	ReadRandom  float64 `json:"read_random"`
	WriteRandom float64 `json:"write_random"`
	RandomIOKB  float64 `json:"random_io_kb,omitempty"`
	// IOSizeKB is version 1's mean request size, only read from old files
	// and converted to random shares (ParseModel).
	IOSizeKB float64 `json:"io_size_kb,omitempty"`
}

// IdxbuildCost extends PhaseCost with the key work of an index rebuild.
type IdxbuildCost struct {
	PhaseCost
	CPUPerKeyUs float64 `json:"cpu_per_key_us"` // extract + sort + insert, per key, µs of one core
	// KeyBytes is the sort record of one key (key + rowid + length) when
	// the plan does not know the index sizes.
	KeyBytes float64 `json:"key_bytes"`
	// KeysPerRecord is used when the plan does not count indexes.
	KeysPerRecord float64 `json:"keys_per_record"`
	// WordKeyBytes: a WORD index holds one key per word of its field, and
	// the plan knows only the record's mean size, so it is priced at one
	// key per WordKeyBytes of record (at least one). The prior, 12, is the
	// middle of oesim's sports tables (Customer 20, Item 17, Feedback 9,
	// RefCall 7 bytes of record per word); 0 = one key a record, as any
	// index (calibrations written before it).
	WordKeyBytes float64 `json:"word_key_bytes"`
	// SortIOPerKeyByte is the device traffic of a sort that does not fit
	// in -TF memory: written once and read once per merge pass.
	SortIOPerKeyByte float64 `json:"sort_io_per_key_byte"`
	// ThreadPenalty α: CPU work grows by 1 + α·max(0, threads/(2·cores) − 1)
	// when -threadnum × -mergethreads + -datascanthreads oversubscribes
	// the cores (the progresstalk 5.8 h → 32 h case, seed 003's
	// "product < 2 × #cpu").
	ThreadPenalty float64 `json:"thread_penalty"`
	// SecPerIndex is the time every index rebuilt costs whatever its keys
	// (its sort file created and removed, its B-tree started, the schema
	// updated), which a per-byte cost cannot express when a database has
	// thousands of indexes on small or empty tables. Calibrate measures it
	// by rebuilding the scratch's schema before any data is loaded; the
	// priors have 0 (seed 003 does not separate it from the per-key cost).
	SecPerIndex float64 `json:"s_per_index,omitempty"`
	// LargeMinBytes and LargeDevicePerByte: tables larger than
	// LargeMinBytes cost LargeDevicePerByte device bytes per table byte
	// instead of ReadPerByte + WritePerByte. Calibrate rebuilds the largest
	// table alone and the rest of the sample, and their costs per byte
	// differ (a large table has a few narrow indexes per byte, small ones
	// many): each table is priced at the rate of the part of the sample of
	// its size. 0 = one rate for all.
	LargeMinBytes      int64   `json:"large_min_bytes,omitempty"`
	LargeDevicePerByte float64 `json:"large_device_per_byte,omitempty"`
	// LoadKeyFactor is the share of the key work still paid when indexes are
	// built during the load (`build indexes`): the re-read of the data is
	// saved, the sort is not (KB 20206).
	LoadKeyFactor float64 `json:"load_key_factor"`
	// Overlap is the share of the shorter of idxbuild's CPU and I/O time
	// that runs under the longer: 1 when its threads compute while others
	// wait throughout (the prior: seed 003's rebuild took the same time on
	// 2 and 8 cores), 0 when its phases take turns (a scan, then a sort,
	// then the writes). Calibrate measures it when it counts the traffic.
	Overlap float64 `json:"overlap"`
}

// Uncertainty is the relative spread (σ of a log-normal factor) of each
// group of parameters, used by the Monte Carlo range. Residuals, when a
// calibration measured them, are log(actual/predicted) of the sample jobs
// and are bootstrapped instead of the priors for the per-job noise.
type Uncertainty struct {
	CPU       float64   `json:"cpu"`
	IO        float64   `json:"io"`
	Startup   float64   `json:"startup"`
	Job       float64   `json:"job"` // independent per-job noise
	Residuals []float64 `json:"residuals,omitempty"`
}

// DefaultModel returns the documented priors (docs/estimate.md), fitted to
// seed 003's 8-core / 4000 IOPS row: dump ≈ 77 MB/s, load ≈ 51 MB/s,
// idxbuild ≈ 59 MB/s of database over a 14 GB, 873-table ERP database,
// each of them disk-bound (2, 4 and 8 cores gave the same times).
func DefaultModel() *Model {
	return &Model{
		Version:  ModelVersion,
		Origin:   "built-in priors, fitted to White Star Software's published dump/load benchmark (14 GB, 873 tables)",
		Hardware: seedHardware(8, 16<<30),
		Dump: PhaseCost{StartupSec: 0.3, CPUPerRecordUs: 0.3, CPUPerMB: 1.0 / 250,
			ReadPerByte: 1, WritePerByte: 1.02, ReadRandom: 0.3},
		Load: PhaseCost{StartupSec: 0.5, CPUPerRecordUs: 2, CPUPerMB: 1.0 / 40,
			ReadPerByte: 1, WritePerByte: 1.4, WriteRandom: 0.26},
		Idxbuild: IdxbuildCost{
			PhaseCost:   PhaseCost{StartupSec: 1, CPUPerMB: 0.005, ReadPerByte: 0.85, WritePerByte: 0.4, ReadRandom: 0.45, WriteRandom: 0.4},
			CPUPerKeyUs: 0.3, KeyBytes: 24, KeysPerRecord: 3.6, WordKeyBytes: 12, SortIOPerKeyByte: 2, ThreadPenalty: 0.35, LoadKeyFactor: 0.6, Overlap: 1,
		},
		Tabanalys: PhaseCost{StartupSec: 0.5, CPUPerMB: 0.002, ReadPerByte: 1},
		FixedSec: map[string]float64{
			string(schedule.KindPreflight): 1, string(schedule.KindServe): 3, string(schedule.KindShutdown): 2,
			string(schedule.KindCreateTarget): 5, string(schedule.KindDumpDF): 2, string(schedule.KindDumpSeq): 1,
			string(schedule.KindLoadSeq): 1, string(schedule.KindVerify): 0.5, string(schedule.KindPost): 5,
			// a _progres start each, like the sequences; the load reads the target back
			string(schedule.KindDumpSecurity): 1, string(schedule.KindLoadSecurity): 2,
			string(schedule.KindRepair): 3,
		},
		DFPerTableSec:      0.01,
		ExtentWritePerByte: 1,
		BracketSkew:        0.25,
		Uncertainty:        Uncertainty{CPU: 0.15, IO: 0.15, Startup: 0.3, Job: 0.2},
	}
}

// Calibrated reports whether the model comes from a calibration (oedl
// calibrate, or a file), not the built-in priors, whose origin it keeps.
func (m *Model) Calibrated() bool { return m.Origin != DefaultModel().Origin }

// seedHardware is the machine of the priors: seed 003's box, whose
// 4000-IOPS EBS volume is a gp2 of 1334 GiB (baseline 3 IOPS per GiB,
// 250 MiB/s, no burst above 1000 GiB).
func seedHardware(cores int, memory int64) Hardware {
	return Hardware{Cores: cores, MemoryBytes: memory, Volume: VolumeGP2, VolumeGiB: 1334, DiskLatencyMs: 1.5,
		Note: "the benchmark's machine: 8-core Xeon 8124M, 16 GiB, a 4000-IOPS EBS volume (a 1334 GiB gp2)"}
}

// DefaultHardware is the machine an estimate or a dry run assumes when
// nothing describes one: the given cores and memory, and the priors' disk
// (seed 003's volume). One disk for both, so that `oedl estimate` and `oedl
// run --dry-run` of one plan agree.
func DefaultHardware(cores int, memory int64) Hardware {
	hw := DefaultModel().Hardware
	hw.Cores, hw.MemoryBytes = max(1, cores), memory
	hw.Note = "this machine's cores with the model's disk (the benchmark's 4000-IOPS gp2 volume)"
	return hw
}

// Validate checks the parameters a simulation divides by or relies on.
func (m *Model) Validate() error {
	var errs []error
	if m.Version != ModelVersion {
		errs = append(errs, fmt.Errorf("model version %d, this oedl reads version %d", m.Version, ModelVersion))
	}
	if err := m.Hardware.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("hardware: %w", err))
	}
	for name, p := range map[string]PhaseCost{"dump": m.Dump, "load": m.Load, "idxbuild": m.Idxbuild.PhaseCost, "tabanalys": m.Tabanalys} {
		if !(p.ReadRandom >= 0 && p.ReadRandom <= 1 && p.WriteRandom >= 0 && p.WriteRandom <= 1) {
			errs = append(errs, fmt.Errorf("%s.read_random and write_random are shares: from 0 to 1", name))
		}
		if p.RandomIOKB < 0 || p.StartupIOKB < 0 {
			errs = append(errs, fmt.Errorf("%s.random_io_kb and startup_io_kb must not be negative", name))
		}
		if p.StartupSec < 0 || p.CPUPerMB < 0 || p.CPUPerRecordUs < 0 || p.ReadPerByte < 0 || p.WritePerByte < 0 {
			errs = append(errs, fmt.Errorf("%s: costs must not be negative", name))
		}
	}
	if ic := m.Idxbuild; !(ic.SecPerIndex >= 0) || !(ic.LargeDevicePerByte >= 0) || ic.LargeMinBytes < 0 {
		errs = append(errs, errors.New("idxbuild.s_per_index, large_min_bytes and large_device_per_byte must not be negative"))
	}
	if !(m.SourceScanFactor >= 0) {
		errs = append(errs, errors.New("source_scan_factor must not be negative"))
	}
	if !(m.Idxbuild.Overlap >= 0 && m.Idxbuild.Overlap <= 1) {
		errs = append(errs, errors.New("idxbuild.overlap is a share: from 0 to 1"))
	}
	if !(m.LoadTableSec >= 0) || !(m.RunCPUPerJobSec >= 0) {
		errs = append(errs, errors.New("load_table_s and run_cpu_per_job_s must not be negative"))
	}
	if m.BracketSkew < 0 {
		errs = append(errs, errors.New("bracket_skew must not be negative"))
	}
	for k, v := range m.FixedSec {
		if v < 0 || math.IsNaN(v) {
			errs = append(errs, fmt.Errorf("fixed_s.%s must not be negative", k))
		}
	}
	u := m.Uncertainty
	if u.CPU < 0 || u.IO < 0 || u.Startup < 0 || u.Job < 0 {
		errs = append(errs, errors.New("uncertainty must not be negative"))
	}
	return errors.Join(errs...)
}

// ReadModel reads a calibration file.
func ReadModel(path string) (*Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseModel(data, path)
}

// ParseModel reads a calibration from data; name is used in errors.
// Fields the file does not have keep their priors; unknown fields are an
// error.
func ParseModel(data []byte, name string) (*Model, error) {
	m := DefaultModel()
	// A file's hardware replaces the prior's whole: merged field by field,
	// a generic disk would inherit the prior's volume class.
	var probe struct {
		Hardware json.RawMessage `json:"hardware"`
	}
	if json.Unmarshal(data, &probe) == nil && len(probe.Hardware) > 0 {
		m.Hardware = Hardware{}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(m); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: data after the model", name)
	}
	var older []string // what reading an older version changed
	if m.Version == 1 {
		m.fromVersion1()
		older = append(older, "version 1: each phase's mean request size read as its share of random requests")
	}
	if m.Version == 2 {
		if m.fromVersion2(data) {
			older = append(older, "version 2: WORD indexes priced at one key a record, as it was calibrated")
		}
		m.Version = 3
	}
	if m.Version == 3 {
		m.GrowthInRates = true
		older = append(older, "version 3: a variable extent's growth left in the load and idxbuild rates, as it was calibrated")
		m.Version = ModelVersion
	}
	if len(older) > 0 {
		m.Older = fmt.Sprintf("%s was written by an older oedl (model %s); run oedl calibrate again for this version's model",
			name, strings.Join(older, "; "))
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return m, nil
}

// fromVersion1 converts a version 1 calibration: its mean request size
// per phase becomes the random share that gives the same operations per
// byte on a generic device (8 KiB random, 256 KiB sequential requests).
func (m *Model) fromVersion1() {
	for _, p := range []*PhaseCost{&m.Dump, &m.Load, &m.Idxbuild.PhaseCost, &m.Tabanalys} {
		if p.IOSizeKB > 0 {
			r := (1/p.IOSizeKB - 1.0/volume.DefaultMaxIOKB) / (1.0/defaultRandomKB - 1.0/volume.DefaultMaxIOKB)
			r = math.Min(1, math.Max(0, r))
			p.ReadRandom, p.WriteRandom, p.IOSizeKB = r, r, 0
		}
	}
	m.Version = 2
}

// fromVersion2 converts a version 2 calibration: its cpu_per_key_us was
// fitted counting one key a record per index, WORD indexes too, so it
// keeps that count (word_key_bytes 0) unless the file sets word_key_bytes
// itself. It reports whether it changed the model.
func (m *Model) fromVersion2(data []byte) bool {
	var probe struct {
		Idxbuild struct {
			WordKeyBytes *float64 `json:"word_key_bytes"`
		} `json:"idxbuild"`
	}
	if json.Unmarshal(data, &probe) == nil && probe.Idxbuild.WordKeyBytes != nil {
		return false
	}
	m.Idxbuild.WordKeyBytes = 0
	return true
}

// WriteFile writes the model as indented JSON, through a temporary file
// renamed into place so a crash never leaves half a calibration.
func (m *Model) WriteFile(path string) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(append(data, '\n'))
		return err
	})
}

// Clone returns a deep copy.
func (m *Model) Clone() *Model {
	c := *m
	c.FixedSec = make(map[string]float64, len(m.FixedSec))
	for k, v := range m.FixedSec {
		c.FixedSec[k] = v
	}
	c.Uncertainty.Residuals = append([]float64(nil), m.Uncertainty.Residuals...)
	return &c
}

// Cost is the job's duration when it runs alone on the model's hardware.
// It has the signature of schedule.BuildOptions.Cost, so the queue's
// priorities (longest path first) use the same numbers as the estimate.
func (m *Model) Cost(j *schedule.Job) time.Duration {
	w := m.work(j, newCostContext(m.Hardware))
	return aloneDuration(w, m.Hardware)
}
