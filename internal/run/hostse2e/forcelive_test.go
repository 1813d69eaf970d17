package hostse2e

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/execx"
)

// force-live on a target on another host: the run ends verified; a second
// run without --force is refused naming the target's host; the DBA
// serves the target on its host and shuts it down, and the old command
// line runs again with --force. The target's record was stamped over ssh
// with each file's size and times (GNU stat's %Y and %Z), and the refusal
// (exit 3) names the log that grew; every file of the target is byte for
// byte what it was.
func TestHostsForceRefusesATargetWentLiveOn(t *testing.T) {
	h := newHostsEnv(t, "sports")
	r := h.oedl(nil, h.runArgs()...)
	require.Equal(t, 0, r.code, "%s\n%s", r.stdout, r.stderr)
	h.verified()
	target := filepath.Join(h.lab.Root, "new", "sports")
	tgt := h.on("tgt")
	tgt("proserve", target)
	tgt("proshut", target, "-by")
	before := h.sumsOn(t, "tgt", filepath.Dir(target))

	// Without --force: refused, naming the host the files are on (the
	// same path may exist on the controller or another host).
	h.work = filepath.Join(h.dir, "work2")
	r = h.oedl(nil, h.runArgs()...)
	assert.Equal(t, 3, r.code, "%s\n%s", r.stdout, r.stderr)
	assert.Contains(t, r.stderr, "oedl: host tgt: ")
	assert.Contains(t, r.stderr, "files the run would create already exist")

	h.work = filepath.Join(h.dir, "work3")
	r = h.oedl(nil, h.runArgs("--force")...)
	assert.Equal(t, 3, r.code, "%s\n%s", r.stdout, r.stderr)
	assert.Contains(t, r.stderr, "--force replaces a target only while it is exactly as the oedl run that made it left it, and "+target+" is not")
	assert.Contains(t, r.stderr, target+".lg changed since the oedl run in")
	assert.Contains(t, r.stderr, "its log grew")
	assert.Equal(t, before, h.sumsOn(t, "tgt", filepath.Dir(target)), "every file of the target as it was")
}

// sumsOn is the size and SHA-256 of every file in dir on host.
func (h *hostsEnv) sumsOn(t *testing.T, host, dir string) string {
	res, err := h.lab.SSH(host).Run(context.Background(), execx.Cmd{Path: "sh",
		Args: []string{"-c", `cd -- "$1" && for f in *; do [ -f "$f" ] && printf '%s %s\n' "$(wc -c < "$f")" "$(sha256sum < "$f")  $f"; done`, "sh", dir}})
	require.NoError(t, err, "%s", res.Output)
	require.NotEmpty(t, res.Output)
	return string(res.Output)
}
