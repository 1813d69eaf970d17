package hostse2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/hosttest"
	"github.com/oedl/oedl/internal/plan"
)

// TestBenchHosts is scripts/bench.d/hosts (OEDL_BENCH_HOSTS=1): the same
// migration on one host, then on a source, a replica and a target, every
// host with the same virtual disk (its own), all of them reached over ssh
// from this machine; each window against its estimate (calibrated here
// on the same disk), written to docs/benchmarks/hosts.md.
func TestBenchHosts(t *testing.T) {
	if os.Getenv("OEDL_BENCH_HOSTS") == "" {
		t.Skip("a benchmark: OEDL_BENCH_HOSTS=1 (scripts/bench hosts)")
	}
	hosttest.Require(t)
	// A few large tables on a slow disk: the window is the disks' (as
	// on a real night, where a table is gigabytes), not the calls'
	// (hundreds of small tables on this shared machine's two cores).
	profile := envOr("BENCH_HOSTS_PROFILE", "sports")
	scale := envOr("BENCH_HOSTS_SCALE", "40MB")
	mbps := envOr("BENCH_HOSTS_MBPS", "2")
	iops := envOr("BENCH_HOSTS_IOPS", "2000")
	startup := envOr("BENCH_HOSTS_STARTUP_MS", "50")
	disk := []string{"OESIM_DISK_MBPS=" + mbps, "OESIM_DISK_IOPS=" + iops, "OESIM_STARTUP_MS=" + startup}

	binOnce.Do(func() { binErr = buildBinaries() })
	require.NoError(t, binErr)
	if testing.Short() {
		t.Skip("-short")
	}
	dir := t.TempDir()
	dlc := filepath.Join(dir, "dlc")
	sh(t, nil, filepath.Join(binDir, "oesim"), "install", dlc)
	env := []string{"DLC=" + dlc}
	src := filepath.Join(dir, "src", profile)
	require.NoError(t, os.MkdirAll(filepath.Dir(src), 0o755))
	sh(t, env, filepath.Join(dlc, "bin", "oesim"), "gen", "--dlc", dlc, "--db", src, "--profile", profile, "--scale", scale, "--seed", "11")
	planDir := filepath.Join(dir, "plan")
	sh(t, env, filepath.Join(binDir, "oedl"), "plan", "--source", src, "--dlc", dlc, "-o", planDir)
	p, err := plan.ReadJSON(filepath.Join(planDir, "plan.json"))
	require.NoError(t, err)
	// The model, calibrated on this machine's CPU with the same disk.
	cal := filepath.Join(dir, "cal.json")
	sh(t, append(append(env, disk...), "OESIM_STATE="+filepath.Join(dir, "cal-state")), filepath.Join(binDir, "oedl"),
		"calibrate", "--source", src, "--dlc", dlc, "--work", filepath.Join(dir, "cal"), "--plan", planDir, "-o", cal)

	type outcome struct {
		name             string
		estimate, actual time.Duration
		dumps            map[string]int
		callMs           float64
	}
	var results []outcome
	for _, c := range []struct {
		name  string
		hosts []string // machines: the source's, the replica's ("" none), the target's
	}{
		{"one host (source and target on one machine)", []string{"one", "", "one"}},
		{"source + replica + target", []string{"src", "dr", "tgt"}},
	} {
		var specs []hosttest.Spec
		seen := map[string]bool{}
		for _, h := range c.hosts {
			if h != "" && !seen[h] {
				seen[h] = true
				specs = append(specs, hosttest.Spec{Name: h, Env: disk})
			}
		}
		l := hosttest.New(t, specs...)
		db := filepath.Join(l.Root, "db")
		var files []string
		entries, err := os.ReadDir(filepath.Dir(src))
		require.NoError(t, err)
		for _, x := range entries {
			if !strings.HasSuffix(x.Name(), ".lk") {
				files = append(files, filepath.Join(filepath.Dir(src), x.Name()))
			}
		}
		for _, h := range c.hosts[:2] {
			if h != "" {
				l.Put(h, db, files...)
			}
		}
		callMs := measureCall(t, l.SSH(c.hosts[0]))
		// The hosts share this machine's cores: each gets its part of them
		// in the estimate (the disks are each host's own).
		cores := max(1, runtime.NumCPU()/len(specs))
		var b strings.Builder
		fmt.Fprintf(&b, "ssh:\n  config: %s\nhosts:\n", l.SSHConfig)
		for i, role := range []string{"source", "replica", "target"} {
			h := c.hosts[i]
			if h == "" {
				continue
			}
			dbPath := filepath.Join(db, profile)
			if role == "target" {
				dbPath = filepath.Join(l.Root, "new", profile)
			}
			fmt.Fprintf(&b, "  %s:\n    role: %s\n    ssh: %s\n    db: %s\n    dlc: %s\n    work: %s\n    cores: %d\n    disk-mbps: %s\n    iops: %s\n    call-ms: %.1f\n",
				role, role, h, dbPath, dlc, filepath.Join(l.Root, "work"), cores, mbpsToMB(mbps), iops, callMs)
		}
		hf := filepath.Join(dir, "hosts-"+specs[0].Name+".yaml")
		require.NoError(t, os.WriteFile(hf, []byte(b.String()), 0o644))

		var est struct {
			Window float64 `json:"window_s"`
		}
		out := shOut(t, env, filepath.Join(binDir, "oedl"), "estimate", "--hosts", hf, "--plan", planDir, "--calibration", cal, "--samples", "0", "--json")
		require.NoError(t, json.Unmarshal([]byte(out), &est), out)
		work := filepath.Join(dir, "work-"+specs[0].Name)
		start := time.Now()
		sh(t, env, filepath.Join(binDir, "oedl"), "run", "--hosts", hf, "--plan", planDir, "--work", work, "--no-tui")
		actual := time.Since(start)
		if keep := os.Getenv("BENCH_HOSTS_KEEP"); keep != "" {
			_ = exec.Command("cp", "-r", work, filepath.Join(keep, filepath.Base(work))).Run()
			_ = os.WriteFile(filepath.Join(keep, filepath.Base(work)+".estimate.json"), []byte(out), 0o644)
		}
		dumps := map[string]int{}
		data, err := os.ReadFile(filepath.Join(work, "journal.jsonl"))
		require.NoError(t, err)
		for _, line := range strings.Split(string(data), "\n") {
			if strings.Contains(line, `"kind":"dump"`) && strings.Contains(line, `"state":"done"`) {
				var r struct{ Host string }
				_ = json.Unmarshal([]byte(line), &r)
				dumps[r.Host]++
			}
		}
		results = append(results, outcome{name: c.name, estimate: time.Duration(est.Window * float64(time.Second)), actual: actual, dumps: dumps, callMs: callMs})
		t.Logf("%s: estimate %s, actual %s, dumps %v", c.name, results[len(results)-1].estimate, actual, dumps)
	}

	var md strings.Builder
	fmt.Fprintf(&md, "# Benchmark: one host against source + replica + target\n\n")
	fmt.Fprintf(&md, "Measured by `scripts/bench hosts` on %s (%d cores), %s, load average %s.\n\n", hostnameOr(), runtime.NumCPU(),
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), loadavg())
	fmt.Fprintf(&md, "Database: oesim %s profile at %s (%d tables, %.1f MiB of records). Every host is a network namespace of this machine with its own sshd and its own oesim virtual disk of %s MiB/s and %s IOPS (start-up %s ms per utility call); oedl runs outside all of them and reaches each over ssh. The estimate is `oedl estimate --hosts` with a calibration made here on the same disk (`oedl calibrate`), and each host's call cost (a session and a login shell: measured, `call-ms`).\n\n",
		profile, scale, len(p.Tables), float64(p.Totals.Bytes)/(1<<20), mbps, iops, startup)
	fmt.Fprintf(&md, "| case | dumps per host | call ms | estimate | actual | error |\n|---|---|--:|--:|--:|--:|\n")
	for _, r := range results {
		fmt.Fprintf(&md, "| %s | %s | %.0f | %s | %s | %+.0f%% |\n", r.name, perHost(r.dumps), r.callMs, r.estimate.Round(100*time.Millisecond),
			r.actual.Round(100*time.Millisecond), 100*(r.estimate.Seconds()-r.actual.Seconds())/r.actual.Seconds())
	}
	one, three := results[0], results[1]
	fmt.Fprintf(&md, "\nThe window with a replica and a target of their own: %s against %s on one host (%.2fx shorter, estimated %.2fx).\n",
		three.actual.Round(100*time.Millisecond), one.actual.Round(100*time.Millisecond), one.actual.Seconds()/three.actual.Seconds(),
		one.estimate.Seconds()/three.estimate.Seconds())
	outFile := envOr("BENCH_HOSTS_OUT", "")
	if outFile != "" {
		require.NoError(t, os.WriteFile(outFile, []byte(md.String()), 0o644))
	}
	t.Log("\n" + md.String())
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// mbpsToMB turns oesim's MiB/s into the hosts file's MB/s.
func mbpsToMB(mib string) string {
	var v float64
	fmt.Sscan(mib, &v)
	return fmt.Sprintf("%.3f", v*1.048576)
}

func measureCall(t *testing.T, s *execx.SSH) float64 {
	const n = 20
	start := time.Now()
	for range n {
		_, err := s.Run(context.Background(), execx.Cmd{Path: "true"})
		require.NoError(t, err)
	}
	return float64(time.Since(start).Milliseconds()) / n
}

func sh(t *testing.T, env []string, prog string, args ...string) {
	t.Helper()
	shOut(t, env, prog, args...)
}

func shOut(t *testing.T, env []string, prog string, args ...string) string {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "%s %v\n%s\n%s", prog, args, out, stderr.String())
	return string(out)
}

func hostnameOr() string {
	h, err := os.Hostname()
	if err != nil {
		return "this machine"
	}
	return h
}

func loadavg() string {
	data, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// perHost is "replica 13, source 12": the dumps each host ran, by name.
func perHost(n map[string]int) string {
	hosts := make([]string, 0, len(n))
	for h := range n {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	parts := make([]string, len(hosts))
	for i, h := range hosts {
		parts[i] = fmt.Sprintf("%s %d", h, n[h])
	}
	return strings.Join(parts, ", ")
}
