// Package hosttest gives tests real hosts on this machine: each one a
// network namespace with a veth link to the test's own namespace, a real
// sshd (Debian's openssh-server) started by the test with a config, a host
// key and an authorized_keys of its own, and a private directory tree
// that no other host and not the test itself can see.
//
// Privacy. Every host mounts a tmpfs of its own on the same path, Root,
// inside sshd's mount namespace (ip netns exec gives each exec one), so
// /ROOT/db/prod on the source and /ROOT/db/prod on the target are two
// different files, and from the test's (the controller's) namespace Root
// is an empty directory: a file of a host can only be reached through
// that host's sshd. That is what lets an end-to-end test claim that oedl
// touched no file of a host except over that host's SSH connection.
// What is outside Root (the oesim DLC the test installs) is visible to
// every host, as an installed OpenEdge would be on each machine.
//
// Each host's environment (oesim's virtual disk: OESIM_DISK_*, and its
// state directory OESIM_STATE under Root) is set by its sshd (SetEnv), so
// every utility on that host draws from that host's disk, not another's.
//
// Faults: Cut and Restore set the host's end of the link down and up
// (the connection hangs, and ssh declares it lost after its alive
// probes), Shape puts a rate on it (tc tbf), KillAll kills
// every process on the host but sshd's listener.
//
// The tests need root, ip (iproute2) and sshd; without them they skip
// with the reason. CI runs as root and .ci/run installs openssh-server.
package hosttest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oedl/oedl/internal/execx"
)

// Sshd is where Debian installs the server.
const Sshd = "/usr/sbin/sshd"

// Available says why hosts cannot be made here ("" when they can).
func Available() string {
	if os.Geteuid() != 0 {
		return "hosts need root (network and mount namespaces)"
	}
	for _, p := range []string{"ip", "ssh", "ssh-keygen", "tc"} {
		if _, err := exec.LookPath(p); err != nil {
			return p + " is not installed"
		}
	}
	if _, err := os.Stat(Sshd); err != nil {
		return Sshd + " is not installed (apt-get install openssh-server)"
	}
	return ""
}

// Require skips t when hosts cannot be made here.
func Require(t testing.TB) {
	t.Helper()
	if why := Available(); why != "" {
		t.Skip(why)
	}
}

// Lab is the hosts of one test.
type Lab struct {
	t   testing.TB
	dir string
	// Root is the path at which every host has its own private tree.
	Root string
	// SSHConfig is an ssh_config naming each host by its name (HostName,
	// User root, the test's key, known_hosts with each host's key).
	SSHConfig string
	Hosts     map[string]*Host
}

// Host is one machine of the lab.
type Host struct {
	Name   string
	NS     string // network namespace
	Addr   string // its address, reached over its link
	veth   string // its end of the link, inside NS
	outer  string // the test's end
	dir    string
	sshd   *exec.Cmd
	Log    string // sshd's log (-e): one "Connection from" per connection
	exited chan struct{}
}

// Spec describes a host to start.
type Spec struct {
	Name string
	// Env is set by sshd for every session (SetEnv): the host's own
	// environment, such as OESIM_DISK_MBPS.
	Env []string
	// Shell is root's login shell on the host ("" = the machine's, bash
	// on Debian): sshd hands every command line to it.
	Shell string
}

// New starts the hosts and stops them when t ends.
func New(t testing.TB, specs ...Spec) *Lab {
	t.Helper()
	Require(t)
	dir := t.TempDir()
	l := &Lab{t: t, dir: dir, Root: filepath.Join(dir, "root"), SSHConfig: filepath.Join(dir, "ssh_config"), Hosts: map[string]*Host{}}
	must(t, os.MkdirAll(l.Root, 0o755))
	must(t, os.MkdirAll("/run/sshd", 0o755)) // sshd's privilege separation directory
	key := filepath.Join(dir, "id_ed25519")
	run(t, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "hosttest", "-f", key)
	must(t, copyFile(key+".pub", filepath.Join(dir, "authorized_keys")))
	var known, config bytes.Buffer
	for _, s := range specs {
		h := l.start(s)
		l.Hosts[s.Name] = h
		pub, err := os.ReadFile(filepath.Join(h.dir, "host_key.pub"))
		must(t, err)
		fields := strings.Fields(string(pub))
		fmt.Fprintf(&known, "%s %s %s\n", h.Addr, fields[0], fields[1])
		fmt.Fprintf(&config, "Host %s\n  HostName %s\n  User root\n  IdentityFile %s\n  IdentitiesOnly yes\n  UserKnownHostsFile %s\n  GlobalKnownHostsFile /dev/null\n\n",
			s.Name, h.Addr, key, filepath.Join(dir, "known_hosts"))
	}
	must(t, os.WriteFile(filepath.Join(dir, "known_hosts"), known.Bytes(), 0o644))
	must(t, os.WriteFile(l.SSHConfig, config.Bytes(), 0o644))
	return l
}

