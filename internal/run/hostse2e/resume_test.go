package hostse2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/journal"
)

// kill -9 of oedl while it dumps on the hosts, then what a DBA does on
// the source's host before he resumes; each case on a fresh set of hosts.
//
//   - nothing: the resume shuts down the killed run's broker (identified
//     by its PID and start time, read over ssh) and ends verified;
//   - records written into the source: the resume is refused (exit 3)
//     naming both last transaction ids, as on one machine. It had dumped
//     the rest of the changed source and said verified;
//   - the killed run's broker replaced by the DBA's own, for his users:
//     refused (exit 3), the DBA's broker still up. It shut it down;
//   - the same with a journal naming no broker (written before oedl
//     recorded them): refused by name, the DBA's broker still up;
//   - a journal naming no broker, the killed run's still up: found by the
//     run's mark in its environment, shut down, verified.
func TestHostsResumeAfterTheDBA(t *testing.T) {
	tests := []struct {
		name       string
		dba        func(t *testing.T, h *hostsEnv, src func(prog string, args ...string))
		noIdentity bool
		refused    []string // what the refusal names; nil: verified
	}{
		{"nothing", func(*testing.T, *hostsEnv, func(string, ...string)) {}, false, nil},
		{"records loaded into the source", func(t *testing.T, h *hostsEnv, src func(string, ...string)) {
			src("proshut", h.sourceDB(), "-by") // the killed run's broker
			src("proutil", h.sourceDB(), "-C", "load", h.dumpedOn(t, "src"))
		}, false, []string{"_MstrBlk-Lasttask", "new --work"}},
		{"the DBA's broker", func(t *testing.T, h *hostsEnv, src func(string, ...string)) {
			src("proshut", h.sourceDB(), "-by")
			src("proserve", h.sourceDB())
		}, false, []string{"oedl did not start"}},
		{"the DBA's broker and a journal naming none", func(t *testing.T, h *hostsEnv, src func(string, ...string)) {
			src("proshut", h.sourceDB(), "-by")
			src("proserve", h.sourceDB())
		}, true, []string{"cannot prove its own", " on src"}},
		{"the killed run's broker and a journal naming none", func(*testing.T, *hostsEnv, func(string, ...string)) {}, true, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHostsEnv(t, "sports")
			h.ownSource(t)
			h.killInTheDumps(t)
			src := h.on("src")
			require.Equal(t, 16, h.holderOn("src", h.sourceDB()), "the killed run's broker serves the source")
			if tc.noIdentity {
				withoutBrokers(t, filepath.Join(h.work, journal.FileName))
			}
			tc.dba(t, h, src)
			before := len(h.journal())

			r := h.oedl(nil, h.runArgs("--resume")...)
			h.keep()
			if tc.refused == nil {
				require.Equal(t, 0, r.code, "%s\n%s", r.stdout, r.stderr)
				h.verified()
				return
			}
			assert.Equal(t, 3, r.code, "%s\n%s", r.stdout, r.stderr)
			assert.Contains(t, r.stderr, h.sourceDB())
			for _, s := range tc.refused {
				assert.Contains(t, r.stderr, s)
			}
			assert.Equal(t, before, len(h.journal()), "the refused resume journalled nothing")
			if strings.Contains(tc.name, "DBA's broker") {
				assert.Equal(t, 16, h.holderOn("src", h.sourceDB()), "the DBA's broker still serves the source")
				src("proshut", h.sourceDB(), "-by")
			}
		})
	}
}

// sourceDB is the source's path on its host (ownSource's).
func (h *hostsEnv) sourceDB() string { return filepath.Join(h.lab.Root, "own", "sports") }

