//go:build linux

package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// oscBackgroundQuery is the start of OSC 11 "what is your background
// colour?". bubbletea v1's package init sent it whenever stdout was a
// terminal and waited up to 5 s for an answer, so under a pty that never
// answers (script, expect, some CI consoles and ssh setups) every oedl
// command, --version included, stood still for 5 s before doing anything.
const oscBackgroundQuery = "\x1b]11;?"

// TestNoTerminalQueryOnSilentPty runs oedl (this test binary, re-executed:
// the same packages and so the same package inits as cmd/oedl) on a pty
// that never answers, and reads every byte it writes there: a command that
// shows no live screen asks the terminal nothing.
func TestNoTerminalQueryOnSilentPty(t *testing.T) {
	if args, ok := os.LookupEnv("OEDL_SILENT_PTY_ARGS"); ok {
		os.Exit(Execute(context.Background(), SystemStreams(), strings.Split(args, "\n")))
	}
	for _, tc := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"--version"}, 0, "oedl"},
		{[]string{"--help"}, 0, "Usage:"},
		{[]string{"status", "--no-such-flag"}, ExitUsage, "--no-such-flag"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, code := runOnSilentPty(t, "^TestNoTerminalQueryOnSilentPty$", "OEDL_SILENT_PTY_ARGS="+strings.Join(tc.args, "\n"))
			assert.Equal(t, tc.code, code, "%q", out)
			assert.Contains(t, string(out), tc.says, "it ran")
			assert.NotContains(t, string(out), oscBackgroundQuery, "it asked the terminal for its background colour")
			assert.NotContains(t, string(out), "\x1b[6n", "it asked the terminal where the cursor is")
		})
	}
}

// runOnSilentPty re-executes the test binary, running only test, with env
// added and a new pty as its controlling terminal and stdin, stdout and
// stderr. Nothing is ever written to the pty: it never answers a query. It
// returns all the child wrote and its exit code.
func runOnSilentPty(t *testing.T, test string, env ...string) ([]byte, int) {
	t.Helper()
	master, slave := openPty(t)
	child := exec.Command(os.Args[0], "-test.run="+test)
	child.Env = append(os.Environ(), env...)
	child.Stdin, child.Stdout, child.Stderr = slave, slave, slave
	child.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	require.NoError(t, child.Start())
	t.Cleanup(func() { _ = child.Process.Kill() })
	// Only the child holds the pty's terminal side now: when it exits,
	// reading the master side ends (with EIO, Linux's end of a pty).
	require.NoError(t, slave.Close())
	var out bytes.Buffer
	_, err := io.Copy(&out, master)
	if !errors.Is(err, syscall.EIO) {
		require.NoError(t, err)
	}
	err = child.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.Bytes(), ee.ExitCode()
	}
	require.NoError(t, err)
	return out.Bytes(), 0
}

// openPty opens a new pseudo-terminal pair (what creack/pty does, without
// the dependency).
func openPty(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = master.Close() })
	fd := int(master.Fd())
	require.NoError(t, unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0), "unlockpt")
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	require.NoError(t, err, "ptsname")
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = slave.Close() })
	return master, slave
}
