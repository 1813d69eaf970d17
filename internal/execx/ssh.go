package execx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// SSH runs commands on another machine through the OpenSSH client, all
// of them over one connection: a master (ssh -M -N) that this process
// starts and owns, and one multiplexed session per call (ControlMaster),
// so that a call costs no new handshake and a host sees one login per
// oedl invocation. Why OpenSSH and not golang.org/x/crypto/ssh: the DBA's
// own ssh setup (ssh_config Host aliases, ProxyJump, certificates,
// agents, GSSAPI, hardware keys, known_hosts with @cert-authority and
// @revoked) works as it is, and every call in a log can be repeated by
// hand with ssh (docs/decisions.md).
//
// Every connection runs in batch mode (no prompt for a password or a
// host key: oedl runs unattended) and checks the host key against
// known_hosts (StrictHostKeyChecking=yes: an unknown or changed key is a
// refusal, never trust on first use). A call never opens a connection of
// its own: if the master is gone the call's ssh has no way to connect
// (ProxyCommand=false) and the runner starts a new master first.
type SSH struct {
	Dest string // ssh destination: user@host or an ssh_config alias
	Opts SSHOptions

	mu      sync.Mutex
	master  *exec.Cmd
	dead    chan struct{} // closed when the master has exited
	errLog  string        // the master's stderr, for the error when it dies
	dir     string        // private directory of the control socket
	closed  bool
	session chan struct{} // bounds the sessions open at once
}

// SSHOptions are the settings of a connection.
type SSHOptions struct {
	Program        string // the ssh client; "" = "ssh" from PATH
	Config         string // ssh -F; "" = the user's own configuration
	AliveInterval  time.Duration
	AliveCount     int
	ConnectTimeout time.Duration
	// Sessions bounds the calls open at once over the connection: sshd
	// refuses more than its MaxSessions (default 10). One more is kept
	// for stopping a cancelled call.
	Sessions int
}

// HostError is a call that could not reach its host: the connection
// could not be made or was lost while the call ran (ssh's exit status
// 255 with no status line from the remote shell).
type HostError struct {
	Dest string
	Err  error
}

func (e *HostError) Error() string { return fmt.Sprintf("host %s: %v", e.Dest, e.Err) }
func (e *HostError) Unwrap() error { return e.Err }

// NewSSH returns a runner for dest; the connection is made by the first
// call (or Connect).
func NewSSH(dest string, o SSHOptions) *SSH {
	if o.Program == "" {
		o.Program = "ssh"
	}
	if o.AliveInterval <= 0 {
		o.AliveInterval = 5 * time.Second
	}
	if o.AliveCount <= 0 {
		o.AliveCount = 3
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = 15 * time.Second
	}
	if o.Sessions <= 1 {
		o.Sessions = 10
	}
	return &SSH{Dest: dest, Opts: o, session: make(chan struct{}, o.Sessions-1)}
}

// common are the options of the master and of every call.
func (s *SSH) common() []string {
	var a []string
	if s.Opts.Config != "" {
		a = append(a, "-F", s.Opts.Config)
	}
	return append(a,
		"-o", "BatchMode=yes",
		"-o", "StrictHostKeyChecking=yes",
		"-o", "ControlPath="+s.socket(),
		"-o", "LogLevel=ERROR",
	)
}

func (s *SSH) socket() string { return filepath.Join(s.dir, "master") }

