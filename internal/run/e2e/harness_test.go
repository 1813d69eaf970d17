package e2e

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
	"github.com/oedl/oedl/internal/run"
	"github.com/oedl/oedl/internal/verify"
)

// fixture is built once per test binary and profile: the two programs, an
// oesim DLC, a generated source database and its plan.
type fixture struct {
	profile string
	bin     string // directory holding oedl and oesim
	dlc     string
	source  string // template source database (copied per test)
	planDir string
	err     error
}

// Scales of the generated databases: small, since every run spawns
// hundreds of utility processes (erp has ~180 tables at this size) and the
// crash tests run a dozen of them (on sports, 25 tables).
var scales = map[string]string{"erp": "2MB", "sports": "2MB", "sports" + relativeSuffix: "2MB"}

// relativeSuffix on a profile makes its source a relative-path database
// (oesim gen --relative: the control area holds ./sports_7.d1, as after
// prodb of $DLC/empty or sports2000); the database keeps the profile's
// name.
const relativeSuffix = "-relative"

var (
	fxMu     sync.Mutex
	fixtures = map[string]*fixture{}
	binOnce  sync.Once
	binDir   string
	binErr   error
	baseDir  string
)

func setup(t *testing.T, profile string) *fixture {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end: skipped with -short")
	}
	binOnce.Do(func() { binErr = buildBinaries() })
	require.NoError(t, binErr)
	fxMu.Lock()
	defer fxMu.Unlock()
	f := fixtures[profile]
	if f == nil {
		f = &fixture{profile: profile, bin: binDir}
		f.err = f.build()
		fixtures[profile] = f
	}
	require.NoError(t, f.err)
	return f
}

func buildBinaries() error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	if baseDir, err = os.MkdirTemp("", "oedl-e2e-"); err != nil {
		return err
	}
	binDir = filepath.Join(baseDir, "bin")
	for _, p := range []string{"oedl", "oesim"} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(binDir, p), "./cmd/"+p)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", p, err, out)
		}
	}
	return nil
}

func (f *fixture) build() error {
	base := filepath.Join(baseDir, f.profile)
	f.dlc = filepath.Join(base, "dlc")
	if out, err := exec.Command(filepath.Join(f.bin, "oesim"), "install", f.dlc).CombinedOutput(); err != nil {
		return fmt.Errorf("oesim install: %v\n%s", err, out)
	}
	profile, scale := strings.TrimSuffix(f.profile, relativeSuffix), scales[f.profile]
	f.source = filepath.Join(base, "src", profile)
	if err := os.MkdirAll(filepath.Dir(f.source), 0o755); err != nil {
		return err
	}
	args := []string{"gen", "--dlc", f.dlc, "--db", f.source, "--profile", profile, "--scale", scale, "--seed", "7"}
	if profile != f.profile {
		args = append(args, "--relative")
	}
	gen := exec.Command(filepath.Join(f.dlc, "bin", "oesim"), args...)
	gen.Env = append(os.Environ(), "DLC="+f.dlc)
	if out, err := gen.CombinedOutput(); err != nil {
		return fmt.Errorf("oesim gen: %v\n%s", err, out)
	}
	f.planDir = filepath.Join(base, "plan")
	pl := exec.Command(filepath.Join(f.bin, "oedl"), "plan", "--source", f.source, "--dlc", f.dlc, "-o", f.planDir)
	pl.Env = append(os.Environ(), "DLC="+f.dlc)
	if out, err := pl.CombinedOutput(); err != nil {
		return fmt.Errorf("oedl plan: %v\n%s", err, out)
	}
	return nil
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", err
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("not in a Go module")
	}
	return filepath.Dir(mod), nil
}

// env is one test's copy of the source, its target and work directories.
type env struct {
	t      *testing.T
	fx     *fixture
	dir    string
	source string
	target string
	work   string
	extra  []string // environment for oedl (and so for every utility)
}

