package cli

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
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
