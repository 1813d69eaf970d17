package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/truebound"
)

// The comparison of issue 12: on each profile and each virtual disk, in
// one go, oedl run against the sequential script, the naive parallel kit
// (scripts/bench.d/naive-parallel.sh) and the true lower bound of oedl's
// run. The ways run one after another, never side by side (they would
// share the disk and the cores), in alternating order from one cell to
// the next (A/B alternation: a drift of the machine's load over the run
// does not always favour the same way). Every run is verified: oedl by
// its own verification, the sequential script by `oedl verify` on its two
// tabanalys, the kit by its own count comparison; a run that fails its
// verification is shown as failed, not timed.

type disk struct{ mbps, iops float64 }

type cell struct {
	profile, scale string
	disk           disk
	oedl, seq, kit result
	bound          truebound.Bound
	// prep is oedl's window with the target made before it (oedl
	// prepare, untimed, as the seed prepares it before the outage).
	prep      result
	prepBound truebound.Bound
	tables    int
	bytes     int64
	// est and estPrep are oedl estimate's windows for this cell, from the
	// profile's calibration on oesim (0: none).
	est, estPrep time.Duration
}

type result struct {
	wall     time.Duration
	verified bool
	note     string
}

func (r result) String() string {
	if r.note == "skipped" {
		return "not run"
	}
	if !r.verified {
		return "**failed** (" + r.note + ")"
	}
	return r.wall.Round(10 * time.Millisecond).String()
}

type way struct {
	name string
	run  func(c *cell, runEnv []string, dir string) result
}

