package run

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/hostfs"
	"github.com/oedl/oedl/internal/hosts"
	"github.com/oedl/oedl/internal/schedule"
)

// A run on several hosts (Config.Hosts, docs/hosts.md). Every job runs on
// the host the graph names (schedule.Job.Host) through that host's
// machine: its runner (this machine's processes, or sessions of its one
// SSH connection) and its files (hostfs). The journal, the logs, the
// reports and every decision stay on the machine oedl runs on; a host
// keeps what its utilities read and write: dumps, sort files, the ABL
// procedures and the plan's target.st and target.df (on the target).
//
// A Config seen from a host (at) is the run's Config with that host's
// DLC, work directory, databases and plan directory, so that the argv
// builders (commands.go) are the same for every host; what a step saves
// (tabanalys reports) still goes to the work directory here.

// machine is one host of the run as the executor reaches it.
type machine struct {
	name   string // the host's name ("" = this machine, a one-machine run)
	runner execx.Runner
	fs     hostfs.FS
	dlc    string
	work   string
	env    []string // the hosts file's environment for the host
	remote bool
	ssh    *execx.SSH // nil on this machine
	// dest is the machine the host is on (its ssh destination, "" here):
	// files move only between different ones.
	dest string
}

// fleet is the machines of a run.
type fleet struct {
	layout *schedule.Hosts
	byName map[string]*machine
	conns  []*execx.SSH
	root   *Config // the run's Config, which views are made from

	mu    sync.Mutex
	views map[string]*Config // Config.at, by host
}

// setupHosts makes the machines of c.Hosts (no connection yet: the first
// call connects). A one-machine run has none.
func (c *Config) setupHosts() {
	if c.Hosts == nil || c.fleet != nil {
		return
	}
	f := &fleet{byName: map[string]*machine{}, views: map[string]*Config{}}
	conns := map[string]*execx.SSH{}
	for _, h := range c.Hosts.Hosts {
		m := &machine{name: h.Name, dlc: h.DLC, work: h.Work, env: h.Env, dest: h.SSH}
		if m.dlc == "" {
			m.dlc = c.DLC
		}
		if h.Local() {
			if m.work == "" {
				m.work = c.Work
			}
			l := &hostfs.Local{}
			l.Own(m.work)
			m.runner, m.fs = c.Runner, l
		} else {
			ssh := conns[h.SSH]
			if ssh == nil {
				o := c.Hosts.SSH
				ssh = execx.NewSSH(h.SSH, execx.SSHOptions{Config: o.Config, AliveInterval: o.AliveInterval,
					AliveCount: o.AliveCount, ConnectTimeout: o.ConnectTimeout})
				conns[h.SSH] = ssh
				f.conns = append(f.conns, ssh)
			}
			r := &hostfs.Remote{Name: h.Name, R: ssh}
			r.Own(m.work)
			m.runner, m.fs, m.remote, m.ssh = ssh, r, true, ssh
		}
		f.byName[h.Name] = m
	}
	target := c.Hosts.Target()
	f.layout = &schedule.Hosts{Source: c.Hosts.Source().Name, Target: target.Name,
		Moves: func(h string) bool { m := f.byName[h]; return m != nil && m.dest != target.SSH }}
	for _, r := range c.Hosts.Replicas() {
		f.layout.Replicas = append(f.layout.Replicas, r.Name)
	}
	f.root = c
	c.fleet = f
}

// machine is the host of that name; "" (and every host of a one-machine
// run) is this machine with the run's own runner and work directory.
func (c *Config) machine(name string) *machine {
	if c.fleet != nil {
		if m := c.fleet.byName[name]; m != nil {
			return m
		}
	}
	l := &hostfs.Local{}
	l.Own(c.ctlWork())
	return &machine{runner: c.Runner, fs: l, dlc: c.DLC, work: c.ctlWork()}
}

// ctlWork is the work directory on this machine, whichever host c is seen from.
func (c *Config) ctlWork() string {
	if c.controlWork != "" {
		return c.controlWork
	}
	return c.Work
}

// at is c as seen from host name: its DLC, work directory and databases.
func (c *Config) at(name string) *Config {
	if c.fleet == nil || name == c.host {
		return c
	}
	root := c.fleet.root
	if name == "" {
		return root
	}
	c.fleet.mu.Lock()
	defer c.fleet.mu.Unlock()
	if v := c.fleet.views[name]; v != nil {
		return v
	}
	m := c.fleet.byName[name]
	h := c.Hosts.Host(name)
	if m == nil || h == nil {
		return root
	}
	v := *root
	v.host, v.controlWork = name, root.Work
	v.DLC, v.Work = m.dlc, m.work
	if m.remote {
		v.PlanDir = path.Join(m.work, "plan")
	}
	if h.Role == hosts.Replica {
		v.Source = h.DB
	}
	c.fleet.views[name] = &v
	return &v
}

// atDB is c as seen from the host of database which (DBSource,
// DBTarget, schedule.ReplicaDB(name)).
func (c *Config) atDB(which string) *Config {
	if c.fleet == nil {
		return c
	}
	switch which {
	case schedule.DBSource:
		return c.at(c.fleet.layout.Source)
	case schedule.DBTarget:
		return c.at(c.fleet.layout.Target)
	}
	if name, ok := strings.CutPrefix(which, "replica:"); ok {
		return c.at(name)
	}
	return c
}

// hostLayout is the graph's placement on the hosts (nil on one machine).
func (c *Config) hostLayout() *schedule.Hosts {
	if c.fleet == nil {
		return nil
	}
	return c.fleet.layout
}

