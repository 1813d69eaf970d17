package estimate

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseHardware(t *testing.T) {
	tests := []struct {
		name, in, err string
	}{
		{"ok", `{"cores": 4, "disk_mbps": 100}`, ""},
		{"typo is an error", `{"cores": 4, "iops": 100}`, `unknown field "iops"`},
		{"no disk limit", `{"cores": 4}`, "at least one limit"},
		{"no cores", `{"disk_mbps": 100}`, "cores must be at least 1"},
		{"bad disk model", `{"cores": 1, "disk_mbps": 1, "disk_model": "ssd"}`, `disk_model "ssd"`},
		{"negative", `{"cores": 1, "disk_mbps": -1}`, "must not be negative"},
		{"not JSON", `cores: 4`, "box.json"},
		{"a volume class is a disk", `{"cores": 4, "volume": "gp3"}`, ""},
		{"gp2 needs a size", `{"cores": 4, "volume": "gp2"}`, "volume_gib"},
		{"gp2 size and IOPS disagree", `{"cores": 4, "volume": "gp2", "volume_gib": 100, "disk_iops": 3000}`, "3 IOPS per GiB"},
		{"io1 needs its IOPS", `{"cores": 4, "volume": "io1"}`, "provisioned IOPS"},
		{"st1 needs a size", `{"cores": 4, "volume": "st1"}`, "per TiB"},
		{"a local disk needs its figures", `{"cores": 4, "volume": "local-nvme", "disk_iops": 100000}`, "disk_mbps"},
		{"unknown volume", `{"cores": 4, "volume": "nvme"}`, `volume "nvme"`},
		{"burst spent is a share", `{"cores": 4, "volume": "gp2", "volume_gib": 100, "burst_spent": 2}`, "burst_spent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseHardware([]byte(tt.in), "box.json")
			if tt.err == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tt.err)
		})
	}
}

func TestModelRoundTrip(t *testing.T) {
	m := DefaultModel()
	m.Uncertainty.Residuals = []float64{0.1, -0.2}
	data, err := json.Marshal(m)
	require.NoError(t, err)
	back, err := ParseModel(data, "cal.json")
	require.NoError(t, err)
	assert.Equal(t, m, back)

	_, err = ParseModel([]byte(`{"version": 99}`), "cal.json")
	assert.ErrorContains(t, err, "version 99")
	_, err = ParseModel([]byte(`{"dump": {"read_random": 2}}`), "cal.json")
	assert.ErrorContains(t, err, "dump.read_random")
	// A partial calibration keeps the priors it does not override; a
	// version 1 file's mean request size becomes the random share with as
	// many requests per byte on a generic disk (8 KiB random, 256 KiB
	// sequential): 64 KiB is one byte in ten random.
	part, err := ParseModel([]byte(`{"version": 1, "dump": {"startup_s": 2, "io_size_kb": 64}}`), "cal.json")
	require.NoError(t, err)
	assert.Equal(t, ModelVersion, part.Version)
	assert.Equal(t, 2.0, part.Dump.StartupSec)
	assert.InDelta(t, (1/64.0-1/256.0)/(1/8.0-1/256.0), part.Dump.ReadRandom, 1e-12)
	assert.Equal(t, part.Dump.ReadRandom, part.Dump.WriteRandom)
	assert.Zero(t, part.Dump.IOSizeKB)
	assert.Equal(t, DefaultModel().Load, part.Load)
	// A file's hardware is the whole disk: a generic one does not take the
	// prior's volume class.
	own, err := ParseModel([]byte(`{"hardware": {"cores": 2, "disk_mbps": 80}}`), "cal.json")
	require.NoError(t, err)
	assert.Equal(t, Hardware{Cores: 2, DiskMBps: 80}, own.Hardware)
}

// FuzzParseModel: any input either fails with an error naming the file or
// gives a valid model that survives a JSON round trip and a cost query.
func FuzzParseModel(f *testing.F) {
	seed, _ := json.Marshal(DefaultModel())
	f.Add(seed)
	f.Add([]byte(`{"version": 1, "hardware": {"cores": 2, "disk_mbps": 5}}`))
	f.Add([]byte(`{"version": 1, "dump": {"io_size_kb": -1}}`))
	f.Add([]byte(`{"version": 2, "hardware": {"cores": 2, "volume": "gp2", "volume_gib": 50, "burst_spent": 0.5}, "load": {"write_random": 0.5}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseModel(data, "cal.json")
		if err != nil {
			assert.Contains(t, err.Error(), "cal.json")
			return
		}
		out, err := json.Marshal(m)
		require.NoError(t, err)
		back, err := ParseModel(out, "again")
		require.NoError(t, err)
		assert.Equal(t, m.Dump, back.Dump)
	})
}

// FuzzParseHardware: any input either fails or gives hardware that
// validates.
func FuzzParseHardware(f *testing.F) {
	f.Add([]byte(`{"cores": 8, "memory_bytes": 17179869184, "disk_mbps": 250, "disk_iops": 4000, "disk_latency_ms": 2.5, "disk_model": "ceilings"}`))
	f.Add([]byte(`{"cores": 0}`))
	f.Add([]byte(`{"cores": 8, "volume": "st1", "volume_gib": 2048, "read_ahead_kb": 1024}`))
	f.Add([]byte(`{"cores": 8, "volume": "io2", "disk_iops": 40000}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := ParseHardware(data, "hw.json")
		if err == nil {
			require.NoError(t, h.Validate())
			iops, mbps, baseIOPS, baseMBps := h.Ceilings()
			for _, v := range []float64{iops, mbps, baseIOPS, baseMBps} {
				assert.False(t, v < 0 || math.IsNaN(v) || math.IsInf(v, 0), "ceilings %v", []float64{iops, mbps, baseIOPS, baseMBps})
			}
			assert.NotEmpty(t, h.String())
		}
	})
}