func compare(profiles, disks string, startupMS int, skip string, out string, keep bool) error {
	root, base, bin, dlc, cleanup, err := workbench("compare", keep)
	if err != nil {
		return err
	}
	defer cleanup()
	say := func(f string, a ...any) { fmt.Fprintf(os.Stderr, "compare: "+f+"\n", a...) }
	env := []string{"DLC=" + dlc}
	ds, err := parseDisks(disks)
	if err != nil {
		return err
	}
	oedl := filepath.Join(bin, "oedl")
	var cells []*cell
	n := 0
	for _, ps := range strings.Split(profiles, ",") {
		profile, scale, ok := strings.Cut(ps, ":")
		if !ok {
			return fmt.Errorf("-profiles %q: want profile:scale,...", profiles)
		}
		src := filepath.Join(base, "src-"+profile, profile)
		os.MkdirAll(filepath.Dir(src), 0o755)
		say("generating %s at %s", profile, scale)
		if err := sh(base, env, filepath.Join(dlc, "bin", "oesim"), "gen", "--dlc", dlc, "--db", src, "--profile", profile, "--scale", scale, "--seed", "11"); err != nil {
			return err
		}
		planDir := filepath.Join(base, "plan-"+profile)
		if err := sh(base, env, oedl, "plan", "--source", src, "--dlc", dlc, "-o", planDir); err != nil {
			return err
		}
		p, err := plan.ReadJSON(filepath.Join(planDir, "plan.json"))
		if err != nil {
			return err
		}
		cal := filepath.Join(base, "cal-"+profile+".json")
		say("calibrating on %s at %g MiB/s, %g IOPS", profile, ds[0].mbps, ds[0].iops)
		if err := calibrate(base, env, dlc, oedl, src, planDir, cal, ds[0], startupMS); err != nil {
			return err
		}
		// The runs take no --calibration: their job counts are the built-in
		// model's (DefaultJobs on its disk). The estimate is of those runs,
		// so it is given the same counts; with the calibration's own it
		// simulated another schedule (24 dumps and 4 loads at a time where
		// the seed003 runs had 32 and 27).
		jobs, err := runJobs(base, env, oedl, planDir)
		if err != nil {
			return err
		}
		for _, d := range ds {
			c := &cell{profile: profile, scale: scale, disk: d, tables: len(p.Tables), bytes: p.Totals.Bytes}
			cells = append(cells, c)
			if c.est, err = estimate(base, env, oedl, planDir, cal, d, false, jobs); err != nil {
				return err
			}
			if c.estPrep, err = estimate(base, env, oedl, planDir, cal, d, true, jobs); err != nil {
				return err
			}
			// runOedl times oedl run; prepared: after oedl prepare, untimed.
			// The run verifies its counts; its bound comes from its journal.
			runOedl := func(prepared bool) func(*cell, []string, string) result {
				return func(c *cell, e []string, dir string) result {
					work, tgt := filepath.Join(dir, "work"), filepath.Join(dir, "tgt", profile)
					if prepared {
						if err := sh(base, e, oedl, "prepare", "--source", src, "--target", tgt, "--plan", planDir, "--work", work, "--dlc", dlc); err != nil {
							return result{note: "prepare: " + err.Error()}
						}
					}
					r := timed(base, e, oedl, "run", "--source", src, "--target", tgt,
						"--plan", planDir, "--work", work, "--dlc", dlc, "--no-tui")
					if r.verified {
						b, err := trueBound(work, planDir, p, d.mbps, prepared)
						if err != nil {
							return result{note: err.Error()}
						}
						if prepared {
							c.prepBound = b
						} else {
							c.bound = b
						}
					}
					return r
				}
			}
			ways := []way{
				{"oedl", runOedl(false)},
				{"oedl-prepared", runOedl(true)},
				{"sequential", func(c *cell, e []string, dir string) result {
					work := filepath.Join(dir, "work")
					r := timed(base, e, filepath.Join(root, "scripts", "sequential-dumpload.sh"), src, filepath.Join(dir, "tgt", profile), planDir, work)
					if r.verified && sh(base, nil, oedl, "verify", "--before", filepath.Join(work, "source.tba"), "--after", filepath.Join(work, "target.tba")) != nil {
						r.verified, r.note = false, "counts differ"
					}
					return r
				}},
				{"kit", func(c *cell, e []string, dir string) result {
					return timed(base, e, "sh", filepath.Join(root, "scripts", "bench.d", "naive-parallel.sh"), src, filepath.Join(dir, "tgt", profile), planDir, filepath.Join(dir, "work"))
				}},
			}
			if n%2 == 1 { // alternate: every way first in one cell, last in the next
				slices.Reverse(ways)
			}
			n++
			results := map[string]*result{"oedl": &c.oedl, "oedl-prepared": &c.prep, "sequential": &c.seq, "kit": &c.kit}
			for _, w := range ways {
				if slices.Contains(strings.Split(skip, ","), w.name) {
					results[w.name].note = "skipped"
					continue
				}
				dir := filepath.Join(base, fmt.Sprintf("%s-%g-%s", profile, d.mbps, w.name))
				runEnv := append(append([]string{}, env...),
					fmt.Sprintf("OESIM_DISK_MBPS=%g", d.mbps), fmt.Sprintf("OESIM_DISK_IOPS=%g", d.iops),
					fmt.Sprintf("OESIM_STARTUP_MS=%d", startupMS), "OESIM_STATE="+filepath.Join(dir, "state"))
				say("%s %s, %g MiB/s %g IOPS: %s", profile, scale, d.mbps, d.iops, w.name)
				r := w.run(c, runEnv, dir)
				say("  %s", r)
				*results[w.name] = r
				if !keep {
					os.RemoveAll(dir)
				}
			}
		}
	}
	text := compareMarkdown(cells, startupMS, profiles, disks, skip)
	fmt.Print(text)
	return writeSection(out, "compare", text)
}

// timed runs a way and times it; a non-zero exit is a failed run.
func timed(dir string, env []string, name string, args ...string) result {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	t0 := time.Now()
	out, err := cmd.CombinedOutput()
	r := result{wall: time.Since(t0), verified: err == nil}
	if err != nil {
		r.note = fmt.Sprintf("%v: %s", err, strings.ReplaceAll(tail(strings.TrimSpace(string(out)), 200), "\n", " / "))
	}
	return r
}

func parseDisks(s string) ([]disk, error) {
	var ds []disk
	for _, f := range strings.Split(s, ",") {
		m, i, ok := strings.Cut(f, ":")
		mbps, err1 := strconv.ParseFloat(m, 64)
		iops, err2 := strconv.ParseFloat(i, 64)
		if !ok || err1 != nil || err2 != nil || mbps <= 0 || iops <= 0 {
			return nil, fmt.Errorf("-disks %q: want MiBps:IOPS,...", s)
		}
		ds = append(ds, disk{mbps, iops})
	}
	return ds, nil
}

func ratio(a, b result) string {
	if !a.verified || !b.verified || b.wall <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", a.wall.Seconds()/b.wall.Seconds())
}

