package execx

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"al.essio.dev/pkg/shellescape"
)

// The remote command line. sshd hands one string to the login shell of
// the account (sh -c STRING), so argv is quoted word by word for a POSIX
// shell (al.essio.dev/pkg/shellescape, Python's shlex.quote) and wrapped
// in a few lines of POSIX sh that tell oedl the utility's process group
// and its exit status:
//
//	printf 'oedl-pid=%s\n' "$$" >&2; cd DIR || exit 126; sh -c 'printf "oedl-utility=%s\n" "$$" >&3; exec 3>&- "$@"' sh env K=V PROG ARGS 3>&2; rc=$?; printf '\noedl-exit=%s\n' "$rc" >&2; exit "$rc"
//
// sshd starts every session in a new session and process group (setsid),
// with that shell as its leader: "$$" is the group to kill when the call
// is cancelled or times out (killing the local ssh client does not stop
// the remote utility), and the status line tells a utility that ended
// (with its code, 128+N for signal N) from a connection that was lost or
// a shell that was killed (no status line: ssh exits 255). Between them,
// the utility's own PID (oedl-utility=, printed by a shell that then
// execs it), which its lines in a database's log carry. The lines go
// to stderr, so that stdout stays the utility's own bytes (a file
// streamed from it). The utility's own stderr goes into its stdout
// (2>&1) unless its stdout is such a stream: one channel keeps the order
// of its lines. What else reaches stderr is the remote shell's own word
// (a "Killed" notice, a cd that failed) and joins the output.

const (
	pidMarker     = "oedl-pid="
	utilityMarker = "oedl-utility="
	exitMarker    = "oedl-exit="
)

// RemoteScript is the command line an SSH runner sends for argv, run in
// dir ("" = the login directory) with env (KEY=VALUE) set; merge sends
// the utility's stderr into its stdout.
func RemoteScript(dir string, env, argv []string, merge bool) (string, error) {
	for _, w := range append(append([]string{dir}, env...), argv...) {
		if strings.IndexByte(w, 0) >= 0 {
			return "", fmt.Errorf("a word holds a NUL byte, which no command line can carry: %q", w)
		}
	}
	if len(argv) == 0 {
		return "", fmt.Errorf("no program")
	}
	var b strings.Builder
	b.WriteString(`printf '` + pidMarker + `%s\n' "$$" >&2; `)
	if dir != "" {
		b.WriteString("cd " + ShellQuote(dir) + " || exit 126; ")
	}
	// The utility's own PID, which its lines in a database's log carry
	// (the resume of a killed run tells the run's processes from a DBA's
	// by it): a shell of its own prints its $$ and execs the utility,
	// which keeps it.
	b.WriteString(`sh -c 'printf "` + utilityMarker + `%s\n" "$$" >&3; exec 3>&- "$@"' sh `)
	if len(env) > 0 {
		// env(1) sets them for the program alone; a KEY=VALUE word
		// first in a command would be taken by the shell the same way,
		// but env also runs a program whose name holds '='.
		b.WriteString("env")
		for _, kv := range env {
			b.WriteString(" " + ShellQuote(kv))
		}
		b.WriteString(" ")
	}
	b.WriteString(ShellQuoteArgv(argv))
	// The stderr the wrapper's lines go to, whatever the utility's is.
	b.WriteString(" 3>&2")
	if merge {
		// One stream, in the order the utility wrote it (stdout and
		// stderr are two channels of the session, and would interleave
		// by chance).
		b.WriteString(" 2>&1")
	}
	b.WriteString(`; rc=$?; printf '\n` + exitMarker + `%s\n' "$rc" >&2; exit "$rc"`)
	return b.String(), nil
}

// ShellQuote quotes one word for a POSIX shell, so that it reaches the
// program untouched whatever it holds (spaces, quotes, $(...), `...`,
// globs, non-ASCII, newlines). A word beginning with '=' is quoted too:
// zsh would replace "=name" with the path of the command name.
func ShellQuote(s string) string {
	if strings.HasPrefix(s, "=") || strings.HasPrefix(s, "~") {
		return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
	}
	return shellescape.Quote(s)
}

