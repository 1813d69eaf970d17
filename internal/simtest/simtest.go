// Package simtest gives end-to-end tests an oesim to drive: the simulator
// binary, built once per test binary, and a fresh $DLC laid out by it.
//
// The binary is built without -race on purpose: tests run hundreds of
// utility calls, and a race-instrumented simulator would make each of them
// several times slower without checking any of oedl's own code.
package simtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
	buildOut  []byte
)

// Oesim returns the path of an oesim binary built from this module. The
// first call builds it (into a directory that outlives the test that asked,
// since every test of the binary shares it); a build failure fails t.
func Oesim(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "oedl-simtest-")
		if err != nil {
			buildErr = err
			return
		}
		binary = filepath.Join(dir, "oesim")
		cmd := exec.Command("go", "build", "-o", binary, "github.com/oedl/oedl/cmd/oesim")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		buildOut, buildErr = cmd.CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("build oesim: %v\n%s", buildErr, buildOut)
	}
	return binary
}

// Main runs the tests of a package that uses Oesim, then removes the
// binary's directory: it outlives every test (they share it), so no
// test's cleanup can, and each test binary left one in $TMPDIR.
func Main(m *testing.M) {
	code := m.Run()
	if binary != "" {
		_ = os.RemoveAll(filepath.Dir(binary))
	}
	os.Exit(code)
}

// DLC installs oesim into a new directory under dir and returns it.
func DLC(t testing.TB, dir string) string {
	t.Helper()
	dlc := filepath.Join(dir, "dlc")
	Run(t, dlc, dir, Oesim(t), "install", dlc)
	return dlc
}

// Run runs program with DLC set and dir as working directory, failing t
// with the output when it exits non-zero; it returns the combined output.
func Run(t testing.TB, dlc, dir, program string, args ...string) string {
	t.Helper()
	cmd := exec.Command(program, args...)
	cmd.Env = append(os.Environ(), "DLC="+dlc)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", program, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Gen makes an oesim database at db (its directory created) from a
// generator profile at a scale, with a fixed seed, so that a test's
// database is the same on every run.
func Gen(t testing.TB, dlc, dir, db, profile, scale string, seed int) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(db), 0o755); err != nil {
		t.Fatal(err)
	}
	Run(t, dlc, dir, Oesim(t), "gen", "--dlc", dlc, "--db", db, "--profile", profile, "--scale", scale, "--seed", strconv.Itoa(seed))
}