func compareMarkdown(cells []*cell, startupMS int, profiles, disks, skip string) string {
	var b strings.Builder
	load := "unknown"
	if data, err := os.ReadFile("/proc/loadavg"); err == nil {
		load = strings.Join(strings.Fields(string(data))[:3], " ")
	}
	fmt.Fprintf(&b, "## Comparison: oedl, the sequential script, the naive parallel kit, the true lower bound (issue 12)\n\n")
	fmt.Fprintf(&b, "Measured on %s (%d cores, %s/%s), finished %s, load average at the end %s.\n", hostname(), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, time.Now().UTC().Format("2006-01-02 15:04 UTC"), load)
	skipEnv := ""
	if skip != "" {
		skipEnv = " BENCH_SKIP=" + skip
	}
	fmt.Fprintf(&b, "Command: `nice -n 10 env BENCH_PROFILES=%s BENCH_DISKS=%s BENCH_STARTUP_MS=%d%s scripts/bench compare`.\n", profiles, disks, startupMS, skipEnv)
	fmt.Fprintf(&b, "Start-up cost %d ms per utility call. One run per way and cell, the order alternating from cell to cell; every run verified.\n\n", startupMS)
	fmt.Fprintf(&b, "| profile | tables | disk | oedl | sequential | kit | true bound | oedl / bound | sequential / oedl | kit / oedl | kit / bound | binding part |\n|---|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|---|\n")
	for _, c := range cells {
		bound, toBound, binding := boundCells(c.oedl, c.bound)
		fmt.Fprintf(&b, "| %s %s | %d | %g MiB/s, %g IOPS | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			c.profile, c.scale, c.tables, c.disk.mbps, c.disk.iops, c.oedl, c.seq, c.kit, bound, toBound, ratio(c.seq, c.oedl), ratio(c.kit, c.oedl), reachable(c.kit, c.oedl, c.bound), binding)
	}
	fmt.Fprintf(&b, "\nWith the target prepared before the window (`oedl prepare`, untimed, as seed 003 builds its target before the outage; the kit and the sequential script still build theirs inside their time):\n\n")
	fmt.Fprintf(&b, "| profile | disk | oedl, prepared | true bound, prepared | oedl / bound | kit / oedl | kit / bound | binding part |\n|---|---|--:|--:|--:|--:|--:|---|\n")
	for _, c := range cells {
		bound, toBound, binding := boundCells(c.prep, c.prepBound)
		fmt.Fprintf(&b, "| %s %s | %g MiB/s, %g IOPS | %s | %s | %s | %s | %s | %s |\n",
			c.profile, c.scale, c.disk.mbps, c.disk.iops, c.prep, bound, toBound, ratio(c.kit, c.prep), reachable(c.kit, c.prep, c.prepBound), binding)
	}
	fmt.Fprintf(&b, "\nThe estimate against these runs: `oedl estimate --calibration` (calibrated once per profile by `oedl calibrate` on oesim at the first disk setting, the disk described; `--prepared` for the prepared runs; `--dump-jobs` and `--load-jobs` the runs', which take no calibration), before the runs:\n\n")
	fmt.Fprintf(&b, "| profile | disk | oedl | estimate | wall / estimate | oedl, prepared | estimate, prepared | wall / estimate |\n|---|---|--:|--:|--:|--:|--:|--:|\n")
	for _, c := range cells {
		fmt.Fprintf(&b, "| %s %s | %g MiB/s, %g IOPS | %s | %s | %s | %s | %s | %s |\n", c.profile, c.scale, c.disk.mbps, c.disk.iops,
			c.oedl, c.est.Round(10*time.Millisecond), toEstimate(c.oedl, c.est), c.prep, c.estPrep.Round(10*time.Millisecond), toEstimate(c.prep, c.estPrep))
	}
	fmt.Fprintf(&b, "\nA ratio \"kit / oedl\" under 1 means the kit was faster. \"kit / bound\" is the most any schedule could beat the kit by in that cell (a run at the true bound): where it is under 2, issue 12's \"at least 2x the kit\" is out of reach for every tool, not only for oedl. The true bound's parts, per cell (internal/truebound, from oedl's run):\n\n")
	for _, c := range cells {
		for _, r := range []struct {
			what  string
			res   result
			bound truebound.Bound
		}{{"", c.oedl, c.bound}, {", prepared", c.prep, c.prepBound}} {
			if !r.res.verified {
				continue
			}
			fmt.Fprintf(&b, "- %s %s at %g MiB/s%s:", c.profile, c.scale, c.disk.mbps, r.what)
			for _, p := range r.bound.Parts() {
				fmt.Fprintf(&b, " %s %s (%s);", p.Name, p.Time.Round(10*time.Millisecond), p.Note)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// boundCells are a run's true bound, its ratio to it and the binding part
// ("-" when the run failed).
func boundCells(r result, bound truebound.Bound) (at, toBound, binding string) {
	if !r.verified {
		return "-", "-", "-"
	}
	m := bound.Max()
	return m.Time.Round(10 * time.Millisecond).String(), fmt.Sprintf("%.2f", bound.Ratio(r.wall)), m.Name
}

// reachable is the kit's wall over the true bound of the run the bound was
// built from: the largest "kit / oedl" any schedule of this cell could show,
// since no run is faster than its bound ("-" when either run failed).
func reachable(kit, run result, bound truebound.Bound) string {
	m := bound.Max()
	if !kit.verified || !run.verified || m.Time <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", kit.wall.Seconds()/m.Time.Seconds())
}

// toEstimate is a run's wall time over its estimate ("-" without either).
func toEstimate(r result, est time.Duration) string {
	if !r.verified || est <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", r.wall.Seconds()/est.Seconds())
}

// calibrate runs oedl calibrate on the profile's source on oesim's disk
// d, described to it (so that the estimate on the other disk changes only
// the disk), with the device's request counters read.
func calibrate(base string, env []string, dlc, oedl, src, planDir, out string, d disk, startupMS int) error {
	e := append(append([]string{}, env...), fmt.Sprintf("OESIM_DISK_MBPS=%g", d.mbps), fmt.Sprintf("OESIM_DISK_IOPS=%g", d.iops),
		fmt.Sprintf("OESIM_STARTUP_MS=%d", startupMS), "OESIM_STATE="+filepath.Join(base, "cal-state"))
	// The device's counters appear with its first use: a describe of the
	// source, which only reads, makes them before calibrate opens them.
	if err := sh(base, e, filepath.Join(dlc, "bin", "proutil"), src, "-C", "describe"); err != nil {
		return err
	}
	return sh(base, e, oedl, "calibrate", "--source", src, "--dlc", dlc, "--work", filepath.Join(base, "cal-work"), "--plan", planDir, "-o", out,
		"--volume", "generic", "--disk-mbps", diskMBps(d), "--iops", fmt.Sprintf("%g", d.iops),
		"--diskstats", filepath.Join(base, "cal-state", "diskstats"), "--disk-device", "vdisk")
}

// estimate is oedl estimate's window on disk d with the calibration cal,
// for the run's job counts.
func estimate(base string, env []string, oedl, planDir, cal string, d disk, prepared bool, jobs jobCounts) (time.Duration, error) {
	args := []string{"estimate", "--plan", planDir, "--calibration", cal, "--volume", "generic",
		"--disk-mbps", diskMBps(d), "--iops", fmt.Sprintf("%g", d.iops), "--samples", "0", "--json",
		"--dump-jobs", strconv.Itoa(jobs.Dump), "--load-jobs", strconv.Itoa(jobs.Load)}
	if prepared {
		args = append(args, "--prepared")
	}
	est, err := estimateJSON(base, env, oedl, args)
	return time.Duration(est.Window * float64(time.Second)), err
}

// jobCounts are the concurrent dumps and loads of a run.
type jobCounts struct {
	Dump int `json:"dump_jobs"`
	Load int `json:"load_jobs"`
}

// runJobs are the job counts `oedl run` picks with no --calibration (the
// built-in model, as oedl estimate without one describes it).
func runJobs(base string, env []string, oedl, planDir string) (jobCounts, error) {
	est, err := estimateJSON(base, env, oedl, []string{"estimate", "--plan", planDir, "--samples", "0", "--json"})
	return est.Strategy, err
}

type estimateOut struct {
	Window   float64   `json:"window_s"`
	Strategy jobCounts `json:"strategy"`
}

func estimateJSON(base string, env []string, oedl string, args []string) (estimateOut, error) {
	var est estimateOut
	cmd := exec.Command(oedl, args...)
	cmd.Dir, cmd.Env = base, append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		return est, fmt.Errorf("oedl %s: %v", strings.Join(args, " "), err)
	}
	if err := json.Unmarshal(out, &est); err != nil {
		return est, fmt.Errorf("oedl estimate --json: %v", err)
	}
	return est, nil
}

// diskMBps is oesim's MiB/s as oedl's --disk-mbps, which is in 10^6
// bytes per second as datasheets give it.
func diskMBps(d disk) string { return fmt.Sprintf("%.3f", d.mbps*(1<<20)/1e6) }
