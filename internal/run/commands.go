package run

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/schedule"
)

// step is one utility call of a job. Most jobs are one call; creating the
// target is three (prostrct create, procopy, load the .df), a repair of a
// served target is three (proshut, truncate area, proserve).
type step struct {
	argv  []string // argv[0] is the program's full path
	stdin string   // answers to prompts
	dir   string   // working directory ("" = the work directory)
	// utility names the call for openedge.CheckSuccess ("dump", "load",
	// "idxbuild", "procopy", ...), which knows its success marker.
	utility string
	save    string // write the output to this file (tabanalys reports)
	// okExit lists non-zero exit codes that are not failures (proutil
	// -C busy reports "in use" by its exit code).
	okExit []int
	// started, when set, gets the utility's process ID as it starts.
	started func(pid int)
	// host runs the call (its name in the hosts file; "" = this machine).
	host string
	// speedOnly marks a call that only makes the job faster (the target's
	// probiw and proapw): its failure is a warning and the job goes on.
	// A Workgroup licence refuses both helpers, and a load served without
	// them is as safe, only slower.
	speedOnly bool
}

func (s step) String() string { return fmt.Sprint(s.argv) }

// Commands returns the argv of every utility call job j makes, in order,
// for `oedl run --dry-run` / `oedl estimate` to print. Loads of dumps that
// have not run yet name the file the dump will write.
func Commands(cfg Config, j *schedule.Job) [][]string {
	cfg.fill()
	var out [][]string
	for _, s := range cfg.steps(j, nil) {
		out = append(out, s.argv)
	}
	return out
}

// steps builds the calls of job j, on its host. files are the .bd files
// of a load when known (nil: predicted from the table name).
func (c *Config) steps(j *schedule.Job, files []string) []step {
	hc := c.at(j.Host)
	ss := hc.jobSteps(j, files)
	for i := range ss {
		ss[i].host = hc.host
	}
	return ss
}

func (c *Config) jobSteps(j *schedule.Job, files []string) []step {
	switch j.Kind {
	case schedule.KindPreflight, schedule.KindVerify:
		return nil // done in Go: see preflight.go, and verify
	case schedule.KindServe:
		return c.serveSteps(j.DB)
	case schedule.KindShutdown:
		return []step{c.shutdownStep(j.DB)}
	case schedule.KindAnalyzeSource:
		return []step{{argv: c.proutil(c.Source, "tabanalys"), save: c.saved(SourceAnalysis)}}
	case schedule.KindAnalyzeTarget:
		if j.ID == PreparedAnalysisJob {
			return []step{{argv: c.proutil(c.Target, "tabanalys"), save: c.saved(PreparedAnalysis)}}
		}
		return []step{{argv: c.proutil(c.Target, "tabanalys"), save: c.saved(TargetAnalysis)}}
	case schedule.KindAnalyzeReplica:
		return []step{{argv: c.proutil(c.Source, "tabanalys"), save: c.saved(replicaAnalysis(j.Host))}}
	case schedule.KindMove, schedule.KindProveReplica:
		return nil // done in Go: move.go, replica.go
	case schedule.KindDumpDF:
		return []step{{argv: c.progres(schedule.DBSource, "prodict/dump_df.p", "ALL,"+c.work(SourceDF))}}
	case schedule.KindDumpSeq:
		return []step{{argv: c.progres(schedule.DBSource, c.ablPath(ablDumpSeq), c.work(SequenceValues))}}
	case schedule.KindLoadSeq:
		// Load, then read the target back, as load-security does: verify
		// compares what the target holds.
		return []step{{argv: c.progres(schedule.DBTarget, c.ablPath(ablLoadSeq), c.work(SequenceValues))},
			{argv: c.progres(schedule.DBTarget, c.ablPath(ablDumpSeq), c.work(TargetSequenceValues))}}
	case schedule.KindDumpSecurity:
		return []step{{argv: c.progres(schedule.DBSource, c.ablPath(ablDumpSecurity), c.work(SecurityDir))}}
	case schedule.KindLoadSecurity:
		// Load, then read the target back: what verify compares with
		// the source's files is what the target holds, not what was sent.
		return []step{{argv: c.progres(schedule.DBTarget, c.ablPath(ablLoadSecurity), c.work(SecurityDir))},
			{argv: c.progres(schedule.DBTarget, c.ablPath(ablDumpSecurity), c.work(TargetSecurityDir))}}
	case schedule.KindCreateTarget:
		return c.createSteps()
	case schedule.KindDump:
		return []step{c.dumpStep(j)}
	case schedule.KindLoad:
		if files == nil {
			files = []string{sectionFile(c.dumpDir(j.Table), j.Table, max(1, j.Section))}
		}
		// build indexes needs an empty table and one file: the load of a
		// table dumped whole, not a threaded dump's sections (KB 20206).
		// The indexes it cannot build stay inactive for idxbuild.
		o := openedge.LoadOptions{NoIntegrity: c.loadsNoIntegrity()}
		if c.BuildIndexes && j.Section == 0 && len(files) == 1 {
			o.BuildIndexes, o.TempDir = true, filepath.Join(c.Work, "sort")
		}
		var ss []step
		for _, f := range files {
			ss = append(ss, step{argv: append([]string{c.bin("proutil")}, openedge.LoadArgs(c.Target, f, o)...), utility: "load"})
		}
		return ss
	case schedule.KindLoadBatch:
		// One call for every table of the batch: the -dumplist names their
		// files (loadbatch.go writes it); the file argument is the first.
		first := ""
		if len(files) > 0 {
			first = files[0]
		} else if len(j.Members) > 0 {
			first = sectionFile(c.dumpDir(j.Members[0].Table), j.Members[0].Table, 1)
		}
		return []step{{argv: append([]string{c.bin("proutil")}, openedge.LoadArgs(c.Target, first, openedge.LoadOptions{Dumplist: c.batchList(j), NoIntegrity: c.loadsNoIntegrity()})...), utility: "load"}}
	case schedule.KindRepair:
		truncate := c.truncateStep(j.Area)
		if c.served(schedule.DBTarget) && j.Exclusive {
			// truncate area needs the database offline (the repair job
			// runs these only when needed: truncateArea).
			return append([]step{c.shutdownStep(schedule.DBTarget), truncate}, c.serveSteps(schedule.DBTarget)...)
		}
		return []step{truncate}
	case schedule.KindIdxbuild:
		return []step{c.idxbuildStep()}
	case schedule.KindPost:
		return c.truncateBISteps()
	}
	return nil
}

