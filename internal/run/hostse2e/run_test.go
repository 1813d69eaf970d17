package hostse2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/hosttest"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/schedule"
)

// hostsEnv is a run on three hosts: the source, a replica holding the
// same database, and the target, each a network namespace with its own
// sshd and its own private files at the same paths (so /ROOT/db/erp on
// the source and on the replica are two files, and /ROOT/work is three
// directories). oedl runs here, outside all three: it can reach a host's
// files only over that host's ssh connection.
type hostsEnv struct {
	*env
	lab   *hosttest.Lab
	hosts string // the hosts file
}

func newHostsEnv(t *testing.T, profile string, specs ...hosttest.Spec) *hostsEnv {
	hosttest.Require(t)
	e := newEnv(t, profile)
	source := e.fx.source
	if len(specs) == 0 {
		// dash as the login shell: the quickest to start, once per call.
		specs = []hosttest.Spec{{Name: "src", Shell: "/bin/sh"}, {Name: "dr", Shell: "/bin/sh"}, {Name: "tgt", Shell: "/bin/sh"}}
	}
	l := hosttest.New(t, specs...)
	var files []string
	entries, err := os.ReadDir(filepath.Dir(source))
	require.NoError(t, err)
	for _, x := range entries {
		if !strings.HasSuffix(x.Name(), ".lk") {
			files = append(files, filepath.Join(filepath.Dir(source), x.Name()))
		}
	}
	db := filepath.Join(l.Root, "db")
	for _, h := range []string{"src", "dr"} {
		l.Put(h, db, files...)
	}
	hf := filepath.Join(e.dir, "hosts.yaml")
	var b strings.Builder
	fmt.Fprintf(&b, "ssh:\n  config: %s\n  alive-interval: 1s\n  alive-count: 3\n  connect-timeout: 10s\nhosts:\n", l.SSHConfig)
	for _, h := range []struct{ name, role, db string }{
		{"src", "source", filepath.Join(db, profile)},
		{"dr", "replica", filepath.Join(db, profile)},
		{"tgt", "target", filepath.Join(l.Root, "new", profile)},
	} {
		fmt.Fprintf(&b, "  %s:\n    role: %s\n    ssh: %s\n    db: %s\n    dlc: %s\n    work: %s\n",
			h.name, h.role, h.name, h.db, e.fx.dlc, filepath.Join(l.Root, "work"))
	}
	require.NoError(t, os.WriteFile(hf, []byte(b.String()), 0o644))
	return &hostsEnv{env: e, lab: l, hosts: hf}
}

func (h *hostsEnv) runArgs(extra ...string) []string {
	return append([]string{"run", "--hosts", h.hosts, "--plan", h.fx.planDir, "--work", h.work, "--dlc", h.fx.dlc,
		"--no-tui", "--job-timeout", "2m", "--dump-jobs", "2", "--load-jobs", "2", "--threaded-dump-min", "150KB"}, extra...)
}

// largest is the plan's largest table.
func largest(t *testing.T, planDir string) string {
	p, err := plan.ReadJSON(filepath.Join(planDir, "plan.json"))
	require.NoError(t, err)
	tables := append([]plan.Placement{}, p.Tables...)
	sort.Slice(tables, func(a, b int) bool { return tables[a].Bytes > tables[b].Bytes })
	return tables[0].Table
}

