package run

import (
	"fmt"
	"strings"

	"github.com/oedl/oedl/internal/hosts"
	"github.com/oedl/oedl/internal/journal"
)

// A run across hosts learns from the hosts file on which machine, and
// where there, each database and work directory is; the journal kept only
// the file's name, and --source and --target (the databases' paths) are
// all a resume compared. A hosts file edited between two invocations (the
// target's ssh destination changed to another machine holding a database
// at the same path, the source's and the target's roles swapped, a host's
// work directory moved where another run's dumps are) would have the
// resume work where no preflight of the run's first invocation proved
// anything, its journal's jobs taken as done on machines that never saw
// them (safety trial 11). So the run's record keeps the source's and the
// target's places (a replica may be taken out of the file, or one added,
// between invocations: each is proven against the source before it
// dumps), and a resume whose hosts file places any elsewhere, or that drops or
// adds --hosts, is bad usage, exit 2, like another --plan. What does not
// move the run (the hosts' env, cores and disk figures, the ssh options)
// may change: a resume is where a DBA fixes a startup parameter file.

// hostsPlaces are the places of the hosts file's source and target, nil
// without one.
func (c *Config) hostsPlaces() []string {
	if c.Hosts == nil {
		return nil
	}
	out := make([]string, 0, 2)
	for _, h := range c.Hosts.Hosts {
		if h.Role != hosts.Source && h.Role != hosts.Target {
			continue // a replica may be taken out, or one added: it is proven before it dumps (docs/hosts.md)
		}
		ssh := h.SSH
		if ssh == "" {
			ssh = "none (this machine)"
		}
		out = append(out, fmt.Sprintf("%s: role %s, ssh %s, db %s, dlc %s, work %s", h.Name, h.Role, ssh, h.DB, h.DLC, h.Work))
	}
	return out
}

// hostsPlacesChanged refuses a resume whose hosts file places a host
// elsewhere than the run's first invocation did, or adds or drops --hosts.
// A journal of an oedl that recorded no places is not checked.
func hostsPlacesChanged(c *Config, first journal.Record) error {
	now := c.hostsPlaces()
	switch {
	case first.HostsFile == "" && first.PlanDir != "" && now != nil:
		// PlanDir and HostsFile came into the record together: one
		// without the other is a run on one machine.
		return &UsageError{Err: fmt.Errorf("%s holds a run begun on this machine, without --hosts: give the command it began with to continue it, or start a run across hosts in a new --work directory",
			c.work(journal.FileName))}
	case first.HostsFile != "" && c.Hosts == nil:
		return &UsageError{Err: fmt.Errorf("%s holds a run begun across hosts (--hosts %s): give --hosts to continue it", c.work(journal.FileName), first.HostsFile)}
	case len(first.HostsPlaces) == 0:
		return nil
	}
	was := map[string]bool{}
	for _, p := range first.HostsPlaces {
		was[p] = true
	}
	is := map[string]bool{}
	var why []string
	for _, p := range now {
		is[p] = true
		if !was[p] {
			why = append(why, "now "+p)
		}
	}
	for _, p := range first.HostsPlaces {
		if !is[p] {
			why = append(why, "began with "+p)
		}
	}
	if len(why) == 0 {
		return nil
	}
	return &UsageError{Err: fmt.Errorf("%s holds a run begun with its hosts placed otherwise than --hosts %s places them: %s; put back the hosts file it began with to continue it (its env and the hosts' figures may change), or start again in a new --work directory",
		c.work(journal.FileName), c.hostsFile(), strings.Join(why, "; "))}
}