// ShellQuoteArgv quotes every word of argv and joins them with spaces.
func ShellQuoteArgv(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = ShellQuote(a)
	}
	return strings.Join(q, " ")
}

// remoteStderr takes the wrapper's lines out of the remote stderr and
// passes everything else on: the pid line (written before the utility
// runs: only the login shell's own noise can come before it), right after
// it the utility's line (its PID, printed by the shell that execs it: a
// cd that failed, the one thing that could write between them, exits),
// and the status line (written after it ends, after a newline of its own
// so that it starts a line even when the utility's last line did not
// end).
type remoteStderr struct {
	out     func([]byte) // the utility's stderr
	started func(pid int)

	mu      sync.Mutex
	head    []byte // bytes before the pid and utility lines were complete
	sawPID  bool
	pid     int
	sawHead bool   // the pid line and the utility's line (or what came instead) are past
	tail    []byte // a possible status line, held until the stream ends
	exit    int
	sawExit bool
}

var statusLine = []byte("\n" + exitMarker)

func (r *remoteStderr) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(p)
	if !r.sawHead {
		r.head = append(r.head, p...)
		if !r.readHead() {
			return n, nil
		}
		p, r.head = r.head, nil
	}
	return n, r.flush(p)
}

// readHead takes the pid line and the utility's line from the start of
// the stream, passing the shell's noise before them on; false while more
// bytes are needed to tell.
func (r *remoteStderr) readHead() bool {
	for !r.sawPID {
		i := bytes.IndexByte(r.head, '\n')
		if i < 0 {
			if len(r.head) > 4096 { // no pid line: pass everything on
				r.sawPID, r.sawHead = true, true
				return true
			}
			return false
		}
		line := string(r.head[:i])
		if pid, err := strconv.Atoi(strings.TrimPrefix(line, pidMarker)); err == nil && strings.HasPrefix(line, pidMarker) {
			r.sawPID, r.pid = true, pid
		} else {
			r.emit(r.head[:i+1])
		}
		r.head = r.head[i+1:]
	}
	k := min(len(r.head), len(utilityMarker))
	if !bytes.HasPrefix(r.head, []byte(utilityMarker[:k])) {
		r.sawHead = true // no utility line: what follows is the stream
		return true
	}
	i := bytes.IndexByte(r.head, '\n')
	if k < len(utilityMarker) || i < 0 {
		if len(r.head) > 64 {
			r.sawHead = true
			return true
		}
		return false
	}
	r.sawHead = true
	if pid, err := strconv.Atoi(string(r.head[len(utilityMarker):i])); err == nil {
		r.head = r.head[i+1:]
		if r.started != nil {
			r.started(pid)
		}
	}
	return true
}

// flush passes p on, holding back the end of the stream that is or may
// become the status line.
func (r *remoteStderr) flush(p []byte) error {
	buf := append(r.tail, p...)
	hold := len(buf)
	last := bytes.LastIndexByte(buf, '\n')
	var cands []int
	if last >= 0 {
		if prev := bytes.LastIndexByte(buf[:last], '\n'); last == len(buf)-1 && prev >= 0 {
			cands = append(cands, prev)
		}
		cands = append(cands, last)
	}
	for _, i := range cands {
		rest := buf[i:]
		if bytes.HasPrefix(rest, statusLine) || bytes.HasPrefix(statusLine, rest) {
			hold = i
			break
		}
	}
	r.emit(buf[:hold])
	r.tail = append([]byte(nil), buf[hold:]...)
	return nil
}

func (r *remoteStderr) emit(p []byte) {
	if len(p) > 0 {
		r.out(p)
	}
}

// close ends the stream: a complete status line is taken, anything else
// held back is the utility's.
func (r *remoteStderr) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.emit(r.head)
	r.head = nil
	t := string(r.tail)
	if body, ok := strings.CutPrefix(t, string(statusLine)); ok && strings.HasSuffix(body, "\n") {
		if code, err := strconv.Atoi(strings.TrimSuffix(body, "\n")); err == nil {
			r.exit, r.sawExit, r.tail = code, true, nil
			return
		}
	}
	r.emit(r.tail)
	r.tail = nil
}