// ownSource gives the source host a database of its own with the
// fixture's contents (prostrct create and procopy over its ssh: the copy
// newHostsEnv puts there names the fixture's extents, which every host
// sees, and these tests write to the source), and writes a hosts file of
// the source and the target alone, the largest table's dump slow on the
// source (oesim's slow fault), so that a test kills oedl in the dumps.
func (h *hostsEnv) ownSource(t *testing.T) {
	st, err := os.ReadFile(h.fx.source + ".st")
	require.NoError(t, err)
	local := filepath.Join(t.TempDir(), "sports.st")
	require.NoError(t, os.WriteFile(local, st, 0o644)) // relative paths: "."
	db := h.sourceDB()
	h.lab.Put("src", filepath.Dir(db), local)
	in := func(prog string, args ...string) {
		res, err := h.lab.SSH("src").Run(context.Background(), execx.Cmd{Path: filepath.Join(h.fx.dlc, "bin", prog), Args: args,
			Dir: filepath.Dir(db), Env: []string{"DLC=" + h.fx.dlc}})
		require.NoError(t, err, "%s %v on src\n%s", prog, args, res.Output)
	}
	in("prostrct", "create", db, db+".st", "-blocksize", "8192")
	in("procopy", h.fx.source, db)

	data, err := os.ReadFile(h.hosts)
	require.NoError(t, err)
	s := string(data)
	i, j := strings.Index(s, "  dr:\n"), strings.Index(s, "  tgt:\n")
	require.True(t, i > 0 && j > i)
	env := fmt.Sprintf("    env:\n      OESIM_FAULTS: \"dump:%s:slow=256KB\"\n", largest(t, h.fx.planDir))
	s = strings.Replace(s[:i], filepath.Join(h.lab.Root, "db", "sports"), db, 1) + env + s[j:]
	require.NoError(t, os.WriteFile(h.hosts, []byte(s), 0o644))
}

// killInTheDumps starts oedl and kills it (kill -9, oedl alone) once the
// target's broker is up and a dump on the source is done.
func (h *hostsEnv) killInTheDumps(t *testing.T) {
	cmd := exec.Command(filepath.Join(h.fx.bin, "oedl"), h.runArgs()...)
	cmd.Env = append(os.Environ(), h.extra...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(3 * time.Minute)
	for !h.journalHas(func(r journal.Record) bool { return r.Job == "serve:target" && r.State == journal.Done }) ||
		!h.journalHas(func(r journal.Record) bool { return r.Kind == "dump" && r.State == journal.Done && r.Host == "src" }) {
		select {
		case err := <-exited:
			t.Fatalf("oedl ended (%v) before the dumps were under way:\n%s", err, errb.String())
		default:
		}
		require.True(t, time.Now().Before(deadline), "the journal never had the records")
		time.Sleep(20 * time.Millisecond) // polling the journal of another process
	}
	require.NoError(t, cmd.Process.Kill())
	<-exited
}

func (h *hostsEnv) journalHas(match func(journal.Record) bool) bool {
	recs, _ := journal.Read(filepath.Join(h.work, journal.FileName))
	for _, r := range recs {
		if match(r) {
			return true
		}
	}
	return false
}

// dumpedOn is the .bd of a dump the journal says is done on host.
func (h *hostsEnv) dumpedOn(t *testing.T, host string) string {
	for _, r := range h.journal() {
		if r.Kind == "dump" && r.State == journal.Done && r.Host == host && len(r.Files) > 0 {
			return r.Files[0].Path
		}
	}
	t.Fatalf("no dump done on %s", host)
	return ""
}

// on runs a utility of the DLC on a host, over its ssh, as the DBA does.
func (h *hostsEnv) on(host string) func(prog string, args ...string) {
	s := h.lab.SSH(host)
	return func(prog string, args ...string) {
		res, err := s.Run(context.Background(), execx.Cmd{Path: filepath.Join(h.fx.dlc, "bin", prog), Args: args, Env: []string{"DLC=" + h.fx.dlc}})
		require.NoError(h.t, err, "%s %v on %s\n%s", prog, args, host, res.Output)
	}
}

// holderOn is proutil -C holder's exit code for db on host.
func (h *hostsEnv) holderOn(host, db string) int {
	res, _ := h.lab.SSH(host).Run(context.Background(), execx.Cmd{Path: filepath.Join(h.fx.dlc, "bin", "proutil"), Args: []string{db, "-C", "holder"},
		Env: []string{"DLC=" + h.fx.dlc}})
	return res.ExitCode
}

// withoutBrokers rewrites a journal as oedl wrote it before it recorded
// the brokers it started (no "broker" on the serves' done records).
func withoutBrokers(t *testing.T, path string) {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []byte
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		var rec map[string]json.RawMessage
		if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &rec) != nil || rec["broker"] == nil {
			out = append(out, line...)
			continue
		}
		delete(rec, "broker")
		b, err := json.Marshal(rec)
		require.NoError(t, err)
		out = append(append(out, b...), '\n')
	}
	require.NoError(t, os.WriteFile(path, out, 0o644))
}
