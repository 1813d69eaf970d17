package sim

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/sim/store"
)

// The tests run the utilities as separate processes, as oedl does. The
// program installed as $DLC/bin/<utility> is cmd/oesim built once per test
// binary (go build, cached), so that the hundreds of utility runs of the
// end-to-end test do not each pay for a -race runtime; with
// OESIM_TEST_REEXEC=1, or when go build is not possible, it is the test
// binary itself, which TestMain dispatches on argv[0]. No shell anywhere.
func TestMain(m *testing.M) {
	if name := filepath.Base(os.Args[0]); IsUtility(name) || name == "oesim" {
		os.Exit(Main(os.Args))
	}
	code := m.Run()
	fixtures.cleanup()
	if builtDir != "" {
		os.RemoveAll(builtDir)
	}
	os.Exit(code)
}

var (
	builtOnce sync.Once
	builtExe  string
	builtDir  string
)

// utilityExe is the program to install as the utilities.
func utilityExe(t testing.TB) string {
	builtOnce.Do(func() {
		if os.Getenv("OESIM_TEST_REEXEC") == "1" {
			return
		}
		dir, err := os.MkdirTemp("", "oesim-bin-")
		if err != nil {
			return
		}
		exe := filepath.Join(dir, "oesim")
		cmd := exec.Command("go", "build", "-o", exe, "github.com/oedl/oedl/cmd/oesim")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Logf("go build cmd/oesim failed, re-executing the test binary instead: %v\n%s", err, out)
			os.RemoveAll(dir)
			return
		}
		builtExe, builtDir = exe, dir
	})
	if builtExe != "" {
		return builtExe
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	return exe
}

// dlcEnv is an installed simulator with a work directory.
type dlcEnv struct {
	dlc  string
	work string
	env  []string
}

func newDLC(t testing.TB) *dlcEnv {
	t.Helper()
	root := t.TempDir()
	return installDLC(t, root)
}

func installDLC(t testing.TB, root string) *dlcEnv {
	exe := utilityExe(t)
	dlc := filepath.Join(root, "dlc")
	require.NoError(t, Install(dlc, exe))
	work := filepath.Join(root, "work")
	require.NoError(t, os.MkdirAll(work, 0o755))
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OESIM_") && !strings.HasPrefix(kv, "DLC=") {
			env = append(env, kv)
		}
	}
	env = append(env, "DLC="+dlc, "OESIM_STATE="+filepath.Join(root, "state"))
	return &dlcEnv{dlc: dlc, work: work, env: env}
}

// result is one utility run.
type result struct {
	out  string
	code int
}

// run starts $DLC/bin/<utility> args... in the work directory, with extra
// environment, and waits for it (at most two minutes).
func (d *dlcEnv) run(t testing.TB, extraEnv []string, stdin string, utility string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := d.command(ctx, extraEnv, utility, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		require.True(t, ok, "%s %v: %v", utility, args, err)
		code = ee.ExitCode()
	}
	return result{out: out.String(), code: code}
}

func (d *dlcEnv) command(ctx context.Context, extraEnv []string, utility string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(d.dlc, "bin", utility), args...)
	cmd.Dir = d.work
	cmd.Env = append(append([]string(nil), d.env...), extraEnv...)
	return cmd
}

// ok runs a utility that must succeed and returns its output.
func (d *dlcEnv) ok(t testing.TB, utility string, args ...string) string {
	t.Helper()
	r := d.run(t, nil, "", utility, args...)
	require.Equal(t, 0, r.code, "%s %s:\n%s", utility, strings.Join(args, " "), r.out)
	return r.out
}

// fixtures holds what several tests share: one generated source database
// per profile and scale, built once per test binary.
var fixtures = &fixtureSet{dbs: map[string]*fixture{}}

type fixtureSet struct {
	mu   sync.Mutex
	dirs []string
	dbs  map[string]*fixture
}

type fixture struct {
	once sync.Once
	env  *dlcEnv
	db   string
	err  error
}

// source returns an installed DLC and a generated database (shared: tests
// must not change it, except through a served, read-only use).
func (f *fixtureSet) source(t testing.TB, profile, scale string) (*dlcEnv, string) {
	t.Helper()
	f.mu.Lock()
	fx := f.dbs[profile+scale]
	if fx == nil {
		fx = &fixture{}
		f.dbs[profile+scale] = fx
	}
	f.mu.Unlock()
	fx.once.Do(func() {
		root, err := os.MkdirTemp("", "oesim-fixture-")
		if err != nil {
			fx.err = err
			return
		}
		f.mu.Lock()
		f.dirs = append(f.dirs, root)
		f.mu.Unlock()
		fx.env = installDLC(t, root)
		fx.db = filepath.Join(fx.env.work, "src", profile)
		r := fx.env.run(t, nil, "", "oesim", "gen", "--dlc", fx.env.dlc, "--db", fx.db, "--profile", profile,
			"--scale", scale, "--seed", "7")
		if r.code != 0 {
			fx.err = &genError{r.out}
		}
	})
	require.NoError(t, fx.err)
	return fx.env, fx.db
}

type genError struct{ out string }

func (e *genError) Error() string { return "oesim gen failed:\n" + e.out }

func (f *fixtureSet) cleanup() {
	for _, d := range f.dirs {
		os.RemoveAll(d)
	}
}

// heldDump starts a dump of Customer from the served db into dir that
// hangs after its first record (a user that stays connected), and waits
// until the broker counts it. exited receives the dump's end.
func (d *dlcEnv) heldDump(t *testing.T, ctx context.Context, db, dir string) (cmd *exec.Cmd, exited <-chan error) {
	t.Helper()
	cmd = d.command(ctx, []string{"OESIM_FAULTS=dump:hang-after=1"}, "proutil", db, "-C", "dump", "Customer", dir)
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	p := store.PathsFor(db)
	require.Eventually(t, func() bool {
		users, _ := store.ConnectedUsers(p)
		return len(users) == 1 && users[0] == cmd.Process.Pid
	}, 30*time.Second, 5*time.Millisecond, "the held dump never connected")
	return cmd, done
}
