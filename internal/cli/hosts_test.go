package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/journal"
)

// status says what each host did, from the journal alone; with the hosts
// file, each host's role and ssh destination too. A bad hosts file is a
// usage error naming its line.
func TestStatusHosts(t *testing.T) {
	work := writeJournal(t,
		journal.Record{Job: journal.RunJob, State: journal.Started, Message: "started"},
		journal.Record{Job: "dump:PUB.a", Kind: "dump", Host: "dr", State: journal.Started, Table: "PUB.a", Attempt: 1},
		journal.Record{Job: "dump:PUB.a", Kind: "dump", Host: "dr", State: journal.Done, Table: "PUB.a", Attempt: 1,
			Files: []journal.File{{Path: "/w/dump/PUB.a/a.bd", Size: 2048, Host: "dr", SHA256: "x"}}},
		journal.Record{Job: "move:PUB.a", Kind: "move", Host: "dr", State: journal.Started, Table: "PUB.a", Attempt: 1},
	)
	hf := filepath.Join(t.TempDir(), "hosts.yaml")
	require.NoError(t, os.WriteFile(hf, []byte("hosts:\n  prod:\n    role: source\n    ssh: p1\n    work: /w\n    db: /p\n  dr:\n    role: replica\n    ssh: d1\n    work: /w\n    db: /p\n  new:\n    role: target\n    db: /n\n"), 0o644))
	_, out, errOut := runOEDL("status", "--work", work, "--hosts", hf)
	assert.Contains(t, out, "host dr (replica, d1): 1 job(s) ended, 0 failed; 1 dump(s) 2 KiB, 0 move(s) 0 B to the target, 0 load(s)", errOut)
	assert.Contains(t, out, "host new (target, this machine): 0 job(s) ended")
	assert.Contains(t, out, "stopped by oedl run --resume", "a killed run: its remote utilities")

	_, out, _ = runOEDL("status", "--work", work, "--json")
	var got struct {
		Hosts []struct{ Name string } `json:"hosts"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	require.Len(t, got.Hosts, 1, "without the file, the hosts the journal names")
	assert.Equal(t, "dr", got.Hosts[0].Name)

	require.NoError(t, os.WriteFile(hf, []byte("hosts:\n  a:\n    role: sauce\n"), 0o644))
	code, _, errOut := runOEDL("status", "--work", work, "--hosts", hf)
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "hosts.yaml:3: host a: role \"sauce\"")
	code, _, errOut = runOEDL("run", "--hosts", hf, "--source", "/db/x", "--plan", "p", "--work", "w")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "leave out --source and --target")
}
