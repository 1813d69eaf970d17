package run

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/oedl/oedl/internal/openedge"
)

// openEdgeOnHosts reads the OpenEdge release of each host's DLC (the
// first line of $DLC/version, over its connection) for the run's record
// and report: on a run across hosts the machine oedl runs on may have
// another release, or none, and the report named that one. When the
// target's release is not the source's it warns: the target's utilities
// load what the source's wrote (the binary dumps, the .df, the sequence
// values and the users), so the DBA checks that they read it, before the
// outage. Not refused: a move to a newer release is a usual reason to
// dump and load, and oedl cannot tell which pairs load from the names.
func (r *runner) openEdgeOnHosts(ctx context.Context) string {
	c := r.cfg
	l := c.hostLayout()
	release := map[string]string{}
	var parts []string
	for _, h := range append(append([]string{l.Source}, l.Replicas...), l.Target) {
		v := "unknown (no $DLC/version)"
		if data, err := c.machine(h).fs.ReadFile(ctx, path.Join(c.at(h).DLC, "version")); err == nil {
			if s := openedge.FirstLine(bytes.NewReader(data)); s != "" {
				v = s
			}
		}
		release[h] = v
		parts = append(parts, h+": "+v)
	}
	if release[l.Source] != release[l.Target] {
		r.warnings = append(r.warnings, fmt.Sprintf("OpenEdge differs: the source's host %s has %q, the target's host %s has %q; the target's utilities load what the source's wrote (binary dumps, .df, sequences, users): check they read it (a rehearsal on these hosts) before the outage",
			l.Source, release[l.Source], l.Target, release[l.Target]))
	}
	return strings.Join(parts, "; ")
}
