package report

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/hosts"
	"github.com/oedl/oedl/internal/journal"
)

func TestHostRows(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	recs := []journal.Record{
		{Job: journal.RunJob, State: journal.Started, Time: at(0)},
		{Job: "dump:PUB.a", Kind: "dump", Host: "dr", State: journal.Started, Time: at(1)},
		{Job: "dump:PUB.b", Kind: "dump", Host: "prod", State: journal.Started, Time: at(1)},
		{Job: "dump:PUB.a", Kind: "dump", Host: "dr", State: journal.Done, Time: at(5), Files: []journal.File{{Size: 700, Host: "dr"}}},
		{Job: "dump:PUB.b", Kind: "dump", Host: "prod", State: journal.Failed, Time: at(2)},
		{Job: "move:PUB.a", Kind: "move", Host: "dr", State: journal.Started, Time: at(5)},
		{Job: "move:PUB.a", Kind: "move", Host: "dr", State: journal.Done, Time: at(6), Files: []journal.File{{Size: 700, Host: "new"}}},
		{Job: "load:PUB.a", Kind: "load", Host: "new", State: journal.Started, Time: at(6)},
		{Job: "load:PUB.a", Kind: "load", Host: "new", State: journal.Done, Time: at(9)},
		{Job: "verify", Kind: "verify", State: journal.Done, Time: at(10)},
	}
	rows := HostRows(recs, t0)
	require.Len(t, rows, 3)
	assert.Equal(t, HostRow{Name: "dr", Jobs: 2, Dumps: 1, DumpBytes: 700, Moves: 1, MovedBytes: 700, Start: time.Second, End: 6 * time.Second}, rows[0])
	assert.Equal(t, HostRow{Name: "prod", Jobs: 1, Failed: 1, Start: time.Second, End: 2 * time.Second}, rows[1])
	assert.Equal(t, 1, rows[2].Loads)
	assert.Empty(t, HostRows(recs[9:], t0), "a run on one machine names no host")

	f, err := hosts.Parse("h.yaml", []byte("hosts:\n  new:\n    role: target\n    db: /n\n  prod:\n    role: source\n    ssh: p1\n    work: /w\n    db: /p\n  dr:\n    role: replica\n    ssh: d1\n    work: /w\n    db: /p\n  idle:\n    role: replica\n    ssh: i1\n    work: /w\n    db: /p\n"))
	require.NoError(t, err)
	d := Data{Hosts: rows}
	d.WithHosts(f)
	var names []string
	for _, h := range d.Hosts {
		names = append(names, h.Name+"/"+h.Role+"/"+h.SSH)
	}
	assert.Equal(t, []string{"prod/source/p1", "dr/replica/d1", "idle/replica/i1", "new/target/this machine"}, names)
}
