package estimate

import (
	"context"
	"math"
	"sort"
	"time"

	"github.com/oedl/oedl/internal/hosts"
	"github.com/oedl/oedl/internal/schedule"
	"github.com/oedl/oedl/internal/units"
)

// Hosts is a run on several machines as the estimate sees it
// (docs/hosts.md): the graph's placement (the same schedule.Hosts the run
// uses), each host's hardware, and the network between each host and the
// machine oedl runs on. Every host is a machine of its own in the
// simulation, with its own cores and disk (and burst bucket), so that the
// dumps on a replica do not slow those on the source; a move is a stream
// over the link of the host it leaves, through oedl's machine.
type Hosts struct {
	Layout   *schedule.Hosts
	Hardware map[string]Hardware // by host name; a host missing has Input.Hardware
	Links    map[string]Link     // by host name; a host missing has DefaultLink
	// Machines names the machine of each host: hosts on one machine share
	// its cores and disk (a host missing is a machine of its own).
	Machines map[string]string
}

// Link is the network between a host and the machine oedl runs on.
type Link struct {
	MBps      float64 // MB/s (10^6 bytes)
	LatencyMs float64 // one way
	// CallMs is what one call on the host costs besides the utility: a
	// session of the ssh connection and the login shell that runs the
	// command (0 for this machine).
	CallMs float64
}

// DefaultLink is a gigabit link (about 117 MB/s of payload) on a LAN, and
// a call of 20 ms.
var DefaultLink = Link{MBps: 117, LatencyMs: 0.2, CallMs: 20}

// HostsFrom describes the hosts of a hosts file: each host's hardware is
// base with what the file says of it (cores, disk-mbps, iops), and its
// link what the file says (link-mbps, latency-ms) over DefaultLink.
func HostsFrom(f *hosts.File, base Hardware) *Hosts {
	h := &Hosts{Layout: &schedule.Hosts{Source: f.Source().Name, Target: f.Target().Name},
		Hardware: map[string]Hardware{}, Links: map[string]Link{}, Machines: map[string]string{}}
	target := f.Target()
	h.Layout.Moves = func(name string) bool { x := f.Host(name); return x != nil && x.Machine() != target.Machine() }
	for _, r := range f.Replicas() {
		h.Layout.Replicas = append(h.Layout.Replicas, r.Name)
	}
	for _, x := range f.Hosts {
		hw := base
		if x.Cores > 0 {
			hw.Cores = x.Cores
		}
		if x.DiskMBps > 0 {
			hw.DiskMBps = x.DiskMBps
		}
		if x.IOPS > 0 {
			hw.DiskIOPS = x.IOPS
		}
		h.Hardware[x.Name] = hw
		h.Machines[x.Name] = "ssh:" + x.Machine()
		l := DefaultLink
		if x.Local() {
			l.CallMs = 0
		}
		if x.CallMs > 0 {
			l.CallMs = x.CallMs
		}
		if x.LinkMBps > 0 {
			l.MBps = x.LinkMBps
		}
		if x.Latency > 0 {
			l.LatencyMs = float64(x.Latency.Microseconds()) / 1000
		}
		h.Links[x.Name] = l
	}
	return h
}

// WithoutReplicas is the same hosts with the replicas left out: what the
// window would be without them, to say what they save.
func (h *Hosts) WithoutReplicas() *Hosts {
	if h == nil {
		return nil
	}
	l := *h.Layout
	l.Replicas = nil
	return &Hosts{Layout: &l, Hardware: h.Hardware, Links: h.Links, Machines: h.Machines}
}

func (h *Hosts) layout() *schedule.Hosts {
	if h == nil {
		return nil
	}
	return h.Layout
}

func (h *Hosts) hardware(name string, base Hardware) Hardware {
	if h != nil {
		if hw, ok := h.Hardware[name]; ok {
			return hw
		}
	}
	return base
}

func (h *Hosts) link(name string) Link {
	if h != nil {
		if l, ok := h.Links[name]; ok {
			return l
		}
	}
	return DefaultLink
}

// linkHardware is a link as a machine of the simulation: its one device
// is the network, serving one stream's bytes after another.
func linkHardware(l Link) Hardware {
	return Hardware{Cores: 1 << 10, DiskMBps: l.MBps, DiskModel: DiskSerial}
}

// simKey is the machine of the simulation a job runs on: its host's
// machine, or, for a move, the link of the host it leaves.
func (h *Hosts) simKey(j *schedule.Job) string {
	if j.Kind == schedule.KindMove {
		return "link:" + j.Host
	}
	if m, ok := h.Machines[j.Host]; ok {
		return m
	}
	return j.Host
}

// moveWork is a move: its calls (a round trip and a session each, on both
// links), then its bytes over the link.
func moveWork(j *schedule.Job, l Link) jobWork {
	return jobWork{startup: 2 * (2*l.LatencyMs + l.CallMs) / 1000, flows: []flowDemand{{bytes: float64(j.Bytes), par: 1, qd: 1}}}
}

