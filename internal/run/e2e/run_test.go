package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/journal"
)

// A full run with equal counts, then status and verify on its output.
func TestFullRun(t *testing.T) {
	e := newEnv(t, "erp")
	pf := filepath.Join(e.fx.planDir, "target.pf")
	production, err := os.ReadFile(pf)
	require.NoError(t, err)
	r := e.oedl(nil, e.runArgs()...)
	require.Equal(t, 0, r.code, r.stderr)

	// The target was served for the loads tuned for loading (loadserve.go):
	// target.pf's parameters, then the BI writer and page writers, which
	// the broker's log shows starting. target.pf is the plan's still.
	serve, err := os.ReadFile(filepath.Join(e.work, "logs", "serve_target.log"))
	require.NoError(t, err)
	for _, want := range []string{"proserve " + e.target + " -B ", "probiw " + e.target, "proapw " + e.target} {
		assert.Contains(t, string(serve), want)
	}
	lg, err := os.ReadFile(e.target + ".lg")
	require.NoError(t, err)
	assert.Contains(t, string(lg), "PROBIW  : (2518) Started.")
	assert.Contains(t, string(lg), "PROAPW  : (2518) Started.")
	now, err := os.ReadFile(pf)
	require.NoError(t, err)
	assert.Equal(t, string(production), string(now), "target.pf changed by the run")
	v := e.verified()
	assert.Contains(t, r.stderr, "verified:")
	assert.Contains(t, r.stderr, v.After.ShortSum())

	st := e.oedl(nil, "status", "--work", e.work)
	require.Equal(t, 0, st.code, st.stderr)
	assert.Contains(t, st.stdout, "finished")

	vr := e.oedl(nil, "verify", "--before", e.work+"/source.tba", "--after", e.work+"/target.tba")
	assert.Equal(t, 0, vr.code, vr.stderr)
	assert.Contains(t, vr.stdout, "MATCH")

	// --resume of the finished run: nothing to do, and the journal, the
	// report and the timings stay as they were.
	kept := []string{journal.FileName, "report.md", "report.html", "rusage.json", "verify.json"}
	before := map[string][]byte{}
	for _, f := range kept {
		before[f], _ = os.ReadFile(filepath.Join(e.work, f))
		require.NotEmpty(t, before[f], f)
	}
	again := e.oedl(nil, e.runArgs("--resume")...)
	require.Equal(t, 0, again.code, again.stderr)
	assert.Contains(t, again.stderr, "nothing to do: the run in "+e.work+" finished verified")
	assert.Contains(t, again.stderr, v.After.ShortSum())
	for _, f := range kept {
		now, _ := os.ReadFile(filepath.Join(e.work, f))
		assert.Equal(t, string(before[f]), string(now), "%s changed by a resume with nothing to do", f)
	}
}

// kill -9 at many points of the run, then --resume: every count equal,
// nothing loaded twice.
func TestKillAndResume(t *testing.T) {
	e := newEnv(t, "sports")
	clean := e.oedl(nil, e.runArgs(crashSafe)...)
	require.Equal(t, 0, clean.code, clean.stderr)
	total := len(e.journal())
	points := crashPoints(total)
	require.GreaterOrEqual(t, len(points), 10)
	if os.Getenv("OEDL_E2E_EXHAUSTIVE") != "" {
		// Every record of the run (a few minutes): the soak before a release.
		points = points[:0]
		for n := 1; n < total; n++ {
			points = append(points, n)
		}
	}
	for _, n := range points {
		t.Run(fmt.Sprintf("after-record-%d", n), func(t *testing.T) {
			e := newEnv(t, "sports")
			r := e.oedl([]string{fmt.Sprintf("OEDL_TEST_CRASH_AT=%d", n)}, e.runArgs(crashSafe)...)
			require.Equal(t, -1, r.code, "oedl should have killed itself after record %d\n%s", n, r.stderr)
			require.Len(t, e.journal(), n, "the journal holds exactly the records written before the kill")
			r = e.oedl(nil, e.runArgs("--resume")...)
			require.Equal(t, 0, r.code, r.stderr)
			e.verified()
		})
	}
}

