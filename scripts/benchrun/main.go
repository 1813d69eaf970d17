// Command benchrun is the run benchmark behind scripts/bench: on oesim's
// erp profile with its virtual disk (OESIM_DISK_MBPS / OESIM_DISK_IOPS) and
// utility start-up cost (OESIM_STARTUP_MS) switched on, it runs the same
// migration three ways in one go and writes the figures as Markdown:
//
//  1. oedl run (parallel, overlapped, with its journal and verification);
//  2. scripts/sequential-dumpload.sh, the DBA's classic script: dump all,
//     load all, idxbuild, one utility at a time;
//  3. the lower bound no schedule can beat, computed from oedl's own run:
//     the longest dependency chain of its measured job times, the bytes
//     moved through the disk at the disk's bandwidth, and the utilities'
//     CPU time spread over the cores.
//
// It also reports oedl's own CPU time (getrusage RUSAGE_SELF of the oedl
// process, written by the run to WORK/rusage.json) against the run's
// wall time.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/run"
	"github.com/oedl/oedl/internal/schedule"
)

func main() {
	scale := flag.String("scale", "3MB", "size of the generated erp database")
	mbps := flag.Float64("mbps", 40, "virtual disk bandwidth, MiB/s")
	iops := flag.Float64("iops", 20000, "virtual disk operations per second")
	startup := flag.Int("startup-ms", 300, "start-up cost of each utility call, ms (performance-model.md: 0.2-1 s per proutil start)")
	out := flag.String("out", "docs/benchmarks/run.md", "Markdown file to write")
	keep := flag.Bool("keep", false, "keep the work directory")
	cmp := flag.Bool("compare", false, "the comparison of issue 12: oedl, the sequential script, the naive kit and the true lower bound, on -profiles at -disks")
	profiles := flag.String("profiles", "seed003:8MB,erp:3MB", "with -compare: profile:scale,...")
	disks := flag.String("disks", "40:20000,10:1000", "with -compare: MiBps:IOPS,... of the virtual disk")
	skip := flag.String("skip", "", "with -compare: the ways not to run, e.g. sequential (it takes longest)")
	flag.Parse()
	if *cmp {
		if err := compare(*profiles, *disks, *startup, *skip, *out, *keep); err != nil {
			fmt.Fprintln(os.Stderr, "benchrun:", err)
			os.Exit(1)
		}
		return
	}
	if err := bench(*scale, *mbps, *iops, *startup, *out, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "benchrun:", err)
		os.Exit(1)
	}
}

