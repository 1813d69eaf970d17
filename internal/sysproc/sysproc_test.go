package sysproc

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func linuxOnly(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process identity is read from /proc")
	}
}

// sleeper starts a child in its own process group, as execx starts a
// utility, with extra environment.
func sleeper(t *testing.T, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

func TestIdentity(t *testing.T) {
	linuxOnly(t)
	self := Self()
	require.Equal(t, os.Getpid(), self.PID)
	require.NotZero(t, self.Start)
	require.NotEmpty(t, self.Boot)
	assert.True(t, self.Alive())

	tests := []struct {
		name  string
		id    ID
		alive bool
	}{
		{"itself", self, true},
		{"the same PID, another start time (a recycled PID)", ID{PID: self.PID, Start: self.Start + 1, Boot: self.Boot}, false},
		{"the same PID and start, another boot", ID{PID: self.PID, Start: self.Start, Boot: "another-boot"}, false},
		{"no start time: never taken for alive", ID{PID: self.PID}, false},
		{"no such PID", ID{PID: 1 << 30, Start: 1}, false},
		{"PID 0", ID{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.alive, tt.id.Alive()) })
	}
}

// A child killed but not reaped (a zombie) is gone for Alive.
func TestZombieIsNotAlive(t *testing.T) {
	linuxOnly(t)
	cmd := sleeper(t)
	id, err := Of(cmd.Process.Pid)
	require.NoError(t, err)
	require.True(t, id.Alive())
	require.NoError(t, syscall.Kill(cmd.Process.Pid, syscall.SIGKILL))
	assert.Empty(t, WaitGone([]ID{id}, 10*time.Second), "a zombie counts as gone")
}

func TestWithEnvAndSignal(t *testing.T) {
	linuxOnly(t)
	marker := "OEDL_SYSPROC_TEST=" + t.Name()
	a, b := sleeper(t, marker), sleeper(t, marker)
	other := sleeper(t, "OEDL_SYSPROC_TEST=someone-else")
	found := WithEnv("OEDL_SYSPROC_TEST", t.Name())
	pids := map[int]bool{}
	for _, id := range found {
		pids[id.PID] = true
	}
	assert.Equal(t, map[int]bool{a.Process.Pid: true, b.Process.Pid: true}, pids)
	for _, id := range found {
		require.NoError(t, id.Signal(syscall.SIGKILL))
	}
	assert.Empty(t, WaitGone(found, 10*time.Second))
	oid, err := Of(other.Process.Pid)
	require.NoError(t, err)
	assert.True(t, oid.Alive(), "a process without the marker is left alone")

	// Signalling a process that is gone (or a PID given to another
	// process) does nothing.
	stale := found[0]
	assert.NoError(t, stale.Signal(syscall.SIGKILL))
	assert.NoError(t, ID{PID: oid.PID, Start: oid.Start + 1}.Signal(syscall.SIGKILL))
	assert.True(t, oid.Alive(), "a recycled PID is never signalled")
}

// Parse reads a /proc/PID/stat read on another host: the start time after
// a command name that holds spaces and parentheses, and whether the
// process still runs.
func TestParse(t *testing.T) {
	tail := " 1 1234 1234 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000000 200"
	tests := []struct {
		name    string
		stat    string
		start   uint64
		running bool
		bad     bool
	}{
		{"a broker", "4321 (_mprosrv) S" + tail + "\n", 987654, true, false},
		{"a name with spaces and parentheses", "4321 (a) b (c) S" + tail, 987654, true, false},
		{"a zombie", "4321 (_mprosrv) Z" + tail, 987654, false, false},
		{"cut short", "4321 (_mprosrv) S 1 1234", 0, false, true},
		{"no name", "4321 _mprosrv S" + tail, 0, false, true},
		{"a start time not a number", "4321 (x) S" + strings.Replace(tail, "987654", "x", 1), 0, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id, running, err := Parse(4321, []byte(tc.stat), "boot-1\n")
			if tc.bad {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, ID{PID: 4321, Start: tc.start, Boot: "boot-1"}, id)
			assert.Equal(t, tc.running, running)
			assert.True(t, id.Same(id))
			assert.False(t, id.Same(ID{PID: 4321, Start: tc.start + 1, Boot: "boot-1"}), "another start: another process")
			assert.False(t, id.Same(ID{PID: 4321, Start: tc.start, Boot: "boot-2"}), "another boot")
		})
	}
}
