package hostfs

import (
	"bytes"
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/hosttest"
)

func sshFS(t *testing.T, l *hosttest.Lab, name string) *Remote {
	r := execx.NewSSH(name, execx.SSHOptions{Config: l.SSHConfig, AliveInterval: time.Second, AliveCount: 2, ConnectTimeout: 5 * time.Second})
	t.Cleanup(func() { _ = r.Close() })
	f := &Remote{Name: name, R: r}
	f.Own(filepath.Join(l.Root, "work"))
	return f
}

func hostSide(t *testing.T, h *hosttest.Host) func(string) {
	return func(script string) {
		out, err := h.Exec("sh", "-c", script)
		require.NoError(t, err, "%s", out)
	}
}

// The same answers over SSH, from a host whose files this process cannot
// see.
func TestRemoteOverSSH(t *testing.T) {
	l := hosttest.New(t, hosttest.Spec{Name: "h1"})
	f := sshFS(t, l, "h1")
	require.NoError(t, f.CheckTools(context.Background()))
	conformance(t, f, filepath.Join(l.Root, "work"), hostSide(t, l.Hosts["h1"]))
	assert.Equal(t, 1, l.Hosts["h1"].Logins())
}

// A copy between two hosts through this process, and a copy whose link
// is cut half way: it fails, and nothing lands under the file's name.
func TestCopyBetweenHosts(t *testing.T) {
	l := hosttest.New(t, hosttest.Spec{Name: "a"}, hosttest.Spec{Name: "b"})
	ctx := context.Background()
	a, b := sshFS(t, l, "a"), sshFS(t, l, "b")
	data := make([]byte, 8<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	src := filepath.Join(l.Root, "work", "dump", awkwardName)
	require.NoError(t, a.MkdirAll(ctx, filepath.Dir(src)))
	require.NoError(t, a.WriteFile(ctx, src, data))
	sums, err := a.Sums(ctx, src)
	require.NoError(t, err)
	dst := filepath.Join(l.Root, "work", "in", "t.bd")
	sum, err := Copy(ctx, a, src, b, dst, sums[0])
	require.NoError(t, err)
	assert.Equal(t, sums[0].SHA256, sum.SHA256)
	back, err := b.ReadFile(ctx, dst)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(data, back))

	// The source's link is cut while the copy runs (slowed to 8 Mbit/s,
	// about 8 s for the file).
	require.NoError(t, l.Hosts["a"].Shape(8))
	done := make(chan error, 1)
	dst2 := filepath.Join(l.Root, "work", "in", "t.bd2")
	go func() { _, err := Copy(ctx, a, src, b, dst2, sums[0]); done <- err }()
	time.Sleep(1500 * time.Millisecond)
	require.NoError(t, l.Hosts["a"].Cut())
	select {
	case err = <-done:
	case <-time.After(40 * time.Second):
		t.Fatal("the copy over a cut link never ended")
	}
	require.Error(t, err)
	st, err := b.Lstat(ctx, dst2, dst2+PartSuffix)
	require.NoError(t, err)
	assert.Empty(t, st, "neither the file nor its part is on the target")
}
