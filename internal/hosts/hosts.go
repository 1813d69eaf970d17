package hosts

import (
	"time"
)

// Role is what a host holds.
type Role string

const (
	// Source is the database being migrated (frozen for the outage).
	Source Role = "source"
	// Replica holds a copy of the source (an OpenEdge Replication target,
	// a restored backup): dumps may run there once it is proven to hold
	// the frozen source's data.
	Replica Role = "replica"
	// Target is where the new database is created and loaded.
	Target Role = "target"
)

// Host is one entry of the hosts file.
type Host struct {
	Name string
	Role Role
	// SSH is the ssh destination ("dba@prod1", an ssh_config Host alias);
	// "" is the machine oedl runs on.
	SSH  string
	DB   string // the database on that host (absolute, as given)
	DLC  string // $DLC on that host ("" = the --dlc of the command)
	Work string // oedl's directory on that host: dumps, sort files ("" = --work, local only)
	// Env is set for every utility on that host (KEY=VALUE, sorted by key).
	Env []string

	// Hardware for the estimate (0 = not given).
	Cores    int
	DiskMBps float64
	IOPS     float64
	// LinkMBps and Latency describe the network between this host and the
	// machine oedl runs on, which every transfer crosses.
	LinkMBps float64
	Latency  time.Duration
	// CallMs is what one remote call costs besides the utility (a session
	// and the login shell), for the estimate.
	CallMs float64

	Line int // where the host is defined in the file (0: not from a file)
}

// Local reports whether the host is the machine oedl runs on.
func (h *Host) Local() bool { return h.SSH == "" }

// Machine names the machine the host is on: its ssh destination, or ""
// for oedl's own. Hosts on one machine share one connection, and a file
// moves between hosts only when their machines differ.
func (h *Host) Machine() string { return h.SSH }

// SSHOptions are the settings of every connection.
type SSHOptions struct {
	// Config is an ssh_config file (ssh -F); "" reads the user's own.
	Config string
	// AliveInterval and AliveCount: a connection that answers none of
	// AliveCount probes sent every AliveInterval is declared lost (ssh's
	// ServerAliveInterval, ServerAliveCountMax).
	AliveInterval time.Duration
	AliveCount    int
	// ConnectTimeout bounds the connection's set-up.
	ConnectTimeout time.Duration
}

// Defaults of SSHOptions: a lost host is noticed within 15 s.
const (
	DefaultAliveInterval  = 5 * time.Second
	DefaultAliveCount     = 3
	DefaultConnectTimeout = 15 * time.Second
)

// File is a parsed hosts file.
type File struct {
	Path  string // "" for the single-host default
	SSH   SSHOptions
	Hosts []*Host // in the file's order
}

// Single is the default: one machine, the one oedl runs on, holding the
// source and the target (no file needed).
func Single(source, target, dlc, work string) *File {
	return &File{
		SSH: SSHOptions{AliveInterval: DefaultAliveInterval, AliveCount: DefaultAliveCount, ConnectTimeout: DefaultConnectTimeout},
		Hosts: []*Host{
			{Name: "source", Role: Source, DB: source, DLC: dlc, Work: work},
			{Name: "target", Role: Target, DB: target, DLC: dlc, Work: work},
		},
	}
}

// Source is the source host.
func (f *File) Source() *Host { return f.first(Source) }

// Target is the target host.
func (f *File) Target() *Host { return f.first(Target) }

// Replicas are the replica hosts, in the file's order.
func (f *File) Replicas() []*Host {
	var out []*Host
	for _, h := range f.Hosts {
		if h.Role == Replica {
			out = append(out, h)
		}
	}
	return out
}

// Host returns the host of that name, or nil.
func (f *File) Host(name string) *Host {
	for _, h := range f.Hosts {
		if h.Name == name {
			return h
		}
	}
	return nil
}

// Remote reports whether any host is reached over ssh.
func (f *File) Remote() bool {
	for _, h := range f.Hosts {
		if !h.Local() {
			return true
		}
	}
	return false
}

// Copies are the hosts holding the source's data, the source first: where
// a table may be dumped.
func (f *File) Copies() []*Host { return append([]*Host{f.Source()}, f.Replicas()...) }

func (f *File) first(r Role) *Host {
	for _, h := range f.Hosts {
		if h.Role == r {
			return h
		}
	}
	return nil
}

// Defaults fills the settings the file left out: a host's DLC and work
// directory from the command's flags (a remote host must name its work
// directory: oedl's local one means nothing there).
func (f *File) Defaults(dlc, work string) {
	for _, h := range f.Hosts {
		if h.DLC == "" {
			h.DLC = dlc
		}
		if h.Work == "" && h.Local() {
			h.Work = work
		}
	}
}
