package hosts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const three = `# source, one replica, target
ssh:
  config: /etc/oedl/ssh_config
  alive-interval: 2s
  alive-count: 4
hosts:
  prod:
    role: source
    ssh: dba@prod1
    db: /db/prod/prod.db
    dlc: /usr/dlc
    work: /dl/work
    cores: 16
    disk-mbps: 400
    iops: 4000
  dr:
    role: replica
    ssh: dr1
    db: /db/prod/prod
    dlc: /usr/dlc
    work: /dl/work
    env:
      PROMSGS: /usr/dlc/promsgs
      LANG: C
  new:
    role: target
    db: /newdb/prod
    link-mbps: 1000
    latency-ms: 0.5
`

func TestParseThreeHosts(t *testing.T) {
	f, err := Parse("hosts.yaml", []byte(three))
	require.NoError(t, err)
	assert.Equal(t, "/etc/oedl/ssh_config", f.SSH.Config)
	assert.Equal(t, 2*time.Second, f.SSH.AliveInterval)
	assert.Equal(t, 4, f.SSH.AliveCount)
	assert.Equal(t, DefaultConnectTimeout, f.SSH.ConnectTimeout)
	require.Len(t, f.Hosts, 3)
	src := f.Source()
	assert.Equal(t, "prod", src.Name)
	assert.Equal(t, "/db/prod/prod", src.DB, ".db is dropped as everywhere in oedl")
	assert.Equal(t, 16, src.Cores)
	assert.Equal(t, 400.0, src.DiskMBps)
	assert.Equal(t, 7, src.Line)
	require.Len(t, f.Replicas(), 1)
	assert.Equal(t, []string{"LANG=C", "PROMSGS=/usr/dlc/promsgs"}, f.Replicas()[0].Env)
	tgt := f.Target()
	assert.True(t, tgt.Local())
	assert.Equal(t, 500*time.Microsecond, tgt.Latency)
	assert.Equal(t, []*Host{src, f.Replicas()[0]}, f.Copies())
	assert.True(t, f.Remote())

	f.Defaults("/opt/dlc", "/tmp/work")
	assert.Equal(t, "/opt/dlc", tgt.DLC)
	assert.Equal(t, "/tmp/work", tgt.Work)
	assert.Equal(t, "/usr/dlc", src.DLC)
}

func TestParseErrors(t *testing.T) {
	base := func(extra string) string {
		return "hosts:\n  a:\n    role: source\n    db: /db/a\n  b:\n    role: target\n    db: /db/b\n" + extra
	}
	for _, tc := range []struct {
		name, in string
		want     []string // each a whole "file:line: message" prefix or substring
	}{
		{"not yaml", "hosts: [\n", []string{"h.yaml:1: not YAML"}},
		{"empty", "", []string{"h.yaml: empty"}},
		{"no hosts", "ssh:\n  alive-count: 3\n", []string{"h.yaml:1: no \"hosts:\" section"}},
		{"unknown top key", "hots:\n  a: {}\n", []string{"h.yaml:1: unknown key \"hots\""}},
		{"unknown host key", base("    dsik-mbps: 4\n"), []string{"h.yaml:8: host b: unknown key \"dsik-mbps\""}},
		{"unknown ssh key", "ssh:\n  conifg: /x\n" + base(""), []string{"h.yaml:2: unknown ssh key \"conifg\""}},
		{"bad role", "hosts:\n  a:\n    role: sauce\n    db: /a\n", []string{"h.yaml:3: host a: role \"sauce\"", "no source host", "no target host"}},
		{"relative db", "hosts:\n  a:\n    role: source\n    db: db/a\n  b:\n    role: target\n    db: /b\n", []string{"h.yaml:4: db \"db/a\": an absolute path"}},
		{"option as destination", base("    ssh: -oProxyCommand=touch /tmp/x\n    work: /w\n"), []string{"h.yaml:8: host b: ssh destination \"-oProxyCommand=touch /tmp/x\" begins with '-'"}},
		{"space in destination", base("    ssh: \"a b\"\n    work: /w\n"), []string{"holds a space"}},
		{"remote without work", base("    ssh: new1\n"), []string{"h.yaml:5: host b: no work directory"}},
		{"two sources", base("  c:\n    role: source\n    db: /db/c\n"), []string{"h.yaml:8: host c: a second source (a is the first)"}},
		{"replica is the source", base("  c:\n    role: replica\n    db: /db/a\n"), []string{"h.yaml:8: host c: /db/a on this machine is host a's database too"}},
		{"target is the source over ssh", "hosts:\n  a:\n    role: source\n    ssh: x\n    work: /w\n    db: /db/a\n  b:\n    role: target\n    ssh: x\n    work: /w\n    db: /db/a.db\n",
			[]string{"h.yaml:7: host b: /db/a on x is host a's database too"}},
		{"bad name", "hosts:\n  1a:\n    role: source\n    db: /a\n", []string{"h.yaml:2: host name \"1a\""}},
		{"bad numbers", base("    cores: 0\n    iops: -3\n    latency-ms: x\n"), []string{"h.yaml:8: cores \"0\"", "h.yaml:9: iops \"-3\"", "h.yaml:10: latency-ms \"x\""}},
		{"bad duration", "ssh:\n  alive-interval: 5\n" + base(""), []string{"h.yaml:2: alive-interval \"5\": a positive duration"}},
		{"env", base("    env:\n      DLC: /x\n      1X: y\n"), []string{"h.yaml:9: host b: set DLC with the dlc key", "h.yaml:10: host b: env \"1X\""}},
		{"host not a mapping", "hosts:\n  a: source\n", []string{"h.yaml:2: host a must be a mapping"}},
		{"duplicate key", base("    db: /db/c\n"), []string{"h.yaml:8: \"db\" given twice in host b (first at line 7)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("h.yaml", []byte(tc.in))
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestRead(t *testing.T) {
	_, err := Read(filepath.Join(t.TempDir(), "none.yaml"))
	require.ErrorContains(t, err, "none.yaml: open")
	p := filepath.Join(t.TempDir(), "h.yaml")
	require.NoError(t, os.WriteFile(p, []byte(three), 0o644))
	f, err := Read(p)
	require.NoError(t, err)
	assert.Equal(t, p, f.Path)
}

func TestSingle(t *testing.T) {
	f := Single("/db/src", "/db/tgt", "/dlc", "/work")
	assert.False(t, f.Remote())
	assert.Equal(t, "/db/src", f.Source().DB)
	assert.Equal(t, "/db/tgt", f.Target().DB)
	assert.Empty(t, f.Replicas())
	assert.Equal(t, f.Source().Machine(), f.Target().Machine(), "one machine: nothing moves")
}

// FuzzParse: any input gives a File that holds together or errors that
// each name the file (and never a panic).
func FuzzParse(f *testing.F) {
	f.Add([]byte(three))
	f.Add([]byte("hosts:\n  a: &x\n    role: source\n    db: /a\n  b: *x\n"))
	f.Add([]byte("hosts:\n  a:\n    role: [source]\n    db: {x: 1}\n"))
	f.Add([]byte("ssh: 3\nhosts: []\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := Parse("f.yaml", data)
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, "f.yaml") {
					t.Fatalf("an error line that does not name the file: %q", line)
				}
			}
			return
		}
		if h.Source() == nil || h.Target() == nil {
			t.Fatalf("accepted without a source and a target: %q", data)
		}
		for _, x := range h.Hosts {
			if strings.HasPrefix(x.SSH, "-") {
				t.Fatalf("accepted an option as a destination: %q", x.SSH)
			}
		}
	})
}