func (c *Config) proutil(db, qualifier string, args ...string) []string {
	return append([]string{c.bin("proutil"), db, "-C", qualifier}, args...)
}

// progres runs an ABL procedure in batch mode. A database that is not
// served is opened single-user (-1).
func (c *Config) progres(which, proc, param string) []string {
	argv := []string{c.bin("_progres"), "-b", "-db", c.db(which)}
	if !c.served(which) {
		argv = append(argv, "-1")
	}
	return append(argv, "-p", proc, "-param", param)
}

// truncateStep empties a target area, answering its confirmation prompt.
func (c *Config) truncateStep(area string) step {
	c = c.atDB(schedule.DBTarget)
	return step{argv: c.proutil(c.Target, "truncate", "area", area), stdin: "y\n", host: c.host}
}

// brokerUsers is the users a broker serving jobs concurrent utilities
// needs: one per job, the side jobs beside them (the source's tabanalys,
// .df, sequences, users and grants; the target's sequences and
// security), an oedl status or a DBA's promon, and room for the broker's
// own helpers. Below the default the broker is started as before,
// without -n.
func brokerUsers(jobs int) int { return jobs + 8 }

func (c *Config) shutdownStep(which string) step {
	c = c.atDB(which)
	return step{argv: []string{c.bin("proshut"), c.db(which), "-by"}, host: c.host}
}

func (c *Config) createSteps() []step {
	bs := c.Plan.BlockSize
	if bs <= 0 {
		bs = 8192
	}
	dir := filepath.Dir(c.Target)
	steps := []step{
		{argv: []string{c.bin("prostrct"), "create", c.Target, c.targetST(), "-blocksize", strconv.Itoa(bs)}, dir: dir},
		{argv: []string{c.bin("procopy"), c.emptyDB(), c.Target}, dir: dir, utility: "procopy"},
		{argv: []string{c.bin("_progres"), "-b", "-db", c.Target, "-1", "-p", "prodict/load_df.p", "-param", filepath.Join(c.PlanDir, "target.df")}, dir: dir},
	}
	if c.TuneTarget {
		steps = append(steps, c.truncateBISteps()...) // the loads fill the plan's clusters (loadserve.go)
	}
	return steps
}

func (c *Config) dumpStep(j *schedule.Job) step {
	c = c.at(j.Host)
	dir := c.dumpDir(j.Table)
	args := []string{j.Table, dir}
	if j.Threads > 1 {
		args = append(args, "-thread", "1", "-threadnum", strconv.Itoa(j.Threads),
			"-dumplist", filepath.Join(dir, safeName(j.Table)+".dumplist"))
	}
	return step{argv: c.proutil(c.Source, "dump", args...), utility: "dump", host: c.host}
}

func (c *Config) idxbuildStep() step {
	c = c.atDB(schedule.DBTarget)
	p := c.Plan.Idxbuild.Params()
	p.TempDir, p.Rusage = filepath.Join(c.Work, "sort"), true
	target := openedge.IdxbuildAll()
	if c.BuildIndexes {
		// The loads built the indexes of every table dumped whole; what
		// is left inactive (threaded tables, a load that fell back) is
		// rebuilt here, and nothing else.
		target = openedge.IdxbuildInactive()
	}
	argv := append([]string{c.bin("proutil")}, openedge.IdxbuildArgs(c.Target, target, p)...)
	// idxbuild all does not ask about sort space, but a release that does
	// (or a partial rebuild) gets its "y" answers instead of hanging.
	return step{argv: argv, stdin: "y\ny\ny\n", utility: "idxbuild", host: c.host}
}

// sortedFiles returns the section files in section order.
func sortedFiles(m map[int]string) []string {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = m[k]
	}
	return out
}
