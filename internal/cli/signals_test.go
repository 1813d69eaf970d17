package cli

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStopSignals: Ctrl-C, SIGTERM and SIGHUP (the terminal or the ssh
// session gone) end oedl's context, so that a run stops cleanly, journals
// its end and shuts its brokers down. SIGHUP killed oedl at once, leaving
// its utilities running. The test binary, re-executed, waits on the
// context Main uses and exits 0 once it ends.
func TestStopSignals(t *testing.T) {
	if os.Getenv("OEDL_STOP_SIGNALS_CHILD") != "" {
		ctx, stop := stopContext()
		defer stop()
		os.Stdout.WriteString("ready\n")
		<-ctx.Done()
		os.Exit(0)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			if sig == syscall.SIGHUP && signal.Ignored(syscall.SIGHUP) {
				// The child inherits the ignored SIGHUP (this test run under
				// nohup, or a job control shell) and keeps it ignored by design
				// (TestNohupKeepsTheRunGoing): it would wait for ever, orphaned
				// with any lock the test binary inherited.
				t.Skip("SIGHUP is ignored in this process, so in the child too")
			}
			child := exec.Command(os.Args[0], "-test.run=^TestStopSignals$")
			child.Env = append(os.Environ(), "OEDL_STOP_SIGNALS_CHILD=1")
			out, err := child.StdoutPipe()
			require.NoError(t, err)
			require.NoError(t, child.Start())
			t.Cleanup(func() { _ = child.Process.Kill() })
			line, err := bufio.NewReader(out).ReadString('\n')
			require.NoError(t, err)
			require.Equal(t, "ready\n", line)
			require.NoError(t, child.Process.Signal(sig))
			err = child.Wait()
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				assert.Fail(t, "the signal killed it instead of ending its context", "%v", ee)
			}
			assert.NoError(t, err)
		})
	}
}

// TestClosedStdoutDoesNotKillOEDL: a --json consumer that goes away (jq
// killed, `| head`, a log shipper restarted) closes oedl's stdout. Go's
// runtime killed oedl with SIGPIPE at its next write to fd 1 or 2 (exit
// 141, no message, in the middle of the outage); now the write fails with
// EPIPE, which the JSON printer keeps (tui.JSON.Err) and the run goes on.
// The test binary, re-executed, writes to a stdout whose reader is closed
// and exits 0 once a write fails.
func TestClosedStdoutDoesNotKillOEDL(t *testing.T) {
	if os.Getenv("OEDL_CLOSED_STDOUT_CHILD") != "" {
		_, stop := stopContext()
		defer stop()
		os.Stdout.WriteString("ready\n")
		bufio.NewReader(os.Stdin).ReadString('\n') // the parent has closed its end of stdout
		for {
			if _, err := os.Stdout.WriteString("event\n"); err != nil {
				os.Stderr.WriteString("write failed: " + err.Error() + "\n")
				os.Exit(0)
			}
		}
	}
	child := exec.Command(os.Args[0], "-test.run=^TestClosedStdoutDoesNotKillOEDL$")
	child.Env = append(os.Environ(), "OEDL_CLOSED_STDOUT_CHILD=1")
	out, err := child.StdoutPipe()
	require.NoError(t, err)
	in, err := child.StdinPipe()
	require.NoError(t, err)
	var stderr strings.Builder
	child.Stderr = &stderr
	require.NoError(t, child.Start())
	t.Cleanup(func() { _ = child.Process.Kill() })
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "ready\n", line)
	require.NoError(t, out.(io.Closer).Close())
	_, err = in.Write([]byte("go\n"))
	require.NoError(t, err)
	err = child.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		assert.Fail(t, "a closed stdout killed it", "%v; stderr: %s", ee, stderr.String())
	}
	assert.NoError(t, err)
	assert.Contains(t, stderr.String(), "broken pipe")
}

// TestNohupKeepsTheRunGoing: started under nohup (docs/run.md: how to
// keep a run going without its terminal), oedl must not stop when the
// terminal goes away. Taking SIGHUP with signal.Notify undid nohup's
// SIG_IGN, and the ssh session that dropped stopped the run. The test
// binary, re-executed under nohup, is sent SIGHUP and then SIGTERM: its
// context must end for the SIGTERM only.
func TestNohupKeepsTheRunGoing(t *testing.T) {
	if os.Getenv("OEDL_NOHUP_CHILD") != "" {
		ctx, stop := stopContext()
		defer stop()
		os.Stdout.WriteString("ready\n")
		<-ctx.Done()
		os.Stdout.WriteString(context.Cause(ctx).Error() + "\n")
		os.Exit(0)
	}
	nohup, err := exec.LookPath("nohup")
	if err != nil {
		t.Skip("no nohup here")
	}
	child := exec.Command(nohup, os.Args[0], "-test.run=^TestNohupKeepsTheRunGoing$")
	child.Env = append(os.Environ(), "OEDL_NOHUP_CHILD=1")
	out, err := child.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, child.Start())
	t.Cleanup(func() { _ = child.Process.Kill() })
	r := bufio.NewReader(out)
	line, err := r.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "ready\n", line)
	require.NoError(t, child.Process.Signal(syscall.SIGHUP))
	// The SIGHUP, delivered or not, is behind us once a later signal is
	// seen: signals to one process are taken in the order sent here.
	require.NoError(t, child.Process.Signal(syscall.SIGTERM))
	line, err = r.ReadString('\n')
	require.NoError(t, err)
	assert.Contains(t, line, "terminated", "the context ended for SIGTERM, not for the ignored SIGHUP")
	require.NoError(t, child.Wait())
}
