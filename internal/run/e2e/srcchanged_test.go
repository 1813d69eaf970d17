package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/journal"
)

// kill -9 of oedl while it dumps; the DBA shuts down the broker the
// killed run left on the source and, before he resumes, opens the source
// single-user and writes to it (records, or a sequence), or only reads it
// (a tabanalys of his own), or nothing. A resume that dumped the rest of a
// changed source would leave a target holding tables from two moments of
// it and call it verified (new-user trial 5): it is refused, exit 3,
// naming the source and what to do. A source only read or opened since
// resumes and ends verified.
func TestResumeRefusesAChangedSource(t *testing.T) {
	tests := []struct {
		name    string
		change  func(t *testing.T, e *env, dlc func(string, ...string))
		refused bool
	}{
		{"nothing done", func(*testing.T, *env, func(string, ...string)) {}, false},
		{"the DBA reads it single-user then serves it and stops it", func(t *testing.T, e *env, dlc func(string, ...string)) {
			dlc("proutil", e.source, "-C", "tabanalys")
			dlc("proserve", e.source)
			dlc("proshut", e.source, "-by")
		}, false},
		{"records loaded into it", func(t *testing.T, e *env, dlc func(string, ...string)) {
			// A table the killed run dumped, loaded into the source again
			// single-user: its records are there twice now.
			bd := firstDumpDone(t, e)
			dlc("proutil", e.source, "-C", "load", bd)
		}, true},
		{"a sequence set", func(t *testing.T, e *env, dlc func(string, ...string)) {
			vals := filepath.Join(e.dir, "seq.txt")
			dlc("_progres", "-b", "-db", e.source, "-1", "-p", filepath.Join(e.work, "abl", "dump_seqvals.p"), "-param", vals)
			b, err := os.ReadFile(vals)
			require.NoError(t, err)
			name, _, ok := strings.Cut(strings.SplitN(string(b), "\n", 2)[0], " ") // `"name" value`, as EXPORT writes it
			require.True(t, ok, "the source has a sequence: %q", b)
			require.NoError(t, os.WriteFile(vals, []byte(name+" 987654\n"), 0o644))
			dlc("_progres", "-b", "-db", e.source, "-1", "-p", filepath.Join(e.work, "abl", "load_seqvals.p"), "-param", vals)
		}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "sports")
			privateSource(t, e)
			cmd, exited := startSlowDump(t, e)
			// Killed in the dumps, once the target's broker is up (not
			// while it starts: what a kill leaves then is orphans_test's).
			waitJournal(t, e, exited, func(r journal.Record) bool { return r.Job == "serve:target" && r.State == journal.Done })
			waitJournal(t, e, exited, func(r journal.Record) bool { return r.Kind == "dump" && r.State == journal.Done })
			require.NoError(t, cmd.Process.Kill(), "kill -9 of oedl alone")
			<-exited
			var frozen *int64
			for _, r := range e.journal() {
				if r.Job == "preflight" && r.State == journal.Done {
					frozen = r.SourceTask
				}
			}
			require.NotNil(t, frozen, "the preflight journalled the source's last transaction id")

			dlc := func(prog string, args ...string) {
				c := exec.Command(filepath.Join(e.fx.dlc, "bin", prog), args...)
				c.Env = append(os.Environ(), e.extra...)
				out, err := c.CombinedOutput()
				require.NoError(t, err, "%s %v\n%s", prog, args, out)
			}
			dlc("proshut", e.source, "-by") // the killed run's broker
			tc.change(t, e, dlc)
			before := len(e.journal())

			r := e.oedl(nil, e.runArgs("--resume")...)
			if !tc.refused {
				require.Equal(t, 0, r.code, r.stderr)
				e.verified()
				return
			}
			assert.Equal(t, 3, r.code, r.stderr)
			assert.Contains(t, r.stderr, e.source)
			assert.Contains(t, r.stderr, "_MstrBlk-Lasttask")
			assert.Contains(t, r.stderr, "new --work")
			assert.Equal(t, before, len(e.journal()), "the refused resume journalled nothing")
			assert.Equal(t, 0, e.holder(e.source), "nothing left running on the source")
		})
	}
}

// firstDumpDone is the .bd of the first dump the journal says is done.
func firstDumpDone(t *testing.T, e *env) string {
	t.Helper()
	for _, r := range e.journal() {
		if r.Kind == "dump" && r.State == journal.Done && len(r.Files) > 0 {
			return r.Files[0].Path
		}
	}
	t.Fatal("no dump done")
	return ""
}

// privateSource makes e.source a database of its own with the fixture's
// contents: newEnv's copy is the fixture's .db, whose extents are the
// fixture's by their absolute paths (enough for tests that only read the
// source), and these tests write to it.
func privateSource(t *testing.T, e *env) {
	t.Helper()
	dir := filepath.Dir(e.source)
	require.NoError(t, os.RemoveAll(dir))
	require.NoError(t, os.MkdirAll(dir, 0o755))
	st, err := os.ReadFile(e.fx.source + ".st")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(e.source+".st", st, 0o644)) // relative paths: "."
	run := func(prog string, args ...string) {
		c := exec.Command(filepath.Join(e.fx.dlc, "bin", prog), args...)
		c.Dir, c.Env = dir, append(os.Environ(), e.extra...)
		out, err := c.CombinedOutput()
		require.NoError(t, err, "%s %v\n%s", prog, args, out)
	}
	run("prostrct", "create", e.source, e.source+".st", "-blocksize", "8192")
	run("procopy", e.fx.source, e.source)
}
