package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/hostfs"
	"github.com/oedl/oedl/internal/hosts"
	"github.com/oedl/oedl/internal/plan"
)

// TestOpenEdgeOnHosts: a run across hosts records each host's release
// (the report named the release of the machine oedl runs on), and warns
// when the target's differs from the source's, naming both hosts.
func TestOpenEdgeOnHosts(t *testing.T) {
	for _, tt := range []struct {
		name, old, new string
		warn           bool
	}{
		{"same release", "OpenEdge Release 12.8 as of Wed Jan 24 2024", "OpenEdge Release 12.8 as of Wed Jan 24 2024", false},
		{"newer target", "OpenEdge Release 11.7.4 as of Mon Oct 1 2018", "OpenEdge Release 12.8 as of Wed Jan 24 2024", true},
		{"no version file on the target", "OpenEdge Release 12.8 as of Wed Jan 24 2024", "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for host, v := range map[string]string{"old": tt.old, "new": tt.new} {
				require.NoError(t, os.MkdirAll(filepath.Join(dir, host), 0o755))
				if v != "" {
					require.NoError(t, os.WriteFile(filepath.Join(dir, host, "version"), []byte(v+"\n"), 0o644))
				}
			}
			hf, err := hosts.Parse("hosts.yaml", []byte(fmt.Sprintf("hosts:\n  old:\n    role: source\n    ssh: old1\n    db: /db/prod\n    dlc: %s/old\n    work: /w\n  new:\n    role: target\n    ssh: new1\n    db: /newdb/prod\n    dlc: %s/new\n    work: /w\n", dir, dir)))
			require.NoError(t, err)
			cfg := Config{Hosts: hf, PlanDir: "/plan", Work: "/here", Plan: &plan.Plan{BlockSize: 8192}, DumpJobs: 2, LoadJobs: 2}
			cfg.fill()
			cfg.setupHosts()
			for _, h := range []string{"old", "new"} {
				cfg.machine(h).fs = &hostfs.Local{} // each host's DLC is a directory here
			}
			r := &runner{cfg: &cfg}
			got := r.openEdgeOnHosts(context.Background())
			want := "new: unknown (no $DLC/version)"
			if tt.new != "" {
				want = "new: " + tt.new
			}
			assert.Equal(t, "old: "+tt.old+"; "+want, got)
			if !tt.warn {
				assert.Empty(t, r.warnings)
				return
			}
			require.Len(t, r.warnings, 1)
			assert.Contains(t, r.warnings[0], "OpenEdge differs: the source's host old has \""+tt.old+"\", the target's host new has")
		})
	}
}