// crashPoints spreads kill points over a run of total journal records:
// the first records (preflight, brokers, create), the middle (dumps and
// loads interleaved) and the end (idxbuild, verify, post).
func crashPoints(total int) []int {
	seen := map[int]bool{}
	var out []int
	add := func(n int) {
		if n >= 1 && n < total && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, n := range []int{1, 2, 3, 4, 6, 9} {
		add(n)
	}
	for _, f := range []float64{0.15, 0.3, 0.45, 0.6, 0.75, 0.9} {
		add(int(float64(total) * f))
	}
	for _, back := range []int{8, 5, 3, 2} {
		add(total - back)
	}
	return out
}

// Every fault kind oesim can inject ends either repaired and verified, or
// stopped with exit 1 and a report naming the job, the utility's message
// and the log, and then the resume, the fault gone, ends verified. A full
// disk is not retried (each attempt would fill it again): it stops the
// run, naming the file with its (6091).
func TestFaults(t *testing.T) {
	tests := []struct {
		name   string
		faults string
		ok     bool   // repaired / retried and verified
		job    string // the failing job named in the report
	}{
		{"load crashes half way once", "load:PUB.OrderLine:crash-after=500,once", true, ""},
		{"load exits non-zero once", "load:*:exit=3,once", true, ""},
		{"dump exits non-zero once", "dump:*:exit=3,once", true, ""},
		{"dump writes a truncated file once", "dump:*:truncate-after=100,once", true, ""},
		{"dump writes a corrupt file once", "dump:*:corrupt,once", true, ""},
		{"disk full while loading", "load:*:diskfull-after=2000,once", false, "ran out of disk space (errno 28, exit code 1): bkioWrite:Insufficient disk space during write"},
		{"idxbuild hangs once", "idxbuild:hang,once", true, ""},
		{"load hangs once", "load:PUB.Order:hang,once", true, ""},
		{"dump hangs half way once", "dump:PUB.OrderLine:hang-after=100,once", true, ""},
		{"dump crashes half way once", "dump:PUB.OrderLine:crash-after=100,once", true, ""},
		{"load always fails", "load:PUB.Customer:exit=3", false, "load:PUB.Customer"},
		{"idxbuild always exits non-zero", "idxbuild:exit=2", false, "idxbuild"},
		{"slow start-up", "*:delay=20ms", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, "sports")
			args := e.runArgs(crashSafe) // a failed load repairs its area
			if strings.Contains(tt.faults, "hang") {
				args = append(args, "--job-timeout", "3s")
			}
			r := e.oedl([]string{"OESIM_FAULTS=" + tt.faults}, args...)
			if tt.ok {
				require.Equal(t, 0, r.code, r.stderr)
				e.verified()
				if !strings.Contains(tt.faults, "delay") {
					// The fault fired and was handled: a failed attempt
					// is journalled (and, for a load, a repair).
					var failed, repairs int
					for _, rec := range e.journal() {
						if rec.State == journal.Failed {
							failed++
						}
						if rec.State == journal.Repair {
							repairs++
						}
					}
					assert.Positive(t, failed, "no failure journalled: did the fault fire?")
					if strings.HasPrefix(tt.faults, "load:") || strings.Contains(tt.faults, "corrupt") || strings.Contains(tt.faults, "truncate") {
						assert.Positive(t, repairs, "a failed load is repaired")
						assert.Contains(t, r.stderr, "truncated and every table placed in it loaded again")
					} else {
						assert.Contains(t, r.stderr, "retry")
					}
				}
				return
			}
			require.Equal(t, 1, r.code, r.stderr)
			assert.Contains(t, r.stderr, tt.job)
			assert.Contains(t, r.stderr, "log: "+e.work+"/logs/")
			assert.Contains(t, r.stderr, "--resume")
			assert.NotContains(t, r.stderr, "verified:")
			// The journal ends with the run's failure, never a success.
			recs := e.journal()
			last := recs[len(recs)-1]
			assert.Equal(t, journal.RunJob, last.Job)
			assert.Equal(t, journal.Failed, last.State)

			r = e.oedl(nil, e.runArgs("--resume")...)
			require.Equal(t, 0, r.code, r.stderr)
			e.verified()
		})
	}
}

