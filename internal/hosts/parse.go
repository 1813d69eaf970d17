package hosts

import (
	"errors"
	"fmt"
	"os"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Error is one problem of a hosts file, at a line.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Read reads and parses the hosts file at path. Every error is a usage
// error for the command (exit 2): an *Error, or several joined.
func Read(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{File: path, Msg: err.Error()}
	}
	return Parse(path, data)
}

// Parse reads a hosts file. It reports every problem it finds, each with
// its line, joined into one error.
func Parse(file string, data []byte) (*File, error) {
	p := &parser{file: file}
	f := p.parse(data)
	if len(p.errs) > 0 {
		return nil, errors.Join(p.errs...)
	}
	return f, nil
}

type parser struct {
	file string
	errs []error
}

func (p *parser) errorf(n *yaml.Node, format string, a ...any) {
	line := 0
	if n != nil {
		line = n.Line
	}
	p.errs = append(p.errs, &Error{File: p.file, Line: line, Msg: fmt.Sprintf(format, a...)})
}

func (p *parser) parse(data []byte) *File {
	f := &File{Path: p.file, SSH: SSHOptions{AliveInterval: DefaultAliveInterval, AliveCount: DefaultAliveCount,
		ConnectTimeout: DefaultConnectTimeout}}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		p.errs = append(p.errs, &Error{File: p.file, Line: yamlLine(err), Msg: yamlMessage(err)})
		return f
	}
	if len(doc.Content) == 0 {
		p.errorf(nil, "empty: a hosts file names at least a source and a target under \"hosts:\"")
		return f
	}
	root := doc.Content[0]
	var hostsNode *yaml.Node
	p.mapping(root, "the file", func(key string, k, v *yaml.Node) {
		switch key {
		case "ssh":
			p.sshOptions(v, &f.SSH)
		case "hosts":
			hostsNode = v
		default:
			p.errorf(k, "unknown key %q (known: ssh, hosts)", key)
		}
	})
	if hostsNode == nil {
		if root.Kind == yaml.MappingNode {
			p.errorf(root, "no \"hosts:\" section")
		}
		return f
	}
	p.mapping(hostsNode, "hosts", func(name string, k, v *yaml.Node) {
		if h := p.host(name, k, v); h != nil {
			f.Hosts = append(f.Hosts, h)
		}
	})
	p.check(f, hostsNode)
	return f
}

// mapping calls fn for each key of a mapping node, in order.
func (p *parser) mapping(n *yaml.Node, what string, fn func(key string, k, v *yaml.Node)) {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind != yaml.MappingNode {
		p.errorf(n, "%s must be a mapping of keys to values", what)
		return
	}
	first := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind == yaml.AliasNode {
			v = v.Alias
		}
		if line, ok := first[k.Value]; ok {
			p.errorf(k, "%q given twice in %s (first at line %d)", k.Value, what, line)
			continue
		}
		first[k.Value] = k.Line
		fn(k.Value, k, v)
	}
}

func (p *parser) sshOptions(n *yaml.Node, o *SSHOptions) {
	p.mapping(n, "ssh", func(key string, k, v *yaml.Node) {
		switch key {
		case "config":
			o.Config = p.absPath(v, "ssh config")
		case "alive-interval":
			o.AliveInterval = p.duration(v, key)
		case "alive-count":
			o.AliveCount = p.count(v, key, 1)
		case "connect-timeout":
			o.ConnectTimeout = p.duration(v, key)
		default:
			p.errorf(k, "unknown ssh key %q (known: config, alive-interval, alive-count, connect-timeout)", key)
		}
	})
}

