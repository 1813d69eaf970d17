package execx_test

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/hosttest"
)

func lab(t *testing.T, specs ...hosttest.Spec) (*hosttest.Lab, map[string]*execx.SSH) {
	l := hosttest.New(t, specs...)
	runners := map[string]*execx.SSH{}
	for _, s := range specs {
		r := execx.NewSSH(s.Name, execx.SSHOptions{Config: l.SSHConfig, AliveInterval: time.Second, AliveCount: 2, ConnectTimeout: 5 * time.Second})
		t.Cleanup(func() { _ = r.Close() })
		runners[s.Name] = r
	}
	return l, runners
}

// awkward are words a table or a path may hold: each must reach the
// remote program as it is.
var awkward = []string{
	"", " ", "plain", "two words", "it's", `"double"`, `back\slash`, "$(touch /tmp/oedl-pwned)", "`id`", "${HOME}", "$HOME",
	"a;b", "a&&b", "a|b", "*", "?", "[a]", "~", "~root", "=ls", "-n", "--", "%s", "tab\there", "new\nline", "trailing\n",
	"naïve", "Ωμέγα", "日本語", "emoji 🙂", "!bang", "#hash", "a=b", "'", "''", "\\", "\x01\x1f", "{a,b}",
}

func randomWord(r *rand.Rand) string {
	alphabet := []rune("aZ09 '\"\\$`(){}[]*?~=!#&|;<>\t\n-%é日🙂\x01")
	n := r.IntN(12)
	w := make([]rune, n)
	for i := range w {
		w[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(w)
}

// The quoting round trip through a real remote shell, bash and dash as
// the login shell: printf '%s\0' receives exactly the words oedl sent.
func TestSSHQuotingRoundTrip(t *testing.T) {
	_, rs := lab(t, hosttest.Spec{Name: "bash"}, hosttest.Spec{Name: "dash", Shell: "/bin/sh"})
	r := rand.New(rand.NewPCG(16, uint64(time.Now().UnixNano())))
	cases := [][]string{awkward}
	for range 40 {
		words := make([]string, 1+r.IntN(8))
		for i := range words {
			words[i] = randomWord(r)
		}
		cases = append(cases, words)
	}
	for name, ssh := range rs {
		for i, words := range cases {
			var out bytes.Buffer
			res, err := ssh.Run(context.Background(), execx.Cmd{Path: "printf", Args: append([]string{`%s\0`}, words...), Stdout: &out})
			require.NoError(t, err, "%s case %d: %s", name, i, res.Output)
			got := strings.Split(out.String(), "\x00")
			require.Equal(t, words, got[:len(got)-1], "%s case %d", name, i)
		}
	}
	_, err := os.Stat("/tmp/oedl-pwned")
	assert.True(t, os.IsNotExist(err), "nothing in a word ran")
}

// Every call goes over one connection: the host sees one login, and the
// environment, directory, stdin, exit code and output come through.
func TestSSHOneConnection(t *testing.T) {
	l, rs := lab(t, hosttest.Spec{Name: "h1", Env: []string{"OESIM_DISK_MBPS=7"}})
	ssh := rs["h1"]
	ctx := context.Background()
	dir := filepath.Join(l.Root, "a dir with 'quotes'")
	res, err := ssh.Run(ctx, execx.Cmd{Path: "mkdir", Args: []string{"-p", dir}})
	require.NoError(t, err, res.Output)
	for i := range 12 {
		res, err = ssh.Run(ctx, execx.Cmd{Path: "sh", Args: []string{"-c", `printf '%s %s %s ' "$PWD" "$OESIM_DISK_MBPS" "$X"; cat; echo err >&2`},
			Dir: dir, Env: []string{"X=it's $(x)"}, Stdin: "answer"})
		require.NoError(t, err, "call %d", i)
		assert.Equal(t, dir+" 7 it's $(x) answer"+"err\n", res.Output)
	}
	var started int
	res, err = ssh.Run(ctx, execx.Cmd{Path: "sh", Args: []string{"-c", "echo out; echo last >&2; exit 7"}, RemoteStarted: func(pid int) { started = pid }})
	require.ErrorIs(t, err, execx.ErrExit)
	assert.Equal(t, 7, res.ExitCode)
	assert.Equal(t, "out\nlast\n", res.Output)
	assert.Greater(t, started, 1)
	res, err = ssh.Run(ctx, execx.Cmd{Path: "sh", Args: []string{"-c", "printf 'no newline'; kill -9 $$"}})
	require.ErrorIs(t, err, execx.ErrExit)
	assert.Equal(t, 137, res.ExitCode, "killed by signal 9: 128+9, reported by the remote shell")
	// The remote shell's own "Killed" notice comes on the session's
	// other channel: it joins the output, before or after by chance.
	assert.Contains(t, res.Output, "no newline")
	assert.Equal(t, 1, l.Hosts["h1"].Logins(), "one connection for every call")
}

// A call cancelled (or timed out) kills its remote process group, not
// only the local client.
func TestSSHTimeoutKillsRemote(t *testing.T) {
	l, rs := lab(t, hosttest.Spec{Name: "h1"})
	res, err := rs["h1"].Run(context.Background(), execx.Cmd{Path: "sh", Args: []string{"-c", "sleep 301 & sleep 302; wait"}, Timeout: 2 * time.Second})
	require.Error(t, err)
	assert.True(t, res.TimedOut)
	require.Eventually(t, func() bool { return len(l.Hosts["h1"].Pids("sleep 30")) == 0 }, 10*time.Second, 100*time.Millisecond,
		"the remote utility and what it started are gone")
}

// A host whose key is not the one in known_hosts is refused before any
// command runs.
func TestSSHHostKeyChecked(t *testing.T) {
	l, _ := lab(t, hosttest.Spec{Name: "h1"})
	dir := t.TempDir()
	cfg, err := os.ReadFile(l.SSHConfig)
	require.NoError(t, err)
	// known_hosts names h1's address with another key.
	other := filepath.Join(dir, "other")
	require.NoError(t, exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", other).Run())
	pub, err := os.ReadFile(other + ".pub")
	require.NoError(t, err)
	f := strings.Fields(string(pub))
	known := filepath.Join(dir, "known_hosts")
	require.NoError(t, os.WriteFile(known, []byte(l.Hosts["h1"].Addr+" "+f[0]+" "+f[1]+"\n"), 0o644))
	bad := filepath.Join(dir, "ssh_config")
	re := regexp.MustCompile(`UserKnownHostsFile \S+`)
	require.NoError(t, os.WriteFile(bad, []byte(re.ReplaceAllString(string(cfg), "UserKnownHostsFile "+known)), 0o644))
	ssh := execx.NewSSH("h1", execx.SSHOptions{Config: bad, ConnectTimeout: 5 * time.Second})
	defer ssh.Close()
	_, err = ssh.Run(context.Background(), execx.Cmd{Path: "touch", Args: []string{filepath.Join(l.Root, "ran")}})
	var he *execx.HostError
	require.ErrorAs(t, err, &he)
	assert.Contains(t, err.Error(), "Host key verification failed")
	out, _ := l.Hosts["h1"].Exec("ls", l.Root)
	assert.NotContains(t, string(out), "ran")
}

// A link cut while a call runs: the call fails as a lost host within the
// alive probes, and once the link is back the next call connects again.
func TestSSHLinkCut(t *testing.T) {
	l, rs := lab(t, hosttest.Spec{Name: "h1"})
	h := l.Hosts["h1"]
	ssh := rs["h1"]
	done := make(chan error, 1)
	started := make(chan int, 1)
	go func() {
		_, err := ssh.Run(context.Background(), execx.Cmd{Path: "sleep", Args: []string{"60"}, RemoteStarted: func(pid int) { started <- pid }})
		done <- err
	}()
	// The call has started when its pid line has come back over the
	// link, not only when the host runs it.
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the call never reported its remote pid")
	}
	require.Eventually(t, func() bool { return len(h.Pids("sleep 60")) == 1 }, 10*time.Second, 50*time.Millisecond)
	require.NoError(t, h.Cut())
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("a call over a cut link never ended")
	}
	var he *execx.HostError
	require.ErrorAs(t, err, &he)
	assert.Contains(t, err.Error(), "connection was lost")
	_, err = ssh.Run(context.Background(), execx.Cmd{Path: "true"})
	require.ErrorAs(t, err, &he, "no connection while the link is down")
	require.NoError(t, h.Restore())
	res, err := ssh.Run(context.Background(), execx.Cmd{Path: "echo", Args: []string{"back"}})
	require.NoError(t, err)
	assert.Equal(t, "back\n", res.Output)
	assert.Equal(t, 2, h.Logins(), "one more connection after the link came back")
	assert.False(t, errors.Is(err, context.Canceled))
}

// TestSSHReportsTheUtilitysPID: RemoteStarted gets the PID of the utility
// itself on its host (the one its lines in a database's log carry), not
// its login shell's, with an environment and without, bash and dash as
// the login shell. It got the shell's (the process group's), which no
// log line names.
func TestSSHReportsTheUtilitysPID(t *testing.T) {
	_, rs := lab(t, hosttest.Spec{Name: "bash"}, hosttest.Spec{Name: "dash", Shell: "/bin/sh"})
	for name, r := range rs {
		for _, env := range [][]string{nil, {"OEDL_X=1"}} {
			var got int
			var out bytes.Buffer
			_, err := r.Run(context.Background(), execx.Cmd{Path: "sh", Args: []string{"-c", `echo "$$"`}, Env: env, Stdout: &out,
				RemoteStarted: func(pid int) { got = pid }})
			require.NoError(t, err, name)
			assert.Equal(t, strings.TrimSpace(out.String()), strconv.Itoa(got), "%s, env %v", name, env)
		}
	}
}