func TestRunStrategy(t *testing.T) {
	hw := Hardware{Cores: 4}
	assert.Equal(t, DefaultStrategy(hw), RunStrategy(hw, nil, nil, 0, 0, 0, 0, 0))
	s := RunStrategy(hw, nil, nil, 3, 5, -1, -1, 2)
	assert.Equal(t, Strategy{DumpJobs: 3, LoadJobs: 5, LoadsPerArea: -1, ThreadedDumpMin: 0, DumpThreads: 2, BatchLoads: true}, s, "negative: no cap")
	assert.Equal(t, int64(1<<30), RunStrategy(hw, nil, nil, 0, 0, 2, 1<<30, 0).ThreadedDumpMin)
}

// A calibration that measured no latency must not inherit the prior's:
// zero values are written, not omitted.
func TestZeroValuesSurviveTheFile(t *testing.T) {
	m := DefaultModel()
	m.Hardware.DiskLatencyMs, m.Hardware.DiskModel = 0, DiskSerial
	path := t.TempDir() + "/cal.json"
	require.NoError(t, m.WriteFile(path))
	back, err := ReadModel(path)
	require.NoError(t, err)
	assert.Zero(t, back.Hardware.DiskLatencyMs)
	assert.Equal(t, DiskSerial, back.Hardware.DiskModel)
}

// TestParseModelOfAnOlderVersion: a calibration keeps the meaning of the
// version that wrote it. A version 2 file fitted its cost per key counting
// one key a record per index, so it is read with WORD indexes counted the
// same (read with the prior's 12 bytes a word it priced sports' rebuild 19 %
// long), and the reader is told, by the file's name, to calibrate again. A
// version 3 file measured its load and idxbuild rates into variable
// extents, their growth in them: it is read with that growth not priced
// again.
func TestParseModelOfAnOlderVersion(t *testing.T) {
	tests := []struct {
		name, in      string
		wordKeyBytes  float64
		growthInRates bool
		older         string // in the warning, "" for none
		err           string
	}{
		{"version 2 counted a key a record", `{"version": 2, "idxbuild": {"cpu_per_key_us": 0.9}}`, 0, true, "cal.json was written by an older oedl (model version 2", ""},
		{"version 2 that counted words keeps them", `{"version": 2, "idxbuild": {"word_key_bytes": 15}}`, 15, true, "(model version 3: a variable extent's growth", ""},
		{"version 1 is older still", `{"version": 1}`, 0, true, "model version 1: each phase's mean request size read as its share of random requests; version 2", ""},
		{"version 3 measured the growth in its rates", `{"version": 3}`, 12, true, "(model version 3: a variable extent's growth left in the load and idxbuild rates", ""},
		{"the current version takes the prior", `{"version": 4}`, 12, false, "", ""},
		{"no version is the current one", `{"dump": {"startup_s": 1}}`, 12, false, "", ""},
		{"a newer version is refused", `{"version": 5}`, 0, false, "", "cal.json: model version 5, this oedl reads version 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ParseModel([]byte(tt.in), "cal.json")
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, ModelVersion, m.Version)
			assert.Equal(t, tt.wordKeyBytes, m.Idxbuild.WordKeyBytes)
			assert.Equal(t, tt.growthInRates, m.GrowthInRates)
			// Written again, it is a current file with the same meaning.
			data, err := json.Marshal(m)
			require.NoError(t, err)
			again, err := ParseModel(data, "again.json")
			require.NoError(t, err)
			assert.Equal(t, tt.wordKeyBytes, again.Idxbuild.WordKeyBytes)
			assert.Equal(t, tt.growthInRates, again.GrowthInRates)
			assert.Empty(t, again.Older)
			if tt.older == "" {
				assert.Empty(t, m.Older)
			} else {
				assert.Contains(t, m.Older, tt.older)
				assert.Contains(t, m.Older, "oedl calibrate")
			}
		})
	}
}
