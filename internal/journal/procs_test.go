package journal

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/sysproc"
)

// A journal written before processes were recorded (no "running" records,
// no "proc" field) reads and replays as before; one with them keeps every
// process by job, and a Running record changes no job's state.
func TestReplayProcesses(t *testing.T) {
	old := `{"v":1,"seq":1,"job":"run","state":"started","pid":4242}
{"v":1,"seq":2,"job":"load:PUB.a","kind":"load","state":"started","table":"PUB.a","area":"A"}
`
	current := old + `{"v":1,"seq":3,"job":"load:PUB.a","kind":"load","state":"running","table":"PUB.a","area":"A","proc":{"pid":77,"start":12345,"boot":"b1"}}
{"v":1,"seq":4,"job":"dump:PUB.b","kind":"dump","state":"started","table":"PUB.b"}
{"v":1,"seq":5,"job":"dump:PUB.b","kind":"dump","state":"running","table":"PUB.b","proc":{"pid":78,"start":12346,"boot":"b1"}}
{"v":1,"seq":6,"job":"dump:PUB.b","kind":"dump","state":"done","table":"PUB.b"}
`
	tests := []struct {
		name  string
		data  string
		procs []JobProc
	}{
		{"journal of an older oedl", old, nil},
		{"with processes", current, []JobProc{
			{Job: "dump:PUB.b", Proc: sysproc.ID{PID: 78, Start: 12346, Boot: "b1"}},
			{Job: "load:PUB.a", Proc: sysproc.ID{PID: 77, Start: 12345, Boot: "b1"}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), FileName)
			require.NoError(t, os.WriteFile(path, []byte(tt.data), 0o644))
			recs, err := Read(path)
			require.NoError(t, err)
			rp := Replay(recs)
			assert.Equal(t, tt.procs, rp.Procs())
			assert.Equal(t, 4242, rp.Runs[0].PID)
			assert.Equal(t, Started, rp.Jobs["load:PUB.a"].State, "a running record is no state change")
			assert.Equal(t, map[string]string{"A": "load:PUB.a"}, rp.Inflight)
			assert.Contains(t, rp.Dirty["A"], "never ended")
			if tt.procs != nil {
				assert.True(t, rp.IsDone("dump:PUB.b"))
			}
		})
	}
}

// A failed load leaves its area dirty, not in flight; a repair clears both.
func TestReplayInflightAndDirty(t *testing.T) {
	rp := Replay([]Record{
		{Job: "load:PUB.a", Kind: "load", State: Started, Table: "PUB.a", Area: "A"},
		{Job: "load:PUB.b", Kind: "load", State: Started, Table: "PUB.b", Area: "B"},
		{Job: "load:PUB.b", Kind: "load", State: Failed, Table: "PUB.b", Area: "B", Err: "exit 3"},
		{Job: "load:PUB.c", Kind: "load", State: Started, Table: "PUB.c", Area: "C"},
		{Job: "repair:C#1", Kind: "repair", State: Done, Area: "C"},
	})
	assert.Equal(t, map[string]string{"A": "load:PUB.a"}, rp.Inflight)
	assert.Equal(t, []string{"A", "B"}, rp.DirtyAreas())
	assert.True(t, rp.OnlyInflight("A"))
	assert.False(t, rp.OnlyInflight("B"), "a failed load dirties its area whatever runs")
}
