package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/estimate"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/plan"
)

// estimatePlanDir writes a small plan directory: one large table and a
// tail in four areas, with the target.st and target.df the plan renders
// (estimate holds them together with plan.json, as run does).
func estimatePlanDir(t *testing.T) string {
	t.Helper()
	p := &plan.Plan{Version: plan.PlanVersion, BlockSize: 8192, Machine: plan.Machine{Cores: 4, MemoryBytes: 8 << 30},
		Source:   plan.Source{Database: "prod"},
		Idxbuild: plan.Idxbuild{TB: 64, TM: 32, TMB: 64, SG: 64, TF: 80, Threadnum: 2, Mergethreads: 2, Datascanthreads: 4}}
	for i := range 4 {
		p.Areas = append(p.Areas, plan.Area{Name: fmt.Sprintf("a%d", i), Number: 7 + i, Kind: plan.AreaData, RPB: 64, BPC: 8,
			Extents: []plan.Extent{{Path: "."}}})
	}
	var tables []*openedge.DFTable
	for i := range 30 {
		bytes := int64(2e9) / int64((i+1)*(i+1))
		name, area := fmt.Sprintf("t%02d", i), fmt.Sprintf("a%d", i%4)
		p.Tables = append(p.Tables, plan.Placement{Table: "PUB." + name, Owner: "PUB", Name: name,
			Records: bytes / 120, Bytes: bytes, Indexes: 3, DataArea: area})
		p.Areas[i%4].Tables = append(p.Areas[i%4].Tables, "PUB."+name)
		tables = append(tables, &openedge.DFTable{Name: name, Area: area,
			Fields: []*openedge.DFField{{Name: "id", Type: "integer"}}})
	}
	dir := filepath.Join(t.TempDir(), "plan")
	require.NoError(t, plan.WriteDir(dir, p, openedge.NewDF(tables, nil, "UTF-8")))
	return dir
}

func runOedl(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Execute(context.Background(), &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, args)
	return code, out.String(), errOut.String()
}

func TestEstimateCommand(t *testing.T) {
	dir := estimatePlanDir(t)
	hwFile := filepath.Join(t.TempDir(), "hw.json")
	require.NoError(t, os.WriteFile(hwFile, []byte(`{"cores": 8, "memory_bytes": 17179869184, "disk_mbps": 250, "disk_iops": 4000, "disk_latency_ms": 3}`), 0o644))
	badHW := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(badHW, []byte(`{"cores": 8, "iops": 4000}`), 0o644))

	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   []string // substrings
		stderr   []string
		jsonRows int // for --json arrays
	}{
		{name: "text", args: []string{"--plan", dir, "--cores", "4", "--disk-mbps", "200", "--iops", "3000", "--samples", "10"},
			stdout: []string{"Estimated outage window", "P50", "Critical path:", "idxbuild", "PUB.t00", "Tables that dominate"}},
		{name: "hardware file", args: []string{"--plan", filepath.Join(dir, "plan.json"), "--hardware", hwFile, "--samples", "0"},
			stdout: []string{"8 cores, disk 238.4 MiB/s / 4000 IOPS / 3 ms"}},
		{name: "plan machine and the model's disk", args: []string{"--plan", dir, "--samples", "0"},
			stdout: []string{"4 cores"}, stderr: []string{"the disk is the model's"}},
		{name: "what-if table", args: []string{"--plan", dir, "--cores", "2,8", "--iops", "1000,16000", "--disk-mbps", "300"},
			stdout: []string{"cores", "window", "16000"}},
		{name: "what-if json", args: []string{"--plan", dir, "--cores", "2,8", "--iops", "1000,16000", "--json"}, jsonRows: 4},
		{name: "compare", args: []string{"--plan", dir, "--hardware", hwFile, "--compare"},
			stdout: []string{"staged", "build indexes on load", "saves"}},
		{name: "no plan", args: []string{}, code: ExitUsage, stderr: []string{"--plan"}},
		{name: "missing plan", args: []string{"--plan", t.TempDir()}, code: ExitUsage, stderr: []string{"no plan here"}},
		{name: "unknown hardware field", args: []string{"--plan", dir, "--hardware", badHW}, code: ExitUsage, stderr: []string{"unknown field", "bad.json"}},
		{name: "bad memory", args: []string{"--plan", dir, "--memory", "lots"}, code: ExitUsage, stderr: []string{"--memory"}},
		{name: "zero cores", args: []string{"--plan", dir, "--cores", "0"}, code: ExitUsage, stderr: []string{"--cores 0"}},
		{name: "compare with a grid", args: []string{"--plan", dir, "--cores", "2,4", "--compare"}, code: ExitUsage, stderr: []string{"--compare"}},
		{name: "a volume class", args: []string{"--plan", dir, "--volume", "gp2", "--volume-gib", "100", "--samples", "0"},
			stdout: []string{"gp2 128 MiB/s / 300 IOPS (burst 3000)"}},
		{name: "volumes as a what-if axis", args: []string{"--plan", dir, "--volume", "gp2,io1,generic", "--iops", "300"},
			stdout: []string{"volume", "300↑3000", "io1", "generic"}},
		{name: "unknown volume", args: []string{"--plan", dir, "--volume", "nvme"}, code: ExitUsage, stderr: []string{"--volume nvme", "local-nvme"}},
		{name: "io1 needs IOPS from somewhere", args: []string{"--plan", dir, "--hardware", hwFile, "--volume", "io1", "--samples", "0"},
			stdout: []string{"io1 238.4 MiB/s / 4000 IOPS"}},
		{name: "burst spent out of range", args: []string{"--plan", dir, "--burst-spent", "2"}, code: ExitUsage, stderr: []string{"--burst-spent"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runOedl(t, append([]string{"estimate"}, tt.args...)...)
			require.Equal(t, tt.code, code, "stderr: %s", stderr)
			for _, s := range tt.stdout {
				assert.Contains(t, stdout, s)
			}
			for _, s := range tt.stderr {
				assert.Contains(t, stderr, s)
			}
			if tt.jsonRows > 0 {
				var rows []map[string]any
				require.NoError(t, json.Unmarshal([]byte(stdout), &rows))
				assert.Len(t, rows, tt.jsonRows)
			}
		})
	}
}

