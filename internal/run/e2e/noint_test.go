package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/run"
	"github.com/oedl/oedl/internal/sim/store"
)

// noIntLayouts: a target served for the loads (its broker started with
// -i: oedl run's default, no flag) and one each load opens single-user
// (-i on the load, the flag given).
var noIntLayouts = []struct {
	name string
	args []string
}{
	{"served", nil},
	{"single-user", []string{"--no-integrity", "--load-jobs", "1"}},
}

// logsWith lists the logs of the run whose text holds s.
func logsWith(t *testing.T, e *env, s string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(e.work, "logs", "*.log"))
	require.NoError(t, err)
	var out []string
	for _, p := range paths {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		if strings.Contains(string(data), s) {
			out = append(out, filepath.Base(p))
		}
	}
	return out
}

// runSettings are the settings the run journalled for its resume.
func runSettings(t *testing.T, e *env) map[string]int64 {
	t.Helper()
	for _, r := range e.journal() {
		if r.Job == journal.RunJob && r.Settings != nil {
			return r.Settings
		}
	}
	t.Fatal("no run record with settings")
	return nil
}

// rebuilds counts the journal's rebuild decisions and the target's
// creations.
func rebuilds(t *testing.T, recs []journal.Record) (decided, created int) {
	for _, r := range recs {
		if r.Kind == run.KindRebuild && r.State == journal.Repair {
			decided++
			assert.Contains(t, r.Message, "target rebuilt: no-integrity crash")
		}
		if r.Job == "create-target" && r.State == journal.Done {
			created++
		}
	}
	return decided, created
}

// A run loads with -i by default, the broker's or each load's, says
// first what a failed load would cost, journals the setting its resume
// takes, and ends verified; nothing was rebuilt. --no-integrity=false
// loads crash-safe.
func TestNoIntegrityRun(t *testing.T) {
	t.Run("crash-safe", func(t *testing.T) {
		e := newEnv(t, "sports")
		r := e.oedl(nil, e.runArgs(crashSafe)...)
		require.Equal(t, 0, r.code, r.stderr)
		e.verified()
		assert.Empty(t, logsWith(t, e, "(512)"), "a utility ran with -i")
		assert.NotContains(t, r.stderr, "loads without crash protection")
		assert.Equal(t, int64(0), runSettings(t, e)["no_integrity"])
	})
	for _, l := range noIntLayouts {
		t.Run(l.name, func(t *testing.T) {
			e := newEnv(t, "sports")
			r := e.oedl(nil, e.runArgs(l.args...)...)
			require.Equal(t, 0, r.code, r.stderr)
			e.verified()
			assert.NotEmpty(t, logsWith(t, e, "(512)"), "no utility ran with -i")
			assert.Equal(t, int64(1), runSettings(t, e)["no_integrity"], "the resume's setting")
			assert.Contains(t, r.stderr, "warning: loads without crash protection (-i): a load that fails makes the run create the target again")
			if l.name == "single-user" {
				for _, f := range logsWith(t, e, "(6256)") {
					assert.Contains(t, logsWith(t, e, "(512)"), f, "a load without -i")
				}
			}
			decided, created := rebuilds(t, e.journal())
			assert.Zero(t, decided)
			assert.Equal(t, 1, created)
		})
	}
}

// kill -9 of oedl while a load runs into the no-integrity target, then
// --resume: the target is created again (never an area truncated, which
// the real database would refuse, (509)), every table loaded once into
// it, and verified.
func TestNoIntegrityKillDuringLoad(t *testing.T) {
	for _, l := range noIntLayouts {
		t.Run(l.name, func(t *testing.T) {
			// kill -9 of oedl alone once a load's utility of this run is
			// at work (its running record and its .bd open; a slow disk
			// for this table keeps it there): a record number taken from
			// another run would not land on a load, the jobs' order
			// differs from run to run.
			e := newEnv(t, "sports")
			largest := largestTable(t, e)
			slow := startSlowRun(t, e, largest, l.args...)
			slow.waitLoadRunning(largest)
			require.NoError(t, slow.cmd.Process.Kill(), "kill -9 of oedl alone")
			<-slow.exited
			r := e.oedl(nil, e.runArgs("--resume")...)
			require.Equal(t, 0, r.code, r.stderr)
			assert.Contains(t, r.stderr, "repaired: "+run.KindRebuild+": target rebuilt: no-integrity crash")
			e.verified()
			recs := e.journal()
			decided, created := rebuilds(t, recs)
			assert.Equal(t, 1, decided)
			assert.Equal(t, 2, created, "the target is created again")
			for _, rec := range recs {
				assert.NotEqual(t, "repair", rec.Kind, "an area of a no-integrity target was truncated: %s", rec.Job)
			}
			assert.Equal(t, tabanalysCounts(t, e, e.source), tabanalysCounts(t, e, e.target))
		})
	}
}

