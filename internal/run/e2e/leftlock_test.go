package e2e

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A source whose broker died without a shutdown (kill -9 here; a crash or
// a reboot in life) keeps its DB.lk, and OpenEdge runs crash recovery at
// its next open by a broker or a single-user session, writing its BI and
// data extents. The run opened it anyway (the preflight's session, then
// its own broker), dumped it, verified and left it without its DB.lk: the
// source's files changed and nobody was told (safety trial 14). Now the
// run refuses, exit 3, naming DB.lk and what the DBA does first, and the
// source's files are as they were.
func TestRunRefusesASourceLeftByACrash(t *testing.T) {
	e := newEnv(t, "sports")
	e.dlc()("proserve", e.source)
	lk := e.source + ".lk"
	data, err := os.ReadFile(lk)
	require.NoError(t, err)
	fields := strings.Fields(string(data)) // oesim's DB.lk: mode, pid, host
	require.GreaterOrEqual(t, len(fields), 2, "%q", data)
	pid, err := strconv.Atoi(fields[1])
	require.NoError(t, err)
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL), "the broker this test started")
	deadline := time.Now().Add(time.Minute)
	for syscall.Kill(pid, 0) == nil {
		require.True(t, time.Now().Before(deadline), "the killed broker never ended")
		time.Sleep(20 * time.Millisecond) // a zombie until its parent, init, reaps it
	}
	require.FileExists(t, lk, "a killed broker leaves its DB.lk")
	before := files(t, e.source[:strings.LastIndex(e.source, "/")])

	r := e.oedl(nil, e.runArgs()...)
	assert.Equal(t, 3, r.code, r.stderr)
	assert.Contains(t, r.stderr, lk)
	assert.Contains(t, r.stderr, "proserve")
	assert.Equal(t, before, files(t, e.source[:strings.LastIndex(e.source, "/")]), "the source's files are as they were")
}
