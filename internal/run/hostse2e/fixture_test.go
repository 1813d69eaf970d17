// Package hostse2e holds the end-to-end tests of `oedl run --hosts`: the
// real oedl and oesim binaries, a generated database, and hosts made by
// internal/hosttest (network namespaces, each with its own sshd and
// private files). A package of its own, apart from internal/run/e2e, so
// that its minutes count against a test binary's timeout of their own.
// They need root, ip and sshd (they skip otherwise) and take a while:
// `go test -short` skips them.
package hostse2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/verify"
)

// fixture is built once per test binary and profile: an oesim DLC, a
// generated source database and its plan.
type fixture struct {
	bin, dlc, source, planDir string
	err                       error
}

var (
	fxMu     sync.Mutex
	fixtures = map[string]*fixture{}
	binOnce  sync.Once
	binDir   string
	binErr   error
)

// buildBinaries builds oedl and oesim into a directory every test shares.
func buildBinaries() error {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return err
	}
	root := filepath.Dir(strings.TrimSpace(string(out)))
	if binDir, err = os.MkdirTemp("", "oedl-hostse2e-"); err != nil {
		return err
	}
	for _, p := range []string{"oedl", "oesim"} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(binDir, p), "./cmd/"+p)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", p, err, out)
		}
	}
	return nil
}

func setup(t *testing.T, profile string) *fixture {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end on several hosts: skipped with -short")
	}
	binOnce.Do(func() { binErr = buildBinaries() })
	require.NoError(t, binErr)
	fxMu.Lock()
	defer fxMu.Unlock()
	f := fixtures[profile]
	if f == nil {
		f = &fixture{bin: binDir}
		f.err = f.build(profile)
		fixtures[profile] = f
	}
	require.NoError(t, f.err)
	return f
}

func (f *fixture) build(profile string) error {
	base := filepath.Join(binDir, profile)
	f.dlc = filepath.Join(base, "dlc")
	run := func(env []string, prog string, args ...string) error {
		cmd := exec.Command(prog, args...)
		cmd.Env = append(os.Environ(), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s %v: %v\n%s", filepath.Base(prog), args, err, out)
		}
		return nil
	}
	if err := run(nil, filepath.Join(f.bin, "oesim"), "install", f.dlc); err != nil {
		return err
	}
	f.source = filepath.Join(base, "src", profile)
	if err := os.MkdirAll(filepath.Dir(f.source), 0o755); err != nil {
		return err
	}
	env := []string{"DLC=" + f.dlc}
	if err := run(env, filepath.Join(f.dlc, "bin", "oesim"), "gen", "--dlc", f.dlc, "--db", f.source, "--profile", profile, "--scale", "2MB", "--seed", "7"); err != nil {
		return err
	}
	f.planDir = filepath.Join(base, "plan")
	return run(env, filepath.Join(f.bin, "oedl"), "plan", "--source", f.source, "--dlc", f.dlc, "-o", f.planDir)
}

// env is one test's work directory here and its oedl invocations.
type env struct {
	t     *testing.T
	fx    *fixture
	dir   string
	work  string
	extra []string // environment for oedl
}

func newEnv(t *testing.T, profile string) *env {
	f := setup(t, profile)
	dir := t.TempDir()
	// oedl's temporary files in a directory of the test's own: the ssh
	// control directories of an oedl the test kills -9 (oedl-ssh-*, which
	// only its Close removes) went on piling up in /tmp. A short name:
	// the control socket's path must fit in sun_path (108 bytes).
	tmp, err := os.MkdirTemp("", "oe")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(tmp) })
	return &env{t: t, fx: f, dir: dir, work: filepath.Join(dir, "work"),
		extra: []string{"DLC=" + f.dlc, "OESIM_STATE=" + filepath.Join(dir, "oesim-state"), "TMPDIR=" + tmp}}
}

// result of one oedl invocation.
type result struct {
	code           int // -1 when killed by a signal
	stdout, stderr string
}

func (e *env) oedl(more []string, args ...string) result {
	e.t.Helper()
	cmd := exec.Command(filepath.Join(e.fx.bin, "oedl"), args...)
	cmd.Env = append(append(os.Environ(), e.extra...), more...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatalf("oedl %v: %v", args, err)
	}
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

// verified checks the end state: every table matches, and no load
// completed twice without a repair between.
func (e *env) verified() {
	e.t.Helper()
	data, err := os.ReadFile(filepath.Join(e.work, verify.JSONFile))
	require.NoError(e.t, err)
	var v verify.Result
	require.NoError(e.t, json.Unmarshal(data, &v))
	require.True(e.t, v.OK, "verify: %v", v.Bad)
	require.Equal(e.t, v.Before.Checksum, v.After.Checksum)
	require.NotEmpty(e.t, v.Rows)
	require.Empty(e.t, journal.Replay(e.journal()).LoadedTwice(), "no table loaded twice")
}

func (e *env) journal() []journal.Record {
	recs, err := journal.Read(filepath.Join(e.work, journal.FileName))
	require.NoError(e.t, err)
	return recs
}
