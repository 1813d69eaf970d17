package hostse2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/execx"
)

// TestHostsSourceRoomKept (safety-hosts): the source on a filesystem of
// its own on its host (a 40 MiB tmpfs there), and the source host's work
// directory, where its share of the dumps goes, on that same filesystem.
// A served source stops when its variable extents, BI or AI cannot
// extend; so the run is refused (exit 3) before it writes on any host,
// naming the host, the filesystem and the source's files that grow
// there, unless what it leaves is at least the source's headroom (the
// default of at least 1 GiB, or --source-headroom). The old code counted
// only oedl's own files on a host (they fit) and ran. Stated by the DBA,
// a headroom the filesystem leaves lets the run go on, verified.
func TestHostsSourceRoomKept(t *testing.T) {
	h := newHostsEnv(t, "sports")
	own := filepath.Dir(h.sourceDB())
	h.lab.Mount("src", own, "40m")
	h.ownSource(t)
	data, err := os.ReadFile(h.hosts)
	require.NoError(t, err)
	srcWork := filepath.Join(own, "work")
	s := strings.Replace(string(data), "work: "+filepath.Join(h.lab.Root, "work"), "work: "+srcWork, 1) // src's, the first host
	require.NoError(t, os.WriteFile(h.hosts, []byte(s), 0o644))

	r := h.oedl(nil, h.runArgs()...)
	h.keep()
	assert.Equal(t, 3, r.code, "%s\n%s", r.stdout, r.stderr)
	for _, want := range []string{"host src: no room left for the source " + h.sourceDB(), "filesystem of " + srcWork, "1 GiB kept", h.sourceDB() + ".lg"} {
		assert.Contains(t, r.stderr, want)
	}
	assert.Empty(t, h.lsOn("tgt", filepath.Join(h.lab.Root, "new")), "nothing made on the target's host")
	assert.Empty(t, h.lsOn("src", filepath.Join(srcWork, "dump")), "nothing dumped beside the source")

	r = h.oedl(nil, h.runArgs("--source-headroom", "8MiB")...)
	require.Equal(t, 0, r.code, "%s\n%s", r.stdout, r.stderr)
	h.verified()
}

// lsOn lists dir on a host, over its ssh ("" when it is empty or not there).
func (h *hostsEnv) lsOn(host, dir string) string {
	var out strings.Builder
	_, _ = h.lab.SSH(host).Run(context.Background(), execx.Cmd{Path: "sh", Args: []string{"-c", `ls -A -- "$1" 2>/dev/null; true`, "sh", dir}, Stdout: &out})
	return strings.TrimSpace(out.String())
}