// remoteCalls is how many calls a job makes on its host beyond the
// utility's own (preparing a dump's directory and summing its files,
// listing a load's), each paying Link.CallMs.
func remoteCalls(k schedule.Kind) float64 {
	switch k {
	case schedule.KindDump:
		return 3
	case schedule.KindCreateTarget:
		return 6
	case schedule.KindServe, schedule.KindShutdown:
		return 2
	}
	return 1
}

// multiSim runs one sim per machine (hosts, links) on one clock.
type multiSim struct {
	sims map[string]*sim
	keys []string // sorted, so that events come in a fixed order
	now  float64
}

func (ms *multiSim) get(key string, hw func() Hardware) *sim {
	s := ms.sims[key]
	if s == nil {
		s = newSim(hw())
		s.now = ms.now
		ms.sims[key] = s
		ms.keys = append(ms.keys, key)
		sort.Strings(ms.keys)
	}
	return s
}

func (ms *multiSim) idle() bool {
	for _, s := range ms.sims {
		if !s.idle() {
			return false
		}
	}
	return true
}

// step advances every machine to the next event of any of them.
func (ms *multiSim) step() []simEvent {
	dt := math.Inf(1)
	for _, k := range ms.keys {
		if s := ms.sims[k]; !s.idle() {
			dt = math.Min(dt, s.next())
		}
	}
	if math.IsInf(dt, 1) {
		dt = 0
	}
	ms.now += dt
	var events []simEvent
	for _, k := range ms.keys {
		s := ms.sims[k]
		if s.idle() {
			s.now = ms.now
			continue
		}
		events = append(events, s.advance(dt)...)
		s.now = ms.now // one clock, whatever rounding each machine's sum carried
	}
	return events
}

// HostsSummary is what the estimate says of a run on several hosts: what
// each host does, and what the replicas save.
type HostsSummary struct {
	Hosts []HostShare `json:"hosts"`
	// WithoutReplicas is the window with the same hosts but no replica
	// (0 when there is none); Saves is what the replicas take off it.
	WithoutReplicas Seconds `json:"without_replicas_s,omitempty"`
	Saves           Seconds `json:"replicas_save_s,omitempty"`
}

// HostShare is one host's part of the run.
type HostShare struct {
	Name     string   `json:"name"`
	Hardware Hardware `json:"hardware"`
	Link     Link     `json:"link"`
	Dumps    int      `json:"dumps"`
	Bytes    int64    `json:"dump_bytes"`
	Busy     Seconds  `json:"busy_s"` // from its first job's start to its last job's end
}

// hostsSummary is the hosts' part of an estimate (nil on one machine).
func hostsSummary(ctx context.Context, in *Input, m *Model, s *simulation, window time.Duration) (*HostsSummary, error) {
	if in.Hosts == nil {
		return nil, nil
	}
	l := in.Hosts.Layout
	out := &HostsSummary{}
	by := map[string]*HostShare{}
	for _, name := range append(append([]string{l.Source}, l.Replicas...), l.Target) {
		if by[name] != nil {
			continue
		}
		hs := &HostShare{Name: name, Hardware: in.Hosts.hardware(name, in.Hardware), Link: in.Hosts.link(name)}
		by[name] = hs
		out.Hosts = append(out.Hosts, *hs)
	}
	first, last := map[string]time.Time{}, map[string]time.Time{}
	for _, sp := range s.result.Spans {
		h := sp.Job.Host
		if by[h] == nil {
			continue
		}
		if sp.Job.Kind == schedule.KindDump {
			by[h].Dumps++
			by[h].Bytes += sp.Job.Bytes
		}
		if t, ok := first[h]; !ok || sp.Start.Before(t) {
			first[h] = sp.Start
		}
		if sp.End.After(last[h]) {
			last[h] = sp.End
		}
	}
	for i := range out.Hosts {
		hs := by[out.Hosts[i].Name]
		hs.Busy = Seconds(last[hs.Name].Sub(first[hs.Name]))
		out.Hosts[i] = *hs
	}
	if len(l.Replicas) > 0 {
		without := *in
		without.Hosts = in.Hosts.WithoutReplicas()
		ws, err := without.simulate(ctx, m, nil)
		if err != nil {
			return nil, err
		}
		w := ws.result.Elapsed()
		out.WithoutReplicas, out.Saves = Seconds(w), Seconds(w-window)
	}
	return out, nil
}

// writeHosts is the hosts' section of the text estimate.
func (h *HostsSummary) write(ew *errWriter) {
	if h == nil {
		return
	}
	ew.printf("\nHosts:\n")
	for _, x := range h.Hosts {
		ew.printf("  %-12s %3d dumps (%s)  busy %s  %s, link %.0f MB/s\n", x.Name, x.Dumps, units.FormatIEC(x.Bytes),
			units.FormatDuration(x.Busy.D()), x.Hardware.DiskString(), x.Link.MBps)
	}
	if h.WithoutReplicas > 0 {
		ew.printf("  without the replicas: %s; they save %s\n", units.FormatDuration(h.WithoutReplicas.D()), units.FormatDuration(h.Saves.D()))
	}
}
