package execx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The test binary doubles as the utility being run: with EXECX_HELPER set
// it acts as described by its first argument instead of running tests.
func TestMain(m *testing.M) {
	if mode := os.Getenv("EXECX_HELPER"); mode != "" {
		os.Exit(helper(mode, os.Args[1:]))
	}
	os.Exit(m.Run())
}

func helper(mode string, args []string) int {
	switch mode {
	case "args": // one argument per line, as received
		for _, a := range args {
			fmt.Printf("[%s]\n", a)
		}
		return 0
	case "stdin": // echo stdin back, then fail with the code in args[0]
		b, _ := readAll(os.Stdin)
		fmt.Print(string(b))
		code, _ := strconv.Atoi(args[0])
		fmt.Fprintln(os.Stderr, "done on stderr")
		return code
	case "block": // start a grandchild that blocks too, print its pid, block
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "EXECX_HELPER=blockalone")
		if err := cmd.Start(); err != nil {
			return 3
		}
		fmt.Println(cmd.Process.Pid)
		select {}
	case "blockalone":
		select {}
	case "killself": // die by a signal, as a utility killed by the OOM killer or kill -9
		fmt.Println("starting with record 1")
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	return 99
}

func readAll(f *os.File) ([]byte, error) {
	var b bytes.Buffer
	_, err := b.ReadFrom(f)
	return b.Bytes(), err
}

func self(t *testing.T, mode string, args ...string) Cmd {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	return Cmd{Path: exe, Args: args, Env: []string{"EXECX_HELPER=" + mode}}
}

func TestArgvReachesTheProgramUntouched(t *testing.T) {
	awkward := []string{"PUB.my table", `it's "quoted"`, "$(touch pwned)", "`id`", "Ärger_ß", "a;b|c&d", "", "-C", "*"}
	dir := t.TempDir()
	c := self(t, "args", awkward...)
	c.Dir = dir
	res, err := Local{}.Run(context.Background(), c)
	require.NoError(t, err)
	var want strings.Builder
	for _, a := range awkward {
		fmt.Fprintf(&want, "[%s]\n", a)
	}
	assert.Equal(t, want.String(), res.Output)
	assert.NoFileExists(t, dir+"/pwned", "no shell ever saw the arguments")
}

func TestExitStdinAndLog(t *testing.T) {
	tests := []struct {
		name     string
		code     string
		wantErr  bool
		wantExit int
	}{
		{"success", "0", false, 0},
		{"failure", "6", true, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log, live bytes.Buffer
			c := self(t, "stdin", tt.code)
			c.Stdin = "y\ny\n"
			c.Log = &log
			c.Output = &live
			res, err := Local{}.Run(context.Background(), c)
			assert.Equal(t, tt.wantExit, res.ExitCode)
			if tt.wantErr {
				require.ErrorIs(t, err, ErrExit)
				assert.Contains(t, err.Error(), "code "+tt.code)
			} else {
				require.NoError(t, err)
			}
			assert.Contains(t, res.Output, "y\ny\n", "stdin answers reach the utility")
			assert.Contains(t, res.Output, "done on stderr", "stderr is captured with stdout")
			assert.Equal(t, res.Output, live.String(), "Output sees what Result holds")
			assert.True(t, strings.HasPrefix(log.String(), "$ "), "the log starts with the argv")
			assert.Contains(t, log.String(), fmt.Sprintf("[exit %d after", tt.wantExit))
		})
	}
}

func TestTimeoutKillsTheWholeProcessGroup(t *testing.T) {
	var live syncBuffer
	c := self(t, "block")
	c.Timeout = 500 * time.Millisecond
	c.Output = &live
	res, err := Local{}.Run(context.Background(), c)
	require.Error(t, err)
	assert.True(t, res.TimedOut)
	assert.Contains(t, err.Error(), "timed out")
	pid, convErr := strconv.Atoi(strings.TrimSpace(res.Output))
	require.NoError(t, convErr, "the helper printed its grandchild's pid: %q", res.Output)
	assertGone(t, pid)
}

func TestCancelStopsTheUtility(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	c := self(t, "block")
	out := &notifyWriter{first: make(chan struct{})}
	c.Output = out
	done := make(chan error, 1)
	go func() {
		_, err := Local{}.Run(ctx, c)
		done <- err
	}()
	<-out.first // the utility is running
	cancel()
	err := <-done
	assert.True(t, errors.Is(err, context.Canceled), "got %v", err)
}

func TestStartFailure(t *testing.T) {
	res, err := Local{}.Run(context.Background(), Cmd{Path: "/nonexistent/proutil"})
	require.Error(t, err)
	assert.Equal(t, -1, res.ExitCode)
	assert.Contains(t, err.Error(), "/nonexistent/proutil")
}

func TestQuote(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		{[]string{"proutil", "/db/prod", "-C", "dump", "PUB.customer", "/dl/dump"}, "proutil /db/prod -C dump PUB.customer /dl/dump"},
		{[]string{"proutil", "db", "-C", "tablemove", "PUB.x", "Area 8"}, "proutil db -C tablemove PUB.x 'Area 8'"},
		{[]string{"echo", "it's"}, `echo 'it'\''s'`},
		{[]string{"echo", ""}, "echo ''"},
		{[]string{"echo", "$(rm -rf /)"}, "echo '$(rm -rf /)'"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Quote(tt.argv))
	}
}

// assertGone checks that pid no longer runs (signal 0 fails once the
// process is gone; a zombie of another parent may linger briefly, so it
// polls a bounded number of times).
func assertGone(t *testing.T, pid int) {
	t.Helper()
	for range 200 {
		if err := syscall.Kill(pid, 0); err != nil {
			return
		}
		if isZombie(pid) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("grandchild %d still runs after the timeout", pid)
}

func isZombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	fields := strings.Fields(string(b))
	return len(fields) > 2 && fields[2] == "Z"
}

// Started gets the utility's process ID while it runs (progress probes
// read its /proc entries).
func TestStartedGetsThePID(t *testing.T) {
	var pid int
	res, err := Local{}.Run(context.Background(), Cmd{Path: "/bin/sh", Args: []string{"-c", "echo $$"},
		Started: func(p int) { pid = p }})
	require.NoError(t, err)
	assert.Positive(t, pid)
	assert.Equal(t, strconv.Itoa(pid), strings.TrimSpace(res.Output))
}

// A utility killed by a signal is told as such: the signal, not the -1
// exit code Go reports for it.
func TestKilledBySignal(t *testing.T) {
	var log bytes.Buffer
	c := self(t, "killself")
	c.Log = &log
	res, err := Local{}.Run(context.Background(), c)
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrExit)
	assert.Equal(t, syscall.SIGKILL, res.Signal)
	assert.Contains(t, err.Error(), "killed by signal 9 (SIGKILL)")
	assert.Contains(t, log.String(), "[killed by signal 9 (SIGKILL) after")
	assert.False(t, res.TimedOut)
}