// The source, one replica and the target as three hosts, the erp profile
// with its big tables dumped threaded: verified, the largest table dumped
// on the replica (proven first), every dump moved to the target checked
// end to end, and one ssh connection per host.
func TestHostsRun(t *testing.T) {
	h := newHostsEnv(t, "erp")
	logins := h.logins()
	r := h.oedl(nil, h.runArgs()...)
	h.keep()
	require.Equal(t, 0, r.code, "%s\n%s", r.stdout, r.stderr)
	h.verified()

	recs := h.journal()
	rp := journal.Replay(recs)
	big := largest(t, h.fx.planDir)
	dumped := map[string][]string{}
	threaded := 0
	for _, rec := range recs {
		if rec.State != journal.Done {
			continue
		}
		switch rec.Kind {
		case string(schedule.KindDump):
			dumped[rec.Host] = append(dumped[rec.Host], rec.Table)
			if len(rec.Files) > 1 {
				threaded++
			}
			for _, f := range rec.Files {
				assert.Equal(t, rec.Host, f.Host)
				assert.Len(t, f.SHA256, 64, "a dump that moves is summed where it lies")
			}
		case string(schedule.KindMove):
			for _, f := range rec.Files {
				assert.Equal(t, "tgt", f.Host)
				assert.Len(t, f.SHA256, 64)
			}
		case string(schedule.KindLoad), string(schedule.KindIdxbuild), string(schedule.KindCreateTarget):
			assert.Equal(t, "tgt", rec.Host, rec.Job)
		}
	}
	assert.Contains(t, dumped["dr"], big, "the largest table is dumped on the replica")
	assert.NotEmpty(t, dumped["src"], "the source dumps its share")
	assert.Positive(t, threaded, "big tables dumped threaded")
	assert.True(t, rp.IsDone(schedule.ProveReplicaID("dr")), "the replica was proven before it dumped")
	for name, n := range h.logins() {
		assert.Equal(t, 1, n-logins[name], "one ssh connection to %s for the whole run", name)
	}
	// Nothing of any host is visible here: every file was reached over
	// its host's connection.
	entries, err := os.ReadDir(h.lab.Root)
	require.NoError(t, err)
	assert.Empty(t, entries)
}

// logins are the connections each host accepted so far.
func (h *hostsEnv) logins() map[string]int {
	out := map[string]int{}
	for name, x := range h.lab.Hosts {
		out[name] = x.Logins()
	}
	return out
}

// keep copies the journal and the logs to $OEDL_E2E_KEEP/<test>, to look
// at a run after the test removed its directories.
func (h *hostsEnv) keep() {
	dir := os.Getenv("OEDL_E2E_KEEP")
	if dir == "" {
		return
	}
	dst := filepath.Join(dir, strings.ReplaceAll(h.t.Name(), "/", "_"))
	_ = os.MkdirAll(dst, 0o755)
	_ = exec.Command("cp", "-r", h.work, dst).Run()
}

// A replica that does not hold the source's data is refused: nothing is
// dumped there, the run ends with exit 1 naming the replica and the
// tables that differ, and a resume with the replica left out of the
// hosts file finishes on the source, verified.
func TestHostsReplicaRefused(t *testing.T) {
	h := newHostsEnv(t, "sports")
	// The replica: another sports database (another seed), where the
	// source's was.
	other := filepath.Join(t.TempDir(), "other", "sports")
	require.NoError(t, os.MkdirAll(filepath.Dir(other), 0o755))
	gen := exec.Command(filepath.Join(h.fx.dlc, "bin", "oesim"), "gen", "--dlc", h.fx.dlc, "--db", other, "--profile", "sports", "--scale", "2MB", "--seed", "99")
	gen.Env = append(os.Environ(), "DLC="+h.fx.dlc)
	out, err := gen.CombinedOutput()
	require.NoError(t, err, "%s", out)
	entries, err := os.ReadDir(filepath.Dir(other))
	require.NoError(t, err)
	var files []string
	for _, x := range entries {
		if !strings.HasSuffix(x.Name(), ".lk") {
			files = append(files, filepath.Join(filepath.Dir(other), x.Name()))
		}
	}
	h.lab.Put("dr", filepath.Join(h.lab.Root, "db"), files...)

	r := h.oedl(nil, h.runArgs()...)
	require.Equal(t, 1, r.code, "%s\n%s", r.stdout, r.stderr)
	assert.Contains(t, r.stderr, "replica dr does not hold the frozen source's data")
	recs := h.journal()
	for _, rec := range recs {
		if rec.Kind == string(schedule.KindDump) {
			assert.NotEqual(t, "dr", rec.Host, "nothing is dumped on a refused replica: %s", rec.Job)
		}
	}
	assert.False(t, journal.Replay(recs).IsDone(schedule.ProveReplicaID("dr")))

	// Without the replica: the tables it was to dump go to the source.
	data, err := os.ReadFile(h.hosts)
	require.NoError(t, err)
	s := string(data)
	i := strings.Index(s, "  dr:\n")
	j := strings.Index(s, "  tgt:\n")
	require.True(t, i > 0 && j > i)
	require.NoError(t, os.WriteFile(h.hosts, []byte(s[:i]+s[j:]), 0o644))
	r = h.oedl(nil, h.runArgs("--resume")...)
	require.Equal(t, 0, r.code, "%s\n%s", r.stdout, r.stderr)
	h.verified()
}