// --html writes a page for a what-if table and for a comparison too, not
// only for a single estimate.
func TestEstimateHTMLForWhatIfAndCompare(t *testing.T) {
	dir := estimatePlanDir(t)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"what-if", []string{"--iops", "1000,16000"}, "16000"},
		{"compare", []string{"--compare"}, "build indexes on load"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := filepath.Join(t.TempDir(), "page.html")
			code, _, stderr := runOedl(t, append([]string{"estimate", "--plan", dir, "--html", page}, tc.args...)...)
			require.Equal(t, 0, code, stderr)
			assert.Contains(t, stderr, "wrote "+page)
			b, err := os.ReadFile(page)
			require.NoError(t, err)
			assert.Contains(t, string(b), "<table>")
			assert.Contains(t, string(b), tc.want)
		})
	}
}

// Without --hardware or --calibration, oedl estimate and oedl run --dry-run
// put the plan on the same disk: the model's.
func TestEstimateAndDryRunShareTheDefaultDisk(t *testing.T) {
	dir := estimatePlanDir(t)
	code, _, stderr := runOedl(t, "estimate", "--plan", dir, "--samples", "0")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "the disk is the model's ("+estimate.DefaultHardware(4, 0).DiskString()+")")
}

func TestEstimateJSONAndHTML(t *testing.T) {
	dir := estimatePlanDir(t)
	html := filepath.Join(t.TempDir(), "est.html")
	code, stdout, stderr := runOedl(t, "estimate", "--plan", dir, "--cores", "4", "--disk-mbps", "200", "--iops", "3000",
		"--samples", "5", "--json", "--html", html)
	require.Equal(t, 0, code, stderr)
	var est struct {
		Window float64 `json:"window_s"`
		Range  struct {
			P50, P90 float64
		} `json:"range"`
		Phases []struct {
			Name     string  `json:"name"`
			Duration float64 `json:"duration_s"`
		} `json:"phases"`
		Tables []struct {
			Table string `json:"table"`
		} `json:"tables"`
		CriticalPath []struct {
			Job string `json:"job"`
		} `json:"critical_path"`
		// -i, the default: what it saves, what a failed load costs.
		NoIntegrity *struct {
			Faster   float64  `json:"faster_s"`
			Failure  float64  `json:"failure_cost_s"`
			Tables   int      `json:"tables"`
			Redump   float64  `json:"redump_s"`
			Redumped []string `json:"redumped_tables"`
		} `json:"no_integrity"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &est), "stdout is only the JSON")
	assert.Positive(t, est.Window)
	require.NotNil(t, est.NoIntegrity, "-i is the default: its price is in --json")
	assert.Positive(t, est.NoIntegrity.Faster)
	assert.Positive(t, est.NoIntegrity.Failure)
	assert.Equal(t, 30, est.NoIntegrity.Tables, "every table loaded again")
	assert.Positive(t, est.NoIntegrity.Redump, "the failed load's table dumped again")
	assert.Len(t, est.NoIntegrity.Redumped, 1)
	assert.Len(t, est.Tables, 30, "every table in --json")
	assert.NotEmpty(t, est.CriticalPath)
	page, err := os.ReadFile(html)
	require.NoError(t, err)
	assert.Contains(t, string(page), "<svg")
	assert.Contains(t, string(page), "Outage window")
	assert.Contains(t, string(page), "loads: without crash protection (-i)")
}