func bench(scale string, mbps, iops float64, startupMS int, out string, keep bool) error {
	root, base, bin, dlc, cleanup, err := workbench("bench", keep)
	if err != nil {
		return err
	}
	defer cleanup()
	say := func(f string, a ...any) { fmt.Fprintf(os.Stderr, "bench: "+f+"\n", a...) }
	src := filepath.Join(base, "src", "erp")
	os.MkdirAll(filepath.Dir(src), 0o755)
	env := []string{"DLC=" + dlc}
	say("generating erp at %s", scale)
	if err := sh(base, env, filepath.Join(dlc, "bin", "oesim"), "gen", "--dlc", dlc, "--db", src, "--profile", "erp", "--scale", scale, "--seed", "11"); err != nil {
		return err
	}
	planDir := filepath.Join(base, "plan")
	if err := sh(base, env, filepath.Join(bin, "oedl"), "plan", "--source", src, "--dlc", dlc, "-o", planDir); err != nil {
		return err
	}
	p, err := plan.ReadJSON(filepath.Join(planDir, "plan.json"))
	if err != nil {
		return err
	}
	disk := []string{
		fmt.Sprintf("OESIM_DISK_MBPS=%g", mbps), fmt.Sprintf("OESIM_DISK_IOPS=%g", iops),
		fmt.Sprintf("OESIM_STARTUP_MS=%d", startupMS),
	}

	// 1. oedl run
	work := filepath.Join(base, "work-oedl")
	runEnv := append(append([]string{}, env...), disk...)
	runEnv = append(runEnv, "OESIM_STATE="+filepath.Join(base, "state-oedl"))
	say("oedl run")
	t0 := time.Now()
	if err := sh(base, runEnv, filepath.Join(bin, "oedl"), "run", "--source", src, "--target", filepath.Join(base, "tgt-oedl", "erp"),
		"--plan", planDir, "--work", work, "--dlc", dlc, "--no-tui"); err != nil {
		return err
	}
	oedlWall := time.Since(t0)

	// 2. the sequential script
	seqWork := filepath.Join(base, "work-seq")
	seqEnv := append(append([]string{}, env...), disk...)
	seqEnv = append(seqEnv, "OESIM_STATE="+filepath.Join(base, "state-seq"))
	say("sequential script")
	t0 = time.Now()
	if err := sh(base, seqEnv, filepath.Join(root, "scripts", "sequential-dumpload.sh"), src, filepath.Join(base, "tgt-seq", "erp"), planDir, seqWork); err != nil {
		return err
	}
	seqWall := time.Since(t0)
	// The script checks nothing beyond the markers; compare its counts.
	seqOK := sh(base, nil, filepath.Join(bin, "oedl"), "verify", "--before", filepath.Join(seqWork, "source.tba"), "--after", filepath.Join(seqWork, "target.tba")) == nil

	// 3. the lower bound
	lb, err := lowerBound(work, p, mbps)
	if err != nil {
		return err
	}
	tb, err := trueBound(work, planDir, p, mbps, false)
	if err != nil {
		return err
	}
	var ru run.Rusage
	if data, err := os.ReadFile(filepath.Join(work, run.RusageFile)); err == nil {
		_ = json.Unmarshal(data, &ru)
	}

	speedup := seqWall.Seconds() / oedlWall.Seconds()
	toLB := oedlWall.Seconds() / lb.bound().Seconds()
	selfCPU := ru.SelfUser + ru.SelfSys
	share := selfCPU.Seconds() / oedlWall.Seconds()
	check := func(ok bool) string {
		if ok {
			return "met"
		}
		return "**missed**"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Benchmark: oedl run\n\n")
	fmt.Fprintf(&b, "Measured by `scripts/bench run` on %s (%d cores, %s/%s), %s.\n\n", hostname(), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(&b, "Database: oesim erp profile at %s (%d tables, %d records, %.1f MiB of records). ", scale, len(p.Tables), p.Totals.Records, float64(p.Totals.Bytes)/(1<<20))
	fmt.Fprintf(&b, "oesim virtual disk: %g MiB/s, %g IOPS, shared by every utility; start-up cost %d ms per utility call.\n\n", mbps, iops, startupMS)
	fmt.Fprintf(&b, "| way | wall time | vs oedl |\n|---|---:|---:|\n")
	fmt.Fprintf(&b, "| oedl run (defaults: %d dump / %d load jobs, one load per area; verified) | %s | 1.00 |\n", max(2, 2*runtime.NumCPU()), max(2, runtime.NumCPU()), oedlWall.Round(10*time.Millisecond))
	fmt.Fprintf(&b, "| sequential script (scripts/sequential-dumpload.sh; counts equal: %v) | %s | %.2f |\n", seqOK, seqWall.Round(10*time.Millisecond), speedup)
	fmt.Fprintf(&b, "| true lower bound, any schedule (max of the four below) | %s | %.2f |\n", tb.Max().Time.Round(10*time.Millisecond), tb.Max().Time.Seconds()/oedlWall.Seconds())
	fmt.Fprintf(&b, "| lower bound assuming oedl's slots (max of the four after) | %s | %.2f |\n\n", lb.bound().Round(10*time.Millisecond), lb.bound().Seconds()/oedlWall.Seconds())
	fmt.Fprintf(&b, "oedl is at **%.2fx the true lower bound** (package internal/truebound, from the costs this run measured):\n\n", tb.Ratio(oedlWall))
	for _, part := range tb.Parts() {
		fmt.Fprintf(&b, "- %s: %s (%s)\n", part.Name, part.Time.Round(10*time.Millisecond), part.Note)
	}
	fmt.Fprintf(&b, "\nLower bound assuming oedl's slots, parts, from oedl's own run:\n\n")
	fmt.Fprintf(&b, "- critical path of the job graph with each job's measured duration: %s (%s)\n", lb.critical.Round(10*time.Millisecond), lb.path)
	fmt.Fprintf(&b, "- disk: %.1f MiB moved at %g MiB/s = %s (dumps read the source and write .bd files, loads read them and write the target, idxbuild and the two tabanalys read the data again; IOPS not counted, so this part is low)\n", float64(lb.diskBytes)/(1<<20), mbps, lb.disk.Round(10*time.Millisecond))
	fmt.Fprintf(&b, "- CPU: the utilities' CPU time %s over %d cores = %s\n", lb.childCPU.Round(10*time.Millisecond), runtime.NumCPU(), lb.cpu.Round(10*time.Millisecond))
	fmt.Fprintf(&b, "- work: the busiest slot class, its jobs' measured times packed perfectly into its slots = %s (%s)\n\n", lb.work.Round(10*time.Millisecond), lb.workNote)
	fmt.Fprintf(&b, "The first three hold for any schedule; the fourth holds for oedl's concurrency (its slots), measured with the job times of this run, so it tells how well the queue packs the work rather than what more slots could do.\n\n")
	fmt.Fprintf(&b, "| target | figure | |\n|---|---:|---|\n")
	fmt.Fprintf(&b, "| oedl at least 1.5x faster than the sequential script | %.2fx | %s |\n", speedup, check(speedup >= 1.5))
	fmt.Fprintf(&b, "| oedl within 1.2x of the lower bound assuming its slots | %.2fx | %s |\n", toLB, check(toLB <= 1.2))
	fmt.Fprintf(&b, "| oedl within 1.5x of the true lower bound (issue 12) | %.2fx | %s |\n", tb.Ratio(oedlWall), check(tb.Ratio(oedlWall) <= 1.5))
	fmt.Fprintf(&b, "| oedl's own CPU under 5%% of the run | %.2f%% (%s of %s) | %s |\n\n", 100*share, selfCPU.Round(time.Millisecond), oedlWall.Round(10*time.Millisecond), check(share < 0.05))
	fmt.Fprintf(&b, "Reproduce: `scripts/bench run` (BENCH_SCALE, BENCH_MBPS, BENCH_IOPS, BENCH_STARTUP_MS change the set-up).\n")
	if err := writeSection(out, "run", b.String()); err != nil {
		return err
	}
	fmt.Print(b.String())
	return nil
}

type bound struct {
	critical  time.Duration
	path      string
	diskBytes int64
	disk      time.Duration
	childCPU  time.Duration
	cpu       time.Duration
	// work: the busiest slot class's summed job times over its slots.
	work     time.Duration
	workNote string
}

func (b bound) bound() time.Duration { return max(b.critical, b.disk, b.cpu, b.work) }

// lowerBound reads the run's journal and work directory.
func lowerBound(work string, p *plan.Plan, mbps float64) (bound, error) {
	var lb bound
	recs, err := journal.Read(filepath.Join(work, journal.FileName))
	if err != nil {
		return lb, err
	}
	dur := map[string]time.Duration{}
	var settings map[string]int64
	sum := map[string]time.Duration{}
	for _, r := range recs {
		if r.Job == journal.RunJob && r.State == journal.Started && settings == nil {
			settings = r.Settings
		}
		if r.State == journal.Done && r.Job != journal.RunJob {
			dur[r.Job] = r.Elapsed
			sum[r.Kind] += r.Elapsed
		}
	}
	// Every dump and load ends before the target is shut down for
	// idxbuild, and what follows is a chain; no load starts before the
	// target exists and is served, no dump before the source is served.
	chain := func(ids ...string) time.Duration {
		var d time.Duration
		for _, id := range ids {
			d += dur[id]
		}
		return d
	}
	tail := chain("shutdown:target", "idxbuild", "analyze-target", "verify", "post")
	for _, k := range []struct {
		kind  string
		slots int64
		head  time.Duration
	}{
		{"dump", settings["dump_jobs"], chain("serve:source")},
		{"load", settings["load_jobs"], chain("create-target", "serve:target")},
	} {
		if k.slots <= 0 {
			continue
		}
		if w := k.head + sum[k.kind]/time.Duration(k.slots) + tail; w > lb.work {
			lb.work = w
			lb.workNote = fmt.Sprintf("%ss: %s before the first can start, %s of job time over %d slots, then %s of shutdown, idxbuild, tabanalys, verify and post",
				k.kind, k.head.Round(10*time.Millisecond), sum[k.kind].Round(10*time.Millisecond), k.slots, tail.Round(10*time.Millisecond))
		}
	}
	o := schedule.BuildOptions{ServeSource: settings["dump_jobs"] > 1, ServeTarget: settings["load_jobs"] > 1,
		ThreadedDumpMin: settings["threaded_dump_min"], DumpThreads: int(settings["dump_threads"]),
		Cost: func(j *schedule.Job) time.Duration { return dur[j.ID] }}
	built, err := schedule.Build(p, o)
	if err != nil {
		return lb, err
	}
	var names []string
	for _, j := range built.CriticalPath() {
		lb.critical += j.Cost
		if j.Cost > 100*time.Millisecond {
			names = append(names, fmt.Sprintf("%s %s", j.ID, j.Cost.Round(10*time.Millisecond)))
		}
	}
	lb.path = strings.Join(names, ", ")
	var bd int64
	filepath.Walk(filepath.Join(work, "dump"), func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			bd += info.Size()
		}
		return nil
	})
	// dump: read + write; load: read + write; idxbuild: read; tabanalys x2: read.
	lb.diskBytes = 7 * bd
	if mbps > 0 {
		lb.disk = time.Duration(float64(lb.diskBytes) / (mbps * (1 << 20)) * float64(time.Second))
	}
	var ru run.Rusage
	if data, err := os.ReadFile(filepath.Join(work, run.RusageFile)); err == nil {
		_ = json.Unmarshal(data, &ru)
	}
	lb.childCPU = ru.ChildrenUser + ru.ChildrenSys
	lb.cpu = lb.childCPU / time.Duration(runtime.NumCPU())
	return lb, nil
}

func sh(dir string, env []string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, tail(string(out), 3000))
	}
	return nil
}

// workbench makes the benchmark's directory (kept with keep), builds
// oedl and oesim into it and installs oesim's DLC there. cleanup removes
// it unless kept.
func workbench(name string, keep bool) (root, base, bin, dlc string, cleanup func(), err error) {
	cleanup = func() {}
	if root, err = os.Getwd(); err != nil {
		return
	}
	if base, err = os.MkdirTemp("", "oedl-"+name+"-"); err != nil {
		return
	}
	if !keep {
		cleanup = func() { os.RemoveAll(base) }
	}
	bin = filepath.Join(base, "bin")
	for _, p := range []string{"oedl", "oesim"} {
		if err = sh(root, nil, "go", "build", "-o", filepath.Join(bin, p), "./cmd/"+p); err != nil {
			cleanup()
			return
		}
	}
	dlc = filepath.Join(base, "dlc")
	if err = sh(base, nil, filepath.Join(bin, "oesim"), "install", dlc); err != nil {
		cleanup()
	}
	return
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

func hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return "this machine"
	}
	return h
}
