// Package execx runs OpenEdge utilities. Commands are argv slices, never
// shell strings: table and area names can contain spaces, quotes, $(...) or
// non-ASCII letters and must reach the utility untouched.
//
// Every call runs in its own process group, so that cancelling it (Ctrl-C,
// a timeout) stops the utility and anything it started, and its argv,
// output, exit code and timing can be appended to a per-job log.
package execx

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
	"time"
)

// Cmd is one utility call.
type Cmd struct {
	Path string   // program: absolute, or resolved by the Runner (e.g. $DLC/bin/proutil)
	Args []string // arguments after the program name
	Dir  string   // working directory; "" = current
	Env  []string // extra KEY=VALUE entries on top of the process environment
	// Stdin answers the utility's prompts ("y\n" for idxbuild's questions).
	Stdin string
	// Timeout ends the call (and its process group) when it runs longer;
	// 0 = no limit besides the context.
	Timeout time.Duration
	// Started, when set, is called with the process ID once the program
	// has started (progress probes read its /proc entries).
	Started func(pid int)
	// Log, when set, receives the argv, then the combined output as it
	// comes, then the exit status and elapsed time.
	Log io.Writer
	// Output, when set, also receives the combined output as it comes
	// (progress parsing).
	Output io.Writer
	// StdinFrom, when set, is the program's standard input instead of
	// Stdin (a file streamed to it).
	StdinFrom io.Reader
	// Stdout, when set, receives the program's standard output alone, as
	// it comes (a file streamed from it); the combined output, Log and
	// Output then carry its standard error only.
	Stdout io.Writer
	// RemoteStarted, when set, is called with the process ID of a remote
	// call's utility on its host once it has started (a runner for
	// another machine: Started is for this machine's processes); the
	// PID its lines in a database's log carry.
	RemoteStarted func(pid int)
}

// Result is what a call left behind.
type Result struct {
	Output   string // combined stdout and stderr
	ExitCode int    // -1 when the process did not exit normally
	// Signal is the signal that ended the process (9 for a kill -9, an
	// OOM kill or oedl's own timeout), 0 when it exited by itself.
	Signal   syscall.Signal
	Elapsed  time.Duration
	TimedOut bool
}

// Runner runs commands. Local runs them on this machine; tests may fake it.
type Runner interface {
	Run(ctx context.Context, c Cmd) (Result, error)
}

// ErrExit is wrapped by the error of a call that exited non-zero.
var ErrExit = errors.New("non-zero exit")

// Local runs commands as child processes of this one.
type Local struct{}

// Run starts c, waits for it and returns its output. The error is non-nil
// when the program could not start, exited non-zero (wrapping ErrExit),
// timed out or was cancelled; Result is filled in all cases.
func (Local) Run(ctx context.Context, c Cmd) (Result, error) {
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	var out bytes.Buffer
	writers := []io.Writer{&out}
	if c.Log != nil {
		fmt.Fprintf(c.Log, "$ %s\n", Quote(append([]string{c.Path}, c.Args...)))
		writers = append(writers, c.Log)
	}
	if c.Output != nil {
		writers = append(writers, c.Output)
	}
	w := &lockedWriter{w: io.MultiWriter(writers...)}
	cmd := exec.Command(c.Path, c.Args...)
	cmd.Dir = c.Dir
	cmd.Env = append(os.Environ(), c.Env...)
	cmd.Stdin = strings.NewReader(c.Stdin)
	if c.StdinFrom != nil {
		cmd.Stdin = c.StdinFrom
	}
	cmd.Stdout = w
	if c.Stdout != nil {
		cmd.Stdout = c.Stdout
	}
	cmd.Stderr = w
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Result{ExitCode: -1}, fmt.Errorf("start %s: %w", c.Path, err)
	}
	if c.Started != nil {
		c.Started(cmd.Process.Pid)
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			// The whole group: the utility and anything it started.
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		case <-done:
		}
	}()
	waitErr := cmd.Wait()
	close(done)
	res := Result{Output: out.String(), ExitCode: cmd.ProcessState.ExitCode(), Elapsed: time.Since(start)}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		res.Signal = ws.Signal()
	}
	res.TimedOut = errors.Is(ctx.Err(), context.DeadlineExceeded)
	if c.Log != nil {
		if res.Signal != 0 {
			fmt.Fprintf(c.Log, "[killed by signal %d (%s) after %s]\n", int(res.Signal), SignalName(res.Signal), res.Elapsed.Round(time.Millisecond))
		} else {
			fmt.Fprintf(c.Log, "[exit %d after %s]\n", res.ExitCode, res.Elapsed.Round(time.Millisecond))
		}
	}
	switch {
	case res.TimedOut:
		return res, fmt.Errorf("%s timed out after %s", c.Path, c.Timeout)
	case ctx.Err() != nil:
		return res, ctx.Err()
	case waitErr != nil && res.Signal != 0:
		return res, fmt.Errorf("%s killed by signal %d (%s): %w", c.Path, int(res.Signal), SignalName(res.Signal), ErrExit)
	case waitErr != nil:
		var ee *exec.ExitError
		if errors.As(waitErr, &ee) {
			return res, fmt.Errorf("%s exited with code %d: %w", c.Path, res.ExitCode, ErrExit)
		}
		return res, waitErr
	}
	return res, nil
}

// Quote renders argv for a log line so that a person can paste it into a
// POSIX shell: words with anything but safe characters are single-quoted.
// It is for display only; commands are never run through a shell.
func Quote(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		parts[i] = quoteWord(a)
	}
	return strings.Join(parts, " ")
}

func quoteWord(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, r := range s {
		if !(r == '/' || r == '.' || r == '-' || r == '_' || r == '=' || r == ':' || r == ',' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
