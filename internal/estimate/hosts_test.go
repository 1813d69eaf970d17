package estimate

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/schedule"
)

// Hand-computed windows on several hosts, each with a 100 MB/s disk of
// its own and fast links: a dump and its load run on different machines.
func TestHostsHandComputed(t *testing.T) {
	hw := Hardware{Cores: 4, DiskMBps: 100}
	fast := map[string]Link{"src": {MBps: 1e6}, "dr": {MBps: 1e6}, "tgt": {MBps: 1e6}}
	moves := func(h string) bool { return h != "tgt" }
	two := &Hosts{Layout: &schedule.Hosts{Source: "src", Target: "tgt", Moves: moves}, Links: fast}
	three := &Hosts{Layout: &schedule.Hosts{Source: "src", Replicas: []string{"dr"}, Target: "tgt", Moves: moves}, Links: fast}
	run := func(h *Hosts) *Estimate {
		est, err := Run(context.Background(), Input{Plan: testPlan(100e6, 300e6), Hardware: hw, Model: diskOnlyModel(),
			Strategy: Strategy{DumpJobs: 2, LoadJobs: 2}, Hosts: h})
		require.NoError(t, err)
		return est
	}
	one := run(nil)
	assert.Equal(t, 8*time.Second, one.Window.D(), "one disk: 800 MB at 100 MB/s")
	// Two machines: dumps (400 MB) on the source's disk, loads on the
	// target's: t1 dumps from 0 to 4 s sharing with t0 (1 s alone at
	// first), then loads 3 s on the target's disk: 7 s.
	w2 := run(two).Window.D()
	assert.Less(t, w2, one.Window.D())
	// A replica takes the larger table: both dumps run at once, each on
	// its own disk (1 s and 3 s), and the loads follow on the target.
	est3 := run(three)
	w3 := est3.Window.D()
	assert.Less(t, w3, w2, "the replica's disk shortens the dump")
	assert.Equal(t, 6*time.Second, w3, "t1: dumped on the replica 0-3 s, loaded on the target 3-6 s; t0 loaded 1-2 s")
	require.NotNil(t, est3.Hosts)
	assert.Equal(t, w2, est3.Hosts.WithoutReplicas.D(), "the same hosts without the replica")
	assert.Equal(t, w2-w3, est3.Hosts.Saves.D())
	shares := map[string]HostShare{}
	for _, h := range est3.Hosts.Hosts {
		shares[h.Name] = h
	}
	assert.Equal(t, int64(400e6), shares["dr"].Bytes+shares["src"].Bytes)
	assert.Equal(t, 1, shares["dr"].Dumps, "each copy dumps one table (an even tie here: neither disk has anything else to read)")
	var text strings.Builder
	require.NoError(t, est3.WriteText(&text, 5))
	assert.Contains(t, text.String(), "without the replicas: 7s; they save 1s")
}

// A slow link is the window: the moves wait on it.
func TestHostsSlowLink(t *testing.T) {
	hw := Hardware{Cores: 4, DiskMBps: 100}
	layout := &schedule.Hosts{Source: "src", Target: "tgt", Moves: func(h string) bool { return h != "tgt" }}
	est, err := Run(context.Background(), Input{Plan: testPlan(100e6, 300e6), Hardware: hw, Model: diskOnlyModel(),
		Strategy: Strategy{DumpJobs: 2, LoadJobs: 2}, Hosts: &Hosts{Layout: layout, Links: map[string]Link{"src": {MBps: 10}}}})
	require.NoError(t, err)
	assert.Greater(t, est.Window.D(), 40*time.Second, "400 MB over 10 MB/s")
}
