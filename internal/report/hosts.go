package report

import (
	"sort"
	"time"

	"github.com/oedl/oedl/internal/hosts"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/schedule"
)

// HostRow is what one host did in a run on several hosts (docs/hosts.md),
// from the journal, which records where each job ran.
type HostRow struct {
	Name       string
	Role, SSH  string // from the hosts file, when the report is given one
	Jobs       int
	Failed     int
	Dumps      int
	DumpBytes  int64
	Moves      int // moves of its dumps to the target's machine
	MovedBytes int64
	Loads      int
	Start, End time.Duration // its first job's start and last job's end, from the run's start
}

// HostRows are the hosts of the journal, in the order they first appear
// (nil for a run on one machine: no job names a host), times from start.
func HostRows(recs []journal.Record, start time.Time) []HostRow {
	by := map[string]*HostRow{}
	var order []string
	started := map[string]time.Time{}
	for _, r := range recs {
		if r.Host == "" || r.Job == journal.RunJob {
			continue
		}
		h := by[r.Host]
		if h == nil {
			h = &HostRow{Name: r.Host, Start: -1}
			by[r.Host] = h
			order = append(order, r.Host)
		}
		at := r.Time.Sub(start)
		switch r.State {
		case journal.Started:
			started[r.Job] = r.Time
			if h.Start < 0 || at < h.Start {
				h.Start = at
			}
		case journal.Failed:
			h.Jobs++
			h.Failed++
			h.End = max(h.End, at)
		case journal.Done:
			h.Jobs++
			h.End = max(h.End, at)
			var bytes int64
			for _, f := range r.Files {
				bytes += f.Size
			}
			switch schedule.Kind(r.Kind) {
			case schedule.KindDump:
				h.Dumps++
				h.DumpBytes += bytes
			case schedule.KindMove:
				h.Moves++
				h.MovedBytes += bytes
			case schedule.KindLoad:
				h.Loads++
			}
		}
	}
	out := make([]HostRow, 0, len(order))
	for _, n := range order {
		h := *by[n]
		h.Start = max(0, h.Start)
		out = append(out, h)
	}
	return out
}

// WithHosts adds what the hosts file says of each host (its role and ssh
// destination) to the report's rows, and a row for a host of the file
// that did nothing.
func (d *Data) WithHosts(f *hosts.File) {
	if f == nil {
		return
	}
	seen := map[string]bool{}
	for i := range d.Hosts {
		if h := f.Host(d.Hosts[i].Name); h != nil {
			d.Hosts[i].Role, d.Hosts[i].SSH = string(h.Role), sshOrHere(h)
		}
		seen[d.Hosts[i].Name] = true
	}
	for _, h := range f.Hosts {
		if !seen[h.Name] {
			d.Hosts = append(d.Hosts, HostRow{Name: h.Name, Role: string(h.Role), SSH: sshOrHere(h)})
		}
	}
	sort.SliceStable(d.Hosts, func(a, b int) bool { return roleOrder(d.Hosts[a].Role) < roleOrder(d.Hosts[b].Role) })
}

func sshOrHere(h *hosts.Host) string {
	if h.Local() {
		return "this machine"
	}
	return h.SSH
}

func roleOrder(r string) int {
	switch hosts.Role(r) {
	case hosts.Source:
		return 0
	case hosts.Replica:
		return 1
	case hosts.Target:
		return 2
	}
	return 3
}
