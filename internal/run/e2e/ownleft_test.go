package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Safety trial 11: a run fails at a load and ends (exit 1). The DBA,
// instead of resuming, loads the table by hand, serves the target and
// goes live on it (his users write), later shuts it down. Weeks later the
// run's --resume is given from the shell's history. The target's record
// names this run's work directory, so the resume took it as its own: the
// no-integrity rebuild removed it and created it again (exit 0, every
// write of the DBA's gone), a crash-safe resume truncated the failed
// area and loaded into it. Now a resume whose record was left by an
// invocation that ended (no kill since) is refused, exit 3, naming the
// changed file, with every byte of the target as it was; a resume of a
// target nobody touched still verifies.
func TestResumeRefusesItsTargetUsedSince(t *testing.T) {
	tests := []struct {
		name      string
		crashSafe bool
		use       func(e *env, dlc func(string, ...string))
		want      string // in stderr; "" when the resume verifies
	}{
		{name: "untouched since the failed run ended", use: func(*env, func(string, ...string)) {}},
		{name: "loaded by hand then served and a sequence set by a user", use: func(e *env, dlc func(string, ...string)) {
			dlc("proutil", e.target, "-C", "load", filepath.Join(e.work, "dump", "PUB.Customer", "Customer.bd"))
			dlc("proserve", e.target)
			setSequence(e, dlc)
			dlc("proshut", e.target, "-by")
		}, want: ".db is another file than the one the oedl run in "},
		{name: "loaded by hand only", use: func(e *env, dlc func(string, ...string)) {
			dlc("proutil", e.target, "-C", "load", filepath.Join(e.work, "dump", "PUB.Customer", "Customer.bd"))
		}, want: "changed since the oedl run in "},
		{name: "crash-safe: loaded by hand only", crashSafe: true, use: func(e *env, dlc func(string, ...string)) {
			dlc("proutil", e.target, "-C", "load", filepath.Join(e.work, "dump", "PUB.Customer", "Customer.bd"))
		}, want: "changed since the oedl run in "},
		{name: "served and shut down", use: func(e *env, dlc func(string, ...string)) {
			dlc("proserve", e.target)
			dlc("proshut", e.target, "-by")
		}, want: "its log grew"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "sports")
			var extra []string
			if tc.crashSafe {
				extra = append(extra, crashSafe)
			}
			r := e.oedl([]string{"OESIM_FAULTS=load:PUB.Customer:exit=1"}, e.runArgs(append(extra, "--retries", "0")...)...)
			require.Equal(t, 1, r.code, r.stderr)
			tc.use(e, e.dlc())
			before := everyByte(t, filepath.Dir(e.target))

			r = e.oedl(nil, e.runArgs(append(extra, "--resume")...)...)
			if tc.want == "" {
				require.Equal(t, 0, r.code, r.stderr)
				e.verified()
				return
			}
			assert.Equal(t, 3, r.code, r.stderr)
			for _, want := range []string{
				"the target " + e.target + " is not as this run's last invocation left it when it ended: ",
				tc.want, "remove it yourself (prodel",
			} {
				assert.Contains(t, r.stderr, want)
			}
			assert.Equal(t, before, everyByte(t, filepath.Dir(e.target)), "every file of the target as it was, its log included")
		})
	}
}

// setSequence has a user of the served target set its first sequence.
func setSequence(e *env, dlc func(string, ...string)) {
	vals := filepath.Join(e.dir, "seq.txt")
	dlc("_progres", "-b", "-db", e.target, "-p", filepath.Join(e.work, "abl", "dump_seqvals.p"), "-param", vals)
	b, err := os.ReadFile(vals)
	require.NoError(e.t, err)
	name, _, ok := strings.Cut(strings.SplitN(string(b), "\n", 2)[0], " ") // `"name" value`, as EXPORT writes it
	require.True(e.t, ok, "the target has a sequence: %q", b)
	require.NoError(e.t, os.WriteFile(vals, []byte(name+" 424242\n"), 0o644))
	dlc("_progres", "-b", "-db", e.target, "-p", filepath.Join(e.work, "abl", "load_seqvals.p"), "-param", vals)
}

// dlc runs a utility of the test's $DLC as the DBA would, failing the
// test when it fails.
func (e *env) dlc() func(string, ...string) {
	return func(prog string, args ...string) {
		c := exec.Command(filepath.Join(e.fx.dlc, "bin", prog), args...)
		c.Env = append(os.Environ(), e.extra...)
		out, err := c.CombinedOutput()
		require.NoError(e.t, err, "%s %v\n%s", prog, args, out)
	}
}
