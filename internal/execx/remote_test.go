package execx

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// feed writes stream to a remoteStderr in pieces cut at cuts (offsets).
func feed(stream []byte, cuts []int) (out string, pid, utility, exit int, sawExit bool) {
	var b bytes.Buffer
	r := &remoteStderr{out: func(p []byte) { b.Write(p) }, started: func(p int) { utility = p }}
	last := 0
	for _, c := range cuts {
		if c > last && c < len(stream) {
			_, _ = r.Write(stream[last:c])
			last = c
		}
	}
	_, _ = r.Write(stream[last:])
	r.close()
	return b.String(), r.pid, utility, r.exit, r.sawExit
}

func TestRemoteStderr(t *testing.T) {
	for _, tc := range []struct {
		name, stream, out  string
		pid, utility, exit int
		sawExit            bool
	}{
		{"plain", "oedl-pid=42\noedl-utility=43\nhello\n\noedl-exit=3\n", "hello\n", 42, 43, 3, true},
		{"no trailing newline", "oedl-pid=7\noedl-utility=8\nabc\noedl-exit=0\n", "abc", 7, 8, 0, true},
		{"nothing", "oedl-pid=7\noedl-utility=8\n\noedl-exit=0\n", "", 7, 8, 0, true},
		{"login noise first", "welcome\noedl-pid=9\noedl-utility=10\nx\n\noedl-exit=1\n", "welcome\nx\n", 9, 10, 1, true},
		{"killed: no status", "oedl-pid=5\noedl-utility=6\npartial output\n", "partial output\n", 5, 6, 0, false},
		{"marker-like output", "oedl-pid=5\noedl-utility=6\n\noedl-exit=zz\noedl-utility=1\nmore\n\noedl-exit=2\n", "\noedl-exit=zz\noedl-utility=1\nmore\n", 5, 6, 2, true},
		{"status cut short", "oedl-pid=5\noedl-utility=6\nx\n\noedl-exi", "x\n\noedl-exi", 5, 6, 0, false},
		{"no pid line at all", "", "", 0, 0, 0, false},
		{"a cd that failed: no utility line", "oedl-pid=5\nsh: cd: /x: No such file\n", "sh: cd: /x: No such file\n", 5, 0, 0, false},
		{"the utility's shell could not start", "oedl-pid=5\nsh: not found\n\noedl-exit=127\n", "sh: not found\n", 5, 0, 127, true},
		{"an oedl-utility line of the utility's own", "oedl-pid=5\noedl-utility=6\noedl-utility=7\n\noedl-exit=0\n", "oedl-utility=7\n", 5, 6, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Every way of cutting the stream in two or three pieces
			// gives the same result.
			s := []byte(tc.stream)
			for i := 0; i <= len(s); i++ {
				for j := i; j <= len(s); j += 3 {
					out, pid, utility, exit, saw := feed(s, []int{i, j})
					require.Equal(t, tc.out, out, "cut at %d,%d", i, j)
					assert.Equal(t, tc.pid, pid)
					assert.Equal(t, tc.utility, utility)
					assert.Equal(t, tc.exit, exit)
					assert.Equal(t, tc.sawExit, saw)
				}
			}
		})
	}
}

// FuzzRemoteStderr: whatever the utility writes and however the stream
// is cut, the wrapper's lines come out and the utility's bytes pass
// untouched.
func FuzzRemoteStderr(f *testing.F) {
	f.Add([]byte("hello\n"), 3, 5, uint8(0))
	f.Add([]byte("no newline"), 1, 2, uint8(137))
	f.Add([]byte("\noedl-exit=1\n"), 0, 4, uint8(1))
	f.Add([]byte("oedl-pid=3\n"), 2, 9, uint8(2))
	f.Fuzz(func(t *testing.T, body []byte, c1, c2 int, code uint8) {
		stream := append([]byte("oedl-pid=1234\noedl-utility=1235\n"), body...)
		stream = append(stream, fmt.Sprintf("\noedl-exit=%d\n", code)...)
		out, pid, utility, exit, saw := feed(stream, []int{c1 % (len(stream) + 1), c2 % (len(stream) + 1)})
		if pid != 1234 || utility != 1235 || !saw || exit != int(code) || out != string(body) {
			t.Fatalf("body %q: out %q pid %d utility %d exit %d (saw %v)", body, out, pid, utility, exit, saw)
		}
	})
}