var hostName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]{0,31}$`)

func (p *parser) host(name string, k, v *yaml.Node) *Host {
	if !hostName.MatchString(name) {
		p.errorf(k, "host name %q: a letter, then up to 31 letters, digits, '.', '-' or '_' (the name goes into job names and logs)", name)
	}
	h := &Host{Name: name, Line: k.Line}
	p.mapping(v, "host "+name, func(key string, kk, vv *yaml.Node) {
		switch key {
		case "role":
			switch r := Role(p.scalar(vv, key)); r {
			case Source, Replica, Target:
				h.Role = r
			default:
				p.errorf(vv, "host %s: role %q: source, replica or target", name, vv.Value)
			}
		case "ssh":
			h.SSH = p.destination(vv, name)
		case "db":
			h.DB = strings.TrimSuffix(p.absPath(vv, "db"), ".db")
		case "dlc":
			h.DLC = p.absPath(vv, "dlc")
		case "work":
			h.Work = p.absPath(vv, "work")
		case "env":
			h.Env = p.env(vv, name)
		case "cores":
			h.Cores = p.count(vv, key, 1)
		case "disk-mbps":
			h.DiskMBps = p.rate(vv, key)
		case "iops":
			h.IOPS = p.rate(vv, key)
		case "link-mbps":
			h.LinkMBps = p.rate(vv, key)
		case "latency-ms":
			h.Latency = time.Duration(p.rate(vv, key) * float64(time.Millisecond))
		case "call-ms":
			h.CallMs = p.rate(vv, key)
		default:
			p.errorf(kk, "host %s: unknown key %q (known: role, ssh, db, dlc, work, env, cores, disk-mbps, iops, link-mbps, latency-ms, call-ms)", name, key)
		}
	})
	if v.Kind != yaml.MappingNode {
		return nil
	}
	if h.Role == "" {
		p.errorf(k, "host %s: no role (source, replica or target)", name)
	}
	if h.DB == "" {
		p.errorf(k, "host %s: no db (the database on that host)", name)
	}
	if !h.Local() && h.Work == "" {
		p.errorf(k, "host %s: no work directory (a remote host needs its own: dumps and sort files go there)", name)
	}
	return h
}

// destination is an ssh destination: one word that ssh cannot take for
// an option.
func (p *parser) destination(n *yaml.Node, host string) string {
	s := p.scalar(n, "ssh")
	switch {
	case s == "":
		p.errorf(n, "host %s: ssh is empty (leave it out for this machine)", host)
	case strings.HasPrefix(s, "-"):
		p.errorf(n, "host %s: ssh destination %q begins with '-', which ssh would take for an option", host, s)
	case strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		p.errorf(n, "host %s: ssh destination %q holds a space or a control character", host, s)
	}
	return s
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (p *parser) env(n *yaml.Node, host string) []string {
	var out []string
	p.mapping(n, "env", func(key string, k, v *yaml.Node) {
		switch {
		case !envName.MatchString(key):
			p.errorf(k, "host %s: env %q is not a variable name", host, key)
		case key == "DLC":
			p.errorf(k, "host %s: set DLC with the dlc key", host)
		default:
			out = append(out, key+"="+p.scalar(v, key))
		}
	})
	sort.Strings(out)
	return out
}

func (p *parser) scalar(n *yaml.Node, key string) string {
	if n.Kind != yaml.ScalarNode {
		p.errorf(n, "%s must be a single value", key)
		return ""
	}
	return n.Value
}

func (p *parser) absPath(n *yaml.Node, key string) string {
	s := p.scalar(n, key)
	if s == "" {
		p.errorf(n, "%s is empty", key)
		return ""
	}
	if !path.IsAbs(s) {
		p.errorf(n, "%s %q: an absolute path (it is a path on that host, not relative to anything here)", key, s)
	}
	if strings.ContainsRune(s, 0) {
		p.errorf(n, "%s holds a NUL byte", key)
	}
	return path.Clean(s)
}

func (p *parser) duration(n *yaml.Node, key string) time.Duration {
	s := p.scalar(n, key)
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		p.errorf(n, "%s %q: a positive duration such as 5s", key, s)
	}
	return d
}

func (p *parser) count(n *yaml.Node, key string, least int) int {
	s := p.scalar(n, key)
	v, err := strconv.Atoi(s)
	if err != nil || v < least {
		p.errorf(n, "%s %q: a whole number of at least %d", key, s, least)
	}
	return v
}

func (p *parser) rate(n *yaml.Node, key string) float64 {
	s := p.scalar(n, key)
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || v != v || v > 1e12 {
		p.errorf(n, "%s %q: a number of at least 0", key, s)
		return 0
	}
	return v
}

// check holds the hosts together: one source, one target, and no two
// roles on one database.
func (p *parser) check(f *File, at *yaml.Node) {
	count := map[Role][]*Host{}
	for _, h := range f.Hosts {
		count[h.Role] = append(count[h.Role], h)
	}
	for _, r := range []Role{Source, Target} {
		switch hs := count[r]; {
		case len(hs) == 0:
			p.errorf(at, "no %s host", r)
		case len(hs) > 1:
			p.errorf(&yaml.Node{Line: hs[1].Line}, "host %s: a second %s (%s is the first): a migration has one", hs[1].Name, r, hs[0].Name)
		}
	}
	type place struct{ machine, db string }
	seen := map[place]*Host{}
	for _, h := range f.Hosts {
		if h.DB == "" {
			continue
		}
		k := place{h.Machine(), h.DB}
		if o := seen[k]; o != nil {
			p.errorf(&yaml.Node{Line: h.Line}, "host %s: %s on %s is host %s's database too (a %s and a %s cannot be one database)",
				h.Name, h.DB, machineName(h), o.Name, o.Role, h.Role)
			continue
		}
		seen[k] = h
	}
}

func machineName(h *Host) string {
	if h.Local() {
		return "this machine"
	}
	return h.SSH
}

// yamlLine and yamlMessage take the line out of a YAML syntax error
// ("yaml: line 3: mapping values are not allowed in this context").
var yamlLineRE = regexp.MustCompile(`line (\d+): `)

func yamlLine(err error) int {
	if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

func yamlMessage(err error) string {
	s := strings.TrimPrefix(err.Error(), "yaml: ")
	return "not YAML: " + yamlLineRE.ReplaceAllString(s, "")
}
