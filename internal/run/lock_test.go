package run

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/sysproc"
)

// TestLockDiesWithItsHolder: the work directory's lock is the process's,
// not its descriptor's. A holder (this test binary, re-executed) takes it
// and starts a child that inherits the lock file's descriptor on purpose,
// as a child caught between fork and exec does; kill -9 of the holder
// frees the lock at once, while the child lives on.
func TestLockDiesWithItsHolder(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process identity is read from /proc")
	}
	if dir := os.Getenv("OEDL_LOCK_HOLDER"); dir != "" {
		holdLockAndFork(dir)
		return
	}
	dir := t.TempDir()
	holder := exec.Command(os.Args[0], "-test.run=^TestLockDiesWithItsHolder$")
	holder.Env = append(os.Environ(), "OEDL_LOCK_HOLDER="+dir)
	out, err := holder.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, holder.Start())
	t.Cleanup(func() { _ = holder.Process.Kill(); _ = holder.Wait() })
	sc := bufio.NewScanner(out)
	var child int
	for sc.Scan() {
		if n, ok := parsePID(sc.Text()); ok {
			child = n
			break
		}
	}
	require.NotZero(t, child, "the holder never started its child")
	childID, err := sysproc.Of(child)
	require.NoError(t, err)
	t.Cleanup(func() { _ = syscall.Kill(child, syscall.SIGKILL) })

	held, known := lockHeld(dir)
	require.True(t, known)
	require.True(t, held, "the holder holds the lock")
	_, err = lockWork(dir, "run")
	require.Error(t, err, "a second oedl is refused")

	require.NoError(t, holder.Process.Kill())
	_ = holder.Wait()
	require.True(t, childID.Alive(), "the child that has the descriptor lives on")
	held, _ = lockHeld(dir)
	assert.False(t, held, "the lock died with its holder, not with the last copy of its descriptor")
	unlock, err := lockWork(dir, "run")
	require.NoError(t, err, "a resume takes the lock at once")
	unlock()
}

// holdLockAndFork is the holder: it takes the lock, starts a child that
// inherits the lock file's descriptor, prints the child's PID and waits
// to be killed.
func holdLockAndFork(dir string) {
	if _, err := lockWork(dir, "run"); err != nil {
		os.Exit(3)
	}
	// The very descriptor lockWork holds (the same open file), found
	// through /proc, never closed here (closing it would drop the lock).
	f := lockDescriptor(filepath.Join(dir, LockFile))
	if f == nil {
		os.Exit(4)
	}
	child := exec.Command("sleep", "60")
	child.ExtraFiles = []*os.File{f}
	if err := child.Start(); err != nil {
		os.Exit(5)
	}
	os.Stdout.WriteString("child " + strconv.Itoa(child.Process.Pid) + "\n")
	time.Sleep(time.Hour)
}

// lockDescriptor is this process's open descriptor of path.
func lockDescriptor(path string) *os.File {
	fds, _ := os.ReadDir("/proc/self/fd")
	for _, fd := range fds {
		if target, err := os.Readlink("/proc/self/fd/" + fd.Name()); err == nil && target == path {
			n, _ := strconv.Atoi(fd.Name())
			return os.NewFile(uintptr(n), path)
		}
	}
	return nil
}

func parsePID(line string) (int, bool) {
	var n int
	_, err := fmt.Sscanf(line, "child %d", &n)
	return n, err == nil && n > 0
}

// TestWorkFilesNeverThroughALink: the lock, the logs and the journal of a
// work directory are opened without following a link, so one planted
// there (a resume's work directory is not checked again) cannot make oedl
// truncate or append to a database's file.
func TestWorkFilesNeverThroughALink(t *testing.T) {
	open := map[string]func(path string) error{
		LockFile: func(path string) error {
			unlock, err := lockWork(filepath.Dir(path), "run")
			if err == nil {
				unlock()
			}
			return err
		},
		LogFile: func(path string) error {
			f, err := OpenWorkLog(path)
			if err == nil {
				f.Close()
			}
			return err
		},
		journal.FileName: func(path string) error {
			w, _, err := journal.Open(path)
			if err == nil {
				w.Close()
			}
			return err
		},
	}
	// A hard link is the file itself under a second name (safety trial
	// 5): no O_ flag keeps it out, its count of names does.
	link := map[string]func(oldname, newname string) error{"symbolic link": os.Symlink, "hard link": os.Link}
	for name, openIt := range open {
		for how, makeLink := range link {
			t.Run(name+" "+how, func(t *testing.T) {
				extent := filepath.Join(t.TempDir(), "prod_7.d1")
				require.NoError(t, os.WriteFile(extent, []byte("the source's data"), 0o644))
				work := t.TempDir()
				require.NoError(t, makeLink(extent, filepath.Join(work, name)))
				assert.Error(t, openIt(filepath.Join(work, name)))
				got, err := os.ReadFile(extent)
				require.NoError(t, err)
				assert.Equal(t, "the source's data", string(got))
			})
		}
	}
}