// A load that dies half way (oesim's crash-after) in a --no-integrity
// run: the run resumes in place, rebuilds the target and ends verified.
func TestNoIntegrityLoadFault(t *testing.T) {
	layouts := append(noIntLayouts[:len(noIntLayouts):len(noIntLayouts)], struct {
		name string
		args []string
	}{"threaded: a section's load", []string{"--no-integrity", "--threaded-dump-min", "64KB", "--dump-jobs", "3", "--load-jobs", "2"}})
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			e := newEnv(t, "sports")
			r := e.oedl([]string{"OESIM_FAULTS=load:PUB.OrderLine:crash-after=500,once"}, e.runArgs(append(l.args, "--json")...)...)
			require.Equal(t, 0, r.code, r.stderr)
			e.verified()
			told := 0
			for _, v := range checkEvents(t, eventSchema(t), r.stdout) {
				if v.Kind == "warning" && v.JobKind == run.KindRebuild {
					told++
					assert.Contains(t, v.Message, "target rebuilt: no-integrity crash")
				}
			}
			assert.Equal(t, 1, told, "the rebuild is told once in the JSON stream")
			st := e.oedl(nil, "status", "--work", e.work)
			assert.Equal(t, 0, st.code, st.stdout)
			assert.Contains(t, st.stdout, "verify: MATCH")
			recs := e.journal()
			decided, created := rebuilds(t, recs)
			assert.Equal(t, 1, decided)
			assert.Equal(t, 2, created)
			for _, rec := range recs {
				assert.NotEqual(t, "repair", rec.Kind, "an area of a no-integrity target was truncated: %s", rec.Job)
			}
			assert.Equal(t, tabanalysCounts(t, e, e.source), tabanalysCounts(t, e, e.target))
		})
	}
}

// A target `oedl prepare` made before the window, loaded --no-integrity,
// whose load dies: the run creates it again from the plan (the prepared
// one is gone with the crash) and ends verified.
func TestNoIntegrityPreparedTargetRebuilt(t *testing.T) {
	e := newEnv(t, "sports")
	p := e.oedl(nil, e.prepareArgs()...)
	require.Equal(t, 0, p.code, p.stderr)
	r := e.oedl([]string{"OESIM_FAULTS=load:PUB.OrderLine:crash-after=500,once"}, e.runArgs("--no-integrity", "--load-jobs", "1")...)
	require.Equal(t, 0, r.code, r.stderr)
	e.verified()
	decided, created := rebuilds(t, e.journal())
	assert.Equal(t, 1, decided)
	assert.Equal(t, 1, created, "the run's only creation: the first target was the preparation's")
	assert.Equal(t, tabanalysCounts(t, e, e.source), tabanalysCounts(t, e, e.target))
}

// The broker serving the target with -i is killed while a load runs: the
// target is beyond crash recovery (the next utility to open it is refused
// with (509)(510)); the run rebuilds it and ends verified.
func TestNoIntegrityBrokerKilled(t *testing.T) {
	e := newEnv(t, "sports")
	largest := largestTable(t, e)
	r := startSlowRun(t, e, largest, "--no-integrity")
	r.waitLoadRunning(largest)
	h, err := store.ReadHolder(store.PathsFor(e.target))
	require.NoError(t, err)
	require.True(t, h != nil && h.Alive && h.NoIntegrity, "the target is not served with -i: %+v", h)
	require.NoError(t, syscall.Kill(h.Pid, syscall.SIGKILL), "kill -9 of the target's broker")
	require.NoError(t, <-r.exited, r.stderr.String())
	e.verified()
	decided, created := rebuilds(t, e.journal())
	assert.Equal(t, 1, decided)
	assert.Equal(t, 2, created)
	assert.Equal(t, tabanalysCounts(t, e, e.source), tabanalysCounts(t, e, e.target))
}