// saved is where a step's saved output goes: the work directory here.
func (c *Config) saved(name string) string { return filepath.Join(c.ctlWork(), name) }

// hostEnv is the hosts file's environment of the host c is seen from.
func (c *Config) hostEnv() []string {
	if c.fleet == nil || c.host == "" {
		return nil
	}
	return c.fleet.byName[c.host].env
}

// closeHosts ends every connection.
func (c *Config) closeHosts() {
	if c.fleet == nil {
		return
	}
	for _, s := range c.fleet.conns {
		_ = s.Close()
	}
}

// remoteMachines are the hosts reached over ssh, in the file's order.
func (c *Config) remoteMachines() []*machine {
	if c.fleet == nil {
		return nil
	}
	var out []*machine
	for _, h := range c.Hosts.Hosts {
		if m := c.fleet.byName[h.Name]; m.remote {
			out = append(out, m)
		}
	}
	return out
}

// prepareHosts connects to every remote host, checks it can serve the
// run (GNU tools, a POSIX login shell, its DLC), and lays out its work
// directory: dump/ and sort/, the ABL procedures where _progres runs (the
// source and the target), the plan's target.st and target.df on the
// target. It writes only inside each host's work directory.
func (c *Config) prepareHosts(ctx context.Context) error {
	if c.fleet == nil {
		return nil
	}
	for _, h := range c.Hosts.Hosts {
		m := c.fleet.byName[h.Name]
		if m.remote {
			if err := m.ssh.Connect(ctx); err != nil {
				return precondition("%v: check its ssh destination, key and known_hosts (docs/hosts.md)", err)
			}
			if err := m.fs.(*hostfs.Remote).CheckTools(ctx); err != nil {
				return precondition("%v", err)
			}
			if err := checkLoginShell(ctx, m); err != nil {
				return err
			}
		}
		bins := c.at(m.name).binPaths()
		got, err := m.fs.Lstat(ctx, bins...)
		if err != nil {
			return precondition("host %s: %v", m.name, err)
		}
		var missing []string
		for _, p := range bins {
			// A link (oesim's) counts: the utility is what it names.
			if i, ok := got[p]; !ok || i.IsDir() || i.Mode&0o111 == 0 {
				missing = append(missing, p)
			}
		}
		if len(missing) > 0 {
			sort.Strings(missing)
			return precondition("host %s: %s not found or not executable: is its dlc (%s) an OpenEdge install?", m.name, strings.Join(missing, ", "), m.dlc)
		}
		for _, d := range []string{m.work, path.Join(m.work, "dump"), path.Join(m.work, "sort")} {
			if err := m.fs.MkdirAll(ctx, d); err != nil {
				return precondition("host %s: work directory: %v", m.name, err)
			}
		}
	}
	return nil
}

// binPaths are the utilities a run calls, on the host c is seen from.
func (c *Config) binPaths() []string {
	out := make([]string, len(utilitiesNeeded))
	for i, u := range utilitiesNeeded {
		out[i] = c.bin(u)
	}
	return out
}

// loginCanary must come back from a remote shell untouched: oedl quotes
// for a POSIX shell, and a login shell that is not one (csh) would
// change what every utility receives.
var loginCanary = []string{"it's", "$(x) `y` ${z}", "naïve ünïcode", "a b\tc", "=x", "~", "*"}

func checkLoginShell(ctx context.Context, m *machine) error {
	var out strings.Builder
	res, err := m.runner.Run(ctx, execx.Cmd{Path: "printf", Args: append([]string{`%s\n`}, loginCanary...), Stdout: &out})
	want := strings.Join(loginCanary, "\n") + "\n"
	if err != nil || out.String() != want {
		return precondition("host %s: its login shell did not pass words through untouched (%v%s): oedl needs a POSIX shell (sh, bash, ksh, dash, zsh) as the login shell of the account it uses",
			m.name, err, strings.TrimSpace(" "+res.Output))
	}
	return nil
}

// writeHostFiles puts on each remote host what its utilities read: the
// ABL procedures (source and target run _progres) and the plan's
// target.st and target.df (the target's prostrct create and load_df.p).
func (c *Config) writeHostFiles(ctx context.Context, planDir string) error {
	if c.fleet == nil {
		return nil
	}
	for _, name := range []string{c.fleet.layout.Source, c.fleet.layout.Target} {
		m := c.machine(name)
		if !m.remote {
			continue
		}
		for _, dir := range []string{"abl", SecurityDir, TargetSecurityDir} {
			if err := m.fs.MkdirAll(ctx, path.Join(m.work, dir)); err != nil {
				return err
			}
		}
		for _, p := range ablProcedures {
			data, err := ablSource(p)
			if err != nil {
				return err
			}
			if err := m.fs.WriteFile(ctx, path.Join(m.work, "abl", p), data); err != nil {
				return fmt.Errorf("host %s: %w", name, err)
			}
		}
	}
	tm := c.machine(c.fleet.layout.Target)
	if !tm.remote {
		return nil
	}
	dir := path.Join(tm.work, "plan")
	if err := tm.fs.MkdirAll(ctx, dir); err != nil {
		return err
	}
	local := &hostfs.Local{}
	for _, f := range []string{"target.st", "target.df"} {
		data, err := local.ReadFile(ctx, filepath.Join(planDir, f))
		if err != nil {
			return err
		}
		if err := tm.fs.WriteFile(ctx, path.Join(dir, f), data); err != nil {
			return fmt.Errorf("host %s: %w", tm.name, err)
		}
	}
	return nil
}