var subnetMu sync.Mutex

// subnet picks a /24 of 10.200.0.0-10.249.255.0 that no interface of
// this machine's namespace uses (other tests may run at the same time:
// the choice is random and checked against the addresses in use), and
// returns the two ends of a link in it.
func subnet(t testing.TB) (outer, inner string) {
	subnetMu.Lock()
	defer subnetMu.Unlock()
	for range 100 {
		var b [2]byte
		_, _ = rand.Read(b[:])
		prefix := fmt.Sprintf("10.%d.%d.", 200+int(b[0])%50, b[1])
		used, _ := exec.Command("ip", "-4", "-o", "addr").Output()
		if !bytes.Contains(used, []byte(" "+prefix)) {
			return prefix + "1", prefix + "2"
		}
	}
	t.Fatal("no free address for a test host")
	return "", ""
}

func (l *Lab) start(s Spec) *Host {
	t := l.t
	var b [4]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	h := &Host{Name: s.Name, NS: "oedlh-" + id, veth: "oh" + id + "i", outer: "oh" + id + "o",
		dir: filepath.Join(l.dir, "host-"+s.Name), exited: make(chan struct{})}
	must(t, os.MkdirAll(h.dir, 0o755))
	outer, inner := subnet(t)
	h.Addr = inner
	run(t, "ip", "netns", "add", h.NS)
	t.Cleanup(h.stop)
	run(t, "ip", "link", "add", h.outer, "type", "veth", "peer", "name", h.veth)
	run(t, "ip", "link", "set", h.veth, "netns", h.NS)
	run(t, "ip", "addr", "add", outer+"/30", "dev", h.outer)
	run(t, "ip", "link", "set", h.outer, "up")
	run(t, "ip", "-n", h.NS, "addr", "add", inner+"/30", "dev", h.veth)
	run(t, "ip", "-n", h.NS, "link", "set", h.veth, "up")
	run(t, "ip", "-n", h.NS, "link", "set", "lo", "up")

	hostKey := filepath.Join(h.dir, "host_key")
	run(t, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", s.Name, "-f", hostKey)
	var cfg strings.Builder
	fmt.Fprintf(&cfg, "ListenAddress %s\nPort 22\nHostKey %s\nAuthorizedKeysFile %s\n", inner, hostKey, filepath.Join(l.dir, "authorized_keys"))
	cfg.WriteString("PermitRootLogin prohibit-password\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n" +
		"UsePAM no\nStrictModes no\nPidFile none\nLogLevel VERBOSE\nMaxSessions 20\nMaxStartups 100\nPrintMotd no\n")
	env := append([]string{"OESIM_STATE=" + filepath.Join(l.Root, "oesim-state")}, s.Env...)
	fmt.Fprintf(&cfg, "SetEnv %s\n", strings.Join(quoteSetEnv(env), " "))
	conf := filepath.Join(h.dir, "sshd_config")
	must(t, os.WriteFile(conf, []byte(cfg.String()), 0o600))
	h.Log = filepath.Join(h.dir, "sshd.log")
	logf, err := os.Create(h.Log)
	must(t, err)
	defer logf.Close()
	// The tmpfs is mounted in the mount namespace ip netns exec made for
	// this exec, and sshd (with every session it starts) lives in it. Its
	// size is a limit, not memory taken: 4 GiB leaves a source there the
	// default headroom oedl keeps for it to grow (at least 1 GiB,
	// internal/room) beside the dumps; a test that wants a full disk
	// mounts a small tmpfs of its own over ssh (Lab.Mount).
	script := fmt.Sprintf("mount -t tmpfs -o size=4g,mode=0755 oedl-%s %s && mkdir -p %s && ",
		s.Name, l.Root, filepath.Join(l.Root, "oesim-state"))
	if s.Shell != "" {
		// The host's own /etc/passwd, in its mount namespace only.
		passwd := filepath.Join(h.dir, "passwd")
		data, err := os.ReadFile("/etc/passwd")
		must(t, err)
		lines := strings.Split(string(data), "\n")
		for i, line := range lines {
			if f := strings.Split(line, ":"); len(f) == 7 && f[0] == "root" {
				f[6] = s.Shell
				lines[i] = strings.Join(f, ":")
			}
		}
		must(t, os.WriteFile(passwd, []byte(strings.Join(lines, "\n")), 0o644))
		script += fmt.Sprintf("mount --bind %s /etc/passwd && ", passwd)
	}
	script += fmt.Sprintf("exec %s -D -e -f %s", Sshd, conf)
	h.sshd = exec.Command("ip", "netns", "exec", h.NS, "sh", "-c", script)
	h.sshd.Stdout, h.sshd.Stderr = logf, logf
	must(t, h.sshd.Start())
	go func() { _ = h.sshd.Wait(); close(h.exited) }()
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", net.JoinHostPort(inner, "22"), time.Second)
		if err == nil {
			c.Close()
			return h
		}
		select {
		case <-h.exited:
			data, _ := os.ReadFile(h.Log)
			t.Fatalf("sshd of %s exited: %s", s.Name, data)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("sshd of %s does not listen: %v", s.Name, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// quoteSetEnv writes KEY=VALUE words as sshd_config reads them.
func quoteSetEnv(env []string) []string {
	out := make([]string, len(env))
	for i, kv := range env {
		out[i] = `"` + strings.ReplaceAll(kv, `"`, `\"`) + `"`
	}
	return out
}

// stop kills everything on the host and removes its namespace (its link
// goes with it, and its tmpfs with the last process in its mount
// namespace).
func (h *Host) stop() {
	h.KillAll()
	if h.sshd != nil && h.sshd.Process != nil {
		_ = h.sshd.Process.Kill()
		<-h.exited
	}
	_ = exec.Command("ip", "netns", "del", h.NS).Run()
	_ = exec.Command("ip", "link", "del", h.outer).Run()
}

// KillAll kills every process on the host except sshd's listener: the
// host's utilities and sessions, as a crash of that machine would.
func (h *Host) KillAll() {
	out, _ := exec.Command("ip", "netns", "pids", h.NS).Output()
	for _, f := range strings.Fields(string(out)) {
		var pid int
		if _, err := fmt.Sscan(f, &pid); err != nil || (h.sshd != nil && h.sshd.Process != nil && pid == h.sshd.Process.Pid) {
			continue
		}
		_ = killPID(pid)
	}
}

// Pids are the processes on the host whose command line contains word.
func (h *Host) Pids(word string) []int {
	out, _ := exec.Command("ip", "netns", "pids", h.NS).Output()
	var pids []int
	for _, f := range strings.Fields(string(out)) {
		var pid int
		if _, err := fmt.Sscan(f, &pid); err != nil {
			continue
		}
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if bytes.Contains(cmdline, []byte(word)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// Cut takes the host's end of its link down: packets stop both ways, as
// when a cable is pulled.
func (h *Host) Cut() error {
	return exec.Command("ip", "-n", h.NS, "link", "set", h.veth, "down").Run()
}

// Restore brings the link up again and returns once sshd can be reached
// over it. A link that was down leaves neighbour entries FAILED on both
// ends, and a connect made before they are forgotten fails with "No
// route to host": they are flushed, and the port is dialled until it
// answers, so that a test's next call meets a link that is really back.
func (h *Host) Restore() error {
	for _, c := range [][]string{
		{"ip", "-n", h.NS, "link", "set", h.veth, "up"},
		{"ip", "-n", h.NS, "neigh", "flush", "dev", h.veth},
		{"ip", "neigh", "flush", "dev", h.outer},
	} {
		if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
			return fmt.Errorf("%v: %v: %s", c, err, out)
		}
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", net.JoinHostPort(h.Addr, "22"), time.Second)
		if err == nil {
			return c.Close()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("host %s: link up but sshd unreachable after 15s: %w", h.Name, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Shape limits the host's link (both ends) to mbit megabits per second
// (tc tbf: a token bucket; netem, which would add a delay, is not in
// every kernel, so the latency of a test link stays that of a veth).
func (h *Host) Shape(mbit int) error {
	rate := fmt.Sprintf("%dmbit", mbit)
	burst := fmt.Sprintf("%dkbit", max(32, mbit*10)) // about 10 ms at the rate
	for _, c := range [][]string{
		{"ip", "netns", "exec", h.NS, "tc", "qdisc", "replace", "dev", h.veth, "root", "tbf", "rate", rate, "burst", burst, "latency", "1s"},
		{"tc", "qdisc", "replace", "dev", h.outer, "root", "tbf", "rate", rate, "burst", burst, "latency", "1s"},
	} {
		if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
			return fmt.Errorf("%v: %v: %s", c, err, out)
		}
	}
	return nil
}

// Logins counts the connections the host's sshd accepted.
func (h *Host) Logins() int {
	data, _ := os.ReadFile(h.Log)
	return bytes.Count(data, []byte("Accepted publickey for"))
}

// Exec runs argv on the host outside ssh, for a test to set a host up or
// look at it (nsenter into sshd's namespaces): never what the code under
// test uses.
func (h *Host) Exec(argv ...string) ([]byte, error) {
	args := append([]string{"--target", fmt.Sprint(h.sshd.Process.Pid), "--mount", "--net", "--"}, argv...)
	return exec.Command("nsenter", args...).CombinedOutput()
}

func run(t testing.TB, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o600)
}

// SSH is a runner for the host over its sshd, as oedl reaches it (for a
// test to set a host up through the front door).
func (l *Lab) SSH(name string) *execx.SSH {
	s := execx.NewSSH(name, execx.SSHOptions{Config: l.SSHConfig, AliveInterval: time.Second, AliveCount: 3, ConnectTimeout: 10 * time.Second})
	l.t.Cleanup(func() { _ = s.Close() })
	return s
}

// Mount mounts a tmpfs of size (mount's size=, "40m") at dir on the host,
// in its mount namespace (over its ssh: every session lives there), made
// first: a filesystem of the host's own, small enough to fill.
func (l *Lab) Mount(name, dir, size string) {
	l.t.Helper()
	res, err := l.SSH(name).Run(context.Background(), execx.Cmd{Path: "sh",
		Args: []string{"-c", `mkdir -p "$1" && mount -t tmpfs -o "size=$2,mode=0755" oedl-small "$1"`, "sh", dir, size}})
	if err != nil {
		l.t.Fatalf("mount on %s: %v: %s", name, err, res.Output)
	}
}

// Put copies local files into dir on the host, over ssh (tar).
func (l *Lab) Put(name, dir string, files ...string) {
	l.t.Helper()
	var tarball bytes.Buffer
	args := []string{"-c", "-f", "-"}
	for _, f := range files {
		args = append(args, "-C", filepath.Dir(f), filepath.Base(f))
	}
	tar := exec.Command("tar", args...)
	tar.Stdout = &tarball
	var stderr bytes.Buffer
	tar.Stderr = &stderr
	if err := tar.Run(); err != nil {
		l.t.Fatalf("tar: %v: %s", err, stderr.String())
	}
	res, err := l.SSH(name).Run(context.Background(), execx.Cmd{Path: "sh", Args: []string{"-c", `mkdir -p "$1" && tar -x -f - -C "$1"`, "sh", dir},
		StdinFrom: &tarball})
	if err != nil {
		l.t.Fatalf("put on %s: %v: %s", name, err, res.Output)
	}
}