func newEnv(t *testing.T, profile string) *env {
	f := setup(t, profile)
	dir := t.TempDir()
	// The copy keeps the database's name: a relative-path database's
	// control area names its extents.
	name := filepath.Base(f.source)
	e := &env{t: t, fx: f, dir: dir, source: filepath.Join(dir, "src", name),
		target: filepath.Join(dir, "tgt", name), work: filepath.Join(dir, "work")}
	require.NoError(t, copyDB(f.source, e.source))
	require.NoError(t, os.MkdirAll(filepath.Dir(e.target), 0o755))
	// Fault counters ("once") live in a state directory per test, and
	// oedl's scratch in a temporary directory per test: the scratch of an
	// oedl the test kills -9 goes with the test instead of staying in /tmp.
	tmp := filepath.Join(dir, "tmp")
	require.NoError(t, os.MkdirAll(tmp, 0o755))
	e.extra = []string{"DLC=" + f.dlc, "OESIM_STATE=" + filepath.Join(dir, "oesim-state"), "TMPDIR=" + tmp}
	// A run that was killed and never resumed (a test that failed, or a
	// round tried again) leaves its brokers up: they go with the test
	// (registered after TempDir, so they run before its removal).
	t.Cleanup(func() {
		for _, db := range []string{e.source, e.target} {
			e.shutdownIfServed(db)
		}
	})
	return e
}

// shutdownIfServed stops the broker serving db, if any (proutil -C holder
// exits 16 when one does).
func (e *env) shutdownIfServed(db string) {
	if _, err := os.Stat(db + ".db"); err != nil {
		return
	}
	holder := exec.Command(filepath.Join(e.fx.dlc, "bin", "proutil"), db, "-C", "holder")
	holder.Env = append(os.Environ(), e.extra...)
	if err := holder.Run(); err == nil || holder.ProcessState.ExitCode() != 16 {
		return
	}
	shut := exec.Command(filepath.Join(e.fx.dlc, "bin", "proshut"), db, "-by")
	shut.Env = append(os.Environ(), e.extra...)
	if out, err := shut.CombinedOutput(); err != nil {
		e.t.Logf("proshut %s -by: %v\n%s", db, err, out)
	}
}

// copyDB copies the files of a database (all in one directory for a
// generated one) to a new name.
func copyDB(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(filepath.Dir(src))
	if err != nil {
		return err
	}
	base := filepath.Base(src)
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasPrefix(name, base) || name == base+".lk" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(filepath.Dir(src), name))
		if err != nil {
			return err
		}
		out := filepath.Join(filepath.Dir(dst), filepath.Base(dst)+strings.TrimPrefix(name, base))
		if err := os.WriteFile(out, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// result of one oedl invocation.
type result struct {
	code   int // exit status; -1 when killed by a signal
	stdout string
	stderr string
}

// oedl runs the oedl binary with args and the env's environment plus more.
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

// crashSafe loads crash-safe, oedl run's default being -i: the tests of
// the crash-safe path (the area repair, the kill -9 sweeps) say it; the
// -i path has its own (noint_test.go), and a kill in the load phase that
// rebuilt the whole target would make the sweeps slower and test less.
const crashSafe = "--no-integrity=false"

func (e *env) runArgs(extra ...string) []string {
	return append([]string{"run", "--source", e.source, "--target", e.target, "--plan", e.fx.planDir,
		"--work", e.work, "--dlc", e.fx.dlc, "--no-tui", "--job-timeout", "2m"}, extra...)
}

// verified checks the end state: verify.json says every table matches,
// and the journal holds no load completed twice without a repair between.
func (e *env) verified() *verify.Result {
	e.t.Helper()
	data, err := os.ReadFile(filepath.Join(e.work, verify.JSONFile))
	require.NoError(e.t, err)
	var v verify.Result
	require.NoError(e.t, json.Unmarshal(data, &v))
	require.True(e.t, v.OK, "verify: %v", v.Bad)
	require.Equal(e.t, v.Before.Checksum, v.After.Checksum)
	require.NotEmpty(e.t, v.Rows)
	// Every name the run left at the top of its work directory is one
	// run.WorkEntries lists, which oedl demo clears an earlier demo's by.
	entries, err := os.ReadDir(e.work)
	require.NoError(e.t, err)
	for _, d := range entries {
		require.True(e.t, run.IsWorkEntry(d.Name()), "%s: written in the work directory, not in run.WorkEntries", d.Name())
	}
	// The users, SQL grants and views went across too (a database built
	// by hand may have none; the generated ones have some, checked where
	// they are used: security_test.go, language_test.go).
	require.NotNil(e.t, v.Security, "verify compared no users, grants or views")
	require.True(e.t, v.Security.OK, "security: %v", v.Security.Bad)
	recs, err := journal.Read(filepath.Join(e.work, journal.FileName))
	require.NoError(e.t, err)
	require.Empty(e.t, journal.Replay(recs).LoadedTwice(), "no table loaded twice")
	return &v
}

func (e *env) journal() []journal.Record {
	recs, err := journal.Read(filepath.Join(e.work, journal.FileName))
	require.NoError(e.t, err)
	return recs
}
