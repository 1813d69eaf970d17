package sim

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/sim/store"
)

// A broker admits no more connections than its -n, its helpers counted
// (KB P11340): the one too many gets (748) in the message file's language,
// exits 1 and writes nothing; once a user leaves, the next one connects.
func TestUserLimit(t *testing.T) {
	env, db := smallDB(t)
	dir := filepath.Join(env.work, "d")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	env.ok(t, "proserve", db, "-n", "2")
	t.Cleanup(func() { env.run(t, nil, "", "proshut", db, "-by") })
	env.ok(t, "probiw", db) // one of the two connections

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	held, exited := env.heldDump(t, ctx, db, dir)
	p := store.PathsFor(db)

	denied := filepath.Join(env.work, "denied")
	require.NoError(t, os.MkdirAll(denied, 0o755))
	langs := []struct {
		name, promsgs, words string
	}{
		{"en", filepath.Join(env.dlc, "promsgs"), "Try a larger -n"},
		{"pt", filepath.Join(env.dlc, "prolang", "brz", "promsgs.brz"), "Tente um -n maior"},
		{"de", filepath.Join(env.dlc, "prolang", "ger", "promsgs.ger"), "Versuchen Sie ein größeres -n"},
	}
	for _, tc := range langs {
		t.Run(tc.name, func(t *testing.T) {
			r := env.run(t, []string{"PROMSGS=" + tc.promsgs}, "", "proutil", db, "-C", "dump", "Item", denied)
			assert.Equal(t, exitFail, r.code, r.out)
			assert.True(t, openedge.HasMessage(r.out, openedge.MsgUserLimit), r.out)
			assert.Contains(t, r.out, tc.words)
			r = env.run(t, []string{"PROMSGS=" + tc.promsgs}, "", "proapw", db)
			assert.Equal(t, exitFail, r.code, "a helper is a connection too: %s", r.out)
			assert.True(t, openedge.HasMessage(r.out, openedge.MsgUserLimit), r.out)
		})
	}
	written, err := os.ReadDir(denied)
	require.NoError(t, err)
	assert.Empty(t, written, "a denied dump wrote nothing")
	lg, err := os.ReadFile(p.Log())
	require.NoError(t, err)
	assert.Equal(t, 2*len(langs), strings.Count(string(lg), "(748)"), "every denial is in DB.lg:\n%s", lg)

	held.Process.Kill()
	<-exited
	env.ok(t, "proutil", db, "-C", "dump", "Item", denied)
}

// Without -n a broker admits the default 20 users.
func TestDefaultUserLimit(t *testing.T) {
	assert.Equal(t, openedge.DefaultBrokerUsers, servedState{}.userLimit())
	assert.Equal(t, 6, servedState{Users: 6}.userLimit())
	assert.Equal(t, 3, servedState{BIW: true, APWs: 2}.helpers())
}