// The same with threaded dumps: the big tables are dumped in .bd sections,
// each loaded as it lands, so a kill can fall between the sections of one
// table. Resume must load every section once (or repair the area).
func TestKillAndResumeThreaded(t *testing.T) {
	threaded := []string{"--threaded-dump-min", "64KB", "--dump-jobs", "3", "--load-jobs", "2", crashSafe}
	e := newEnv(t, "sports")
	clean := e.oedl(nil, e.runArgs(threaded...)...)
	require.Equal(t, 0, clean.code, clean.stderr)
	sections := 0
	for _, r := range e.journal() {
		if r.Kind == "load" && r.Section > 1 && r.State == journal.Done {
			sections++
		}
	}
	require.Positive(t, sections, "no table was dumped in sections: the test would prove nothing")
	total := len(e.journal())
	var points []int
	for _, f := range []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9} {
		points = append(points, int(float64(total)*f))
	}
	if os.Getenv("OEDL_E2E_EXHAUSTIVE") != "" {
		points = points[:0]
		for n := 1; n < total; n++ {
			points = append(points, n)
		}
	}
	for _, n := range points {
		t.Run(fmt.Sprintf("after-record-%d", n), func(t *testing.T) {
			e := newEnv(t, "sports")
			r := e.oedl([]string{fmt.Sprintf("OEDL_TEST_CRASH_AT=%d", n)}, e.runArgs(threaded...)...)
			require.Equal(t, -1, r.code, r.stderr)
			r = e.oedl(nil, e.runArgs("--resume")...)
			require.Equal(t, 0, r.code, r.stderr)
			e.verified()
		})
	}
}

// --build-indexes: the tables dumped whole load with "build indexes", the
// threaded ones in sections without; idxbuild then rebuilds only the
// inactive indexes, and at the end every index of the target is active.
func TestBuildIndexesOnLoad(t *testing.T) {
	e := newEnv(t, "sports")
	r := e.oedl(nil, e.runArgs("--build-indexes", "--threaded-dump-min", "64KB", "--dump-jobs", "3", "--load-jobs", "2")...)
	require.Equal(t, 0, r.code, r.stderr)
	e.verified()

	logs, err := filepath.Glob(filepath.Join(e.work, "logs", "load*"))
	require.NoError(t, err)
	built, sections := 0, 0
	for _, l := range logs {
		data, err := os.ReadFile(l)
		require.NoError(t, err)
		switch {
		case strings.Contains(string(data), "build indexes"):
			built++
		case strings.Contains(filepath.Base(l), ":2"), regexp.MustCompile(`\.bd\d`).Match(data):
			sections++
		}
	}
	t.Logf("%d loads with build indexes, %d section loads", built, sections)
	assert.Positive(t, built, "loads with build indexes")
	assert.Positive(t, sections, "section loads (without): the test would not show idxbuild's part")
	idx, err := filepath.Glob(filepath.Join(e.work, "logs", "idxbuild*"))
	require.NoError(t, err)
	require.NotEmpty(t, idx)
	data, err := os.ReadFile(idx[0])
	require.NoError(t, err)
	assert.Contains(t, string(data), "idxbuild inactiveindexes")

	df := filepath.Join(e.dir, "target.df")
	cmd := exec.Command(filepath.Join(e.fx.dlc, "bin", "_progres"), "-b", "-db", e.target, "-1", "-p", "prodict/dump_df.p", "-param", "ALL,"+df)
	cmd.Env = append(os.Environ(), e.extra...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	text, err := os.ReadFile(df)
	require.NoError(t, err)
	assert.Contains(t, string(text), "ADD INDEX")
	assert.NotContains(t, string(text), "INACTIVE", "every index active after the run")
}
