package hostse2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/hosttest"
)

// A host's own startup parameter file connecting a database is refused
// before anything is made there (safety trial 8): every _progres oedl
// starts on the target's host (load_df.p, load_seqvals.p,
// load_security.p) reads the $PROSTARTUP of that host's session, or its
// $DLC/startup.pf, and connects its -db first, which would then be the
// database they write to. The one-machine run refused this since safety
// trial 7; a run across hosts checked no host's file. PROSTARTUP comes
// from the host's own environment (sshd's SetEnv, as a login profile
// would set it) or from the hosts file's env. oesim reads no startup
// file, so what is tested is the refusal, before anything is made on the
// target's host, and that a file without -db is let through. A relative
// $PROSTARTUP is refused whatever it holds: the host's sessions read it
// from their own directories, several, and none is the DBA's.
func TestHostsStartupPFConnectingADatabaseIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name      string
		host      string // whose environment names the file
		hostsFile bool   // PROSTARTUP from the hosts file's env, not the host's
		pf        string
		refused   bool
		relative  bool // PROSTARTUP names the file by a relative name
	}{
		{"the target host's PROSTARTUP", "tgt", false, "-cpinternal UTF-8\n-db /srv/prod -H dbhost -S 5000\n", true, false},
		{"the source host's PROSTARTUP, through a -pf", "src", false, "-pf NESTED\n", true, false},
		{"the hosts file's PROSTARTUP for the target", "tgt", true, "-db /srv/prod\n", true, false},
		{"a startup file without -db", "tgt", false, "-d dmy -cpinternal UTF-8\n", false, false},
		{"a relative PROSTARTUP on the target's host", "tgt", true, "-d dmy\n", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hosttest.Require(t)
			// Outside the hosts' private Root: every host sees it.
			local := t.TempDir()
			pf, nested := filepath.Join(local, "startup.pf"), filepath.Join(local, "nested.pf")
			require.NoError(t, os.WriteFile(pf, []byte(strings.ReplaceAll(tc.pf, "NESTED", nested)), 0o644))
			require.NoError(t, os.WriteFile(nested, []byte("-db /srv/prod\n"), 0o644))
			name := pf
			if tc.relative {
				name = filepath.Base(pf)
			}
			specs := []hosttest.Spec{{Name: "src", Shell: "/bin/sh"}, {Name: "dr", Shell: "/bin/sh"}, {Name: "tgt", Shell: "/bin/sh"}}
			for i := range specs {
				if specs[i].Name == tc.host && !tc.hostsFile {
					specs[i].Env = []string{"PROSTARTUP=" + name}
				}
			}
			h := newHostsEnv(t, "sports", specs...)
			if tc.hostsFile {
				data, err := os.ReadFile(h.hosts)
				require.NoError(t, err)
				at := "  " + tc.host + ":\n"
				require.Contains(t, string(data), at)
				s := strings.Replace(string(data), at, at+"    env:\n      PROSTARTUP: "+name+"\n", 1)
				require.NoError(t, os.WriteFile(h.hosts, []byte(s), 0o644))
			}

			r := h.oedl(nil, h.runArgs()...)
			if !tc.refused {
				require.Equal(t, 0, r.code, "%s\n%s", r.stdout, r.stderr)
				h.verified()
				return
			}
			require.Equal(t, 3, r.code, "%s\n%s", r.stdout, r.stderr)
			assert.Contains(t, r.stderr, "host "+tc.host)
			if tc.relative {
				assert.Contains(t, r.stderr, "$PROSTARTUP "+name+" is a relative name")
			} else {
				assert.Contains(t, r.stderr, "-db /srv/prod")
				assert.Contains(t, r.stderr, pf)
			}
			out, err := h.lab.Hosts["tgt"].Exec("sh", "-c", "ls -d "+filepath.Join(h.lab.Root, "new")+" 2>/dev/null || echo absent")
			require.NoError(t, err)
			assert.Equal(t, "absent\n", string(out), "nothing made on the target's host")
		})
	}
}