// Connect makes sure the master connection is up, starting it when it is
// not. The error is a *HostError.
func (s *SSH) Connect(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return &HostError{Dest: s.Dest, Err: errors.New("connection closed")}
	}
	if s.master != nil {
		select {
		case <-s.dead:
			s.master = nil // lost: start another
		default:
			return nil
		}
	}
	if s.dir == "" {
		// The socket's path must stay short (sun_path is 108 bytes) and
		// private to this user: a directory of its own under /tmp.
		dir, err := os.MkdirTemp("", "oedl-ssh-")
		if err != nil {
			return &HostError{Dest: s.Dest, Err: err}
		}
		s.dir = dir
	}
	_ = os.Remove(s.socket())
	errFile, err := os.CreateTemp(s.dir, "master-*.err")
	if err != nil {
		return &HostError{Dest: s.Dest, Err: err}
	}
	s.errLog = errFile.Name()
	args := append(s.common(),
		"-o", "ControlMaster=yes",
		"-o", "ControlPersist=no",
		"-o", "ServerAliveInterval="+seconds(s.Opts.AliveInterval),
		"-o", "ServerAliveCountMax="+strconv.Itoa(s.Opts.AliveCount),
		"-o", "ConnectTimeout="+seconds(s.Opts.ConnectTimeout),
		"-N", "-T", "--", s.Dest)
	master := exec.Command(s.Opts.Program, args...)
	master.Stdin, master.Stdout, master.Stderr = nil, errFile, errFile
	master.SysProcAttr = masterAttr()
	dead := make(chan struct{})
	started := make(chan error, 1)
	go holdMaster(master, started, dead)
	err = <-started
	errFile.Close()
	if err != nil {
		return &HostError{Dest: s.Dest, Err: fmt.Errorf("start %s: %w", s.Opts.Program, err)}
	}
	// Ready once the control socket exists (ssh creates it after the
	// login); a master that exits first failed to log in.
	deadline := time.NewTimer(s.Opts.ConnectTimeout + 5*time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := os.Stat(s.socket()); err == nil {
			s.master, s.dead = master, dead
			return nil
		}
		select {
		case <-dead:
			return &HostError{Dest: s.Dest, Err: fmt.Errorf("cannot connect: %s", s.masterError())}
		case <-ctx.Done():
			_ = master.Process.Kill()
			<-dead
			return &HostError{Dest: s.Dest, Err: ctx.Err()}
		case <-deadline.C:
			_ = master.Process.Kill()
			<-dead
			return &HostError{Dest: s.Dest, Err: fmt.Errorf("no connection after %s: %s", s.Opts.ConnectTimeout+5*time.Second, s.masterError())}
		case <-tick.C:
		}
	}
}

// masterError is the last line ssh wrote about the connection.
func (s *SSH) masterError() string {
	data, _ := os.ReadFile(s.errLog)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if last := strings.TrimSpace(lines[len(lines)-1]); last != "" {
		return last
	}
	return "ssh exited without a message"
}

// Close ends the connection (sessions still open end with it) and
// removes the socket's directory.
func (s *SSH) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.master != nil {
		_ = s.master.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.dead:
		case <-time.After(5 * time.Second):
			_ = s.master.Process.Kill()
			<-s.dead
		}
		s.master = nil
	}
	if s.dir != "" {
		return os.RemoveAll(s.dir)
	}
	return nil
}

// Run runs c on the remote machine: its argv quoted for the remote
// shell, in c.Dir, with c.Env set (the remote environment is the
// account's, not this process's). Cancelling ctx or passing c.Timeout
// kills the remote process group as well as the local client.
func (s *SSH) Run(ctx context.Context, c Cmd) (Result, error) {
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	argv := append([]string{c.Path}, c.Args...)
	script, err := RemoteScript(c.Dir, c.Env, argv, c.Stdout == nil)
	if err != nil {
		return Result{ExitCode: -1}, err
	}
	if err := s.Connect(ctx); err != nil {
		return Result{ExitCode: -1}, err
	}
	select {
	case s.session <- struct{}{}:
		defer func() { <-s.session }()
	case <-ctx.Done():
		return Result{ExitCode: -1, TimedOut: errors.Is(ctx.Err(), context.DeadlineExceeded)}, ctx.Err()
	}

	var out bytes.Buffer
	writers := []io.Writer{&out}
	if c.Log != nil {
		where := s.Dest
		if c.Dir != "" {
			where += " in " + c.Dir
		}
		fmt.Fprintf(c.Log, "$ %s  # on %s\n", Quote(argv), where)
		writers = append(writers, c.Log)
	}
	if c.Output != nil {
		writers = append(writers, c.Output)
	}
	w := &lockedWriter{w: io.MultiWriter(writers...)}
	stderr := &remoteStderr{out: func(p []byte) { _, _ = w.Write(p) }, started: c.RemoteStarted}

	args := append(s.common(), "-o", "ControlMaster=no", "-o", "ProxyCommand=false", "-T", "--", s.Dest, script)
	cmd := exec.Command(s.Opts.Program, args...)
	switch {
	case c.StdinFrom != nil:
		cmd.Stdin = c.StdinFrom
	default:
		cmd.Stdin = strings.NewReader(c.Stdin)
	}
	if c.Stdout != nil {
		cmd.Stdout = c.Stdout
	} else {
		cmd.Stdout = w
	}
	cmd.Stderr = stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Result{ExitCode: -1}, fmt.Errorf("start %s: %w", s.Opts.Program, err)
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		select {
		case <-ctx.Done():
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			s.killRemote(stderr)
		case <-done:
		}
	}()
	waitErr := cmd.Wait()
	close(done)
	<-stopped
	stderr.close()
	res := Result{Output: out.String(), ExitCode: cmd.ProcessState.ExitCode(), Elapsed: time.Since(start)}
	res.TimedOut = errors.Is(ctx.Err(), context.DeadlineExceeded)
	if stderr.sawExit {
		res.ExitCode = stderr.exit
	}
	if c.Log != nil {
		fmt.Fprintf(c.Log, "[exit %d after %s]\n", res.ExitCode, res.Elapsed.Round(time.Millisecond))
	}
	switch {
	case res.TimedOut:
		return res, fmt.Errorf("%s on %s timed out after %s", c.Path, s.Dest, c.Timeout)
	case ctx.Err() != nil:
		return res, ctx.Err()
	case !stderr.sawExit && waitErr != nil:
		// No status line: the session ended before the remote shell
		// could say how the utility ended.
		return res, &HostError{Dest: s.Dest, Err: s.lost(stderr.sawPID)}
	case res.ExitCode != 0:
		return res, fmt.Errorf("%s exited with code %d on %s: %w", c.Path, res.ExitCode, s.Dest, ErrExit)
	}
	return res, nil
}

// masterGrace is how long a session that ended without its status line
// waits for its master to show whether the connection itself was lost.
const masterGrace = 2 * time.Second

// lost says why a session ended without its status line. A session
// multiplexed over a master that lost its connection ends at the same
// moment as the master, often a little before the master has exited:
// the master is given a moment (masterGrace) before the session is
// judged on its own.
func (s *SSH) lost(started bool) error {
	s.mu.Lock()
	master, dead := s.master, s.dead
	s.mu.Unlock()
	gone := master == nil
	if !gone {
		select {
		case <-dead:
			gone = true
		case <-time.After(masterGrace):
		}
	}
	switch {
	case gone:
		return fmt.Errorf("the connection was lost (%s)", s.masterError())
	case started:
		return errors.New("the remote command was killed before it could report its status")
	}
	return errors.New("the session could not start")
}

// killRemote kills the process group of a cancelled call on its host,
// over the connection (the call's own session may be stuck), with a
// short bound of its own: a host that does not answer has its utilities
// found by a resume instead.
func (s *SSH) killRemote(stderr *remoteStderr) {
	stderr.mu.Lock()
	pid := stderr.pid
	stderr.mu.Unlock()
	if pid <= 1 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	args := append(s.common(), "-o", "ControlMaster=no", "-o", "ProxyCommand=false", "-T", "--", s.Dest,
		"kill -KILL -- -"+strconv.Itoa(pid)+" 2>/dev/null; kill -KILL "+strconv.Itoa(pid)+" 2>/dev/null; true")
	_ = exec.CommandContext(ctx, s.Opts.Program, args...).Run()
}

func seconds(d time.Duration) string {
	return strconv.Itoa(max(1, int((d+time.Second-1)/time.Second)))
}
