package sim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dump_lasttask.p's value stays through what only reads or opens the
// database (a tabanalys, a dump, a broker started and stopped, the
// procedure itself) and changes with every committed write (records
// loaded, a sequence set), as OpenEdge's _MstrBlk-Lasttask does: oedl's
// resume compares it (run/fingerprint.go).
func TestLastTaskChangesWithWritesOnly(t *testing.T) {
	env, db := smallDB(t)
	out := filepath.Join(env.work, "lasttask")
	read := func() string {
		env.ok(t, "_progres", "-b", "-db", db, "-1", "-p", "dump_lasttask.p", "-param", out)
		b, err := os.ReadFile(out)
		require.NoError(t, err)
		return string(b)
	}
	dumpDir := filepath.Join(env.work, "dump")
	require.NoError(t, os.MkdirAll(dumpDir, 0o755))
	seqs := filepath.Join(env.work, "seq.txt")
	sec := filepath.Join(env.work, "sec")
	require.NoError(t, os.MkdirAll(sec, 0o755))
	steps := []struct {
		name    string
		do      func(t *testing.T)
		changes bool
	}{
		{"read again", func(*testing.T) {}, false},
		{"tabanalys", func(t *testing.T) { env.ok(t, "proutil", db, "-C", "tabanalys") }, false},
		{"dump", func(t *testing.T) { env.ok(t, "proutil", db, "-C", "dump", "Customer", dumpDir) }, false},
		{"served and shut down", func(t *testing.T) {
			env.ok(t, "proserve", db)
			env.ok(t, "proutil", db, "-C", "dump", "Customer", dumpDir)
			env.ok(t, "proshut", db, "-by")
		}, false},
		{"dump_seqvals.p and dump_security.p", func(t *testing.T) {
			env.ok(t, "_progres", "-b", "-db", db, "-1", "-p", "dump_seqvals.p", "-param", seqs)
			env.ok(t, "_progres", "-b", "-db", db, "-1", "-p", "dump_security.p", "-param", sec)
		}, false},
		{"records loaded", func(t *testing.T) {
			env.ok(t, "proutil", db, "-C", "load", filepath.Join(dumpDir, "Customer.bd"))
		}, true},
		{"a sequence set", func(t *testing.T) {
			b, err := os.ReadFile(seqs)
			require.NoError(t, err)
			name, _, ok := strings.Cut(strings.SplitN(string(b), "\n", 2)[0], " ")
			require.True(t, ok, "the database has a sequence: %q", b)
			require.NoError(t, os.WriteFile(seqs, []byte(name+" 4242\n"), 0o644))
			env.ok(t, "_progres", "-b", "-db", db, "-1", "-p", "load_seqvals.p", "-param", seqs)
		}, true},
		// The same users loaded again change nothing: oesim's value stays
		// (a real transaction would take an id: oedl refuses more there,
		// never less).
		{"the same users loaded again", func(t *testing.T) {
			env.ok(t, "_progres", "-b", "-db", db, "-1", "-p", "load_security.p", "-param", sec)
		}, false},
	}
	last := read()
	for _, s := range steps {
		s.do(t)
		now := read()
		if s.changes {
			assert.NotEqual(t, last, now, "%s: the last transaction id stayed %s", s.name, last)
		} else {
			assert.Equal(t, last, now, "%s: the last transaction id changed", s.name)
		}
		last = now
	}
}

// dump_lasttask_df.p is dump_lasttask.p and prodict/dump_df.p in one
// single-user session: the same transaction id and the same .df as the
// two procedures apart, and refused, writing nothing, on a database a
// broker serves (276), as any single-user session is.
func TestLastTaskAndDFInOneSession(t *testing.T) {
	env, db := smallDB(t)
	apart := filepath.Join(env.work, "apart")
	together := filepath.Join(env.work, "together")
	for _, d := range []string{apart, together} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	env.ok(t, "_progres", "-b", "-db", db, "-1", "-p", "dump_lasttask.p", "-param", filepath.Join(apart, "source.lasttask"))
	env.ok(t, "_progres", "-b", "-db", db, "-1", "-p", "prodict/dump_df.p", "-param", "ALL,"+filepath.Join(apart, "source.df"))
	env.ok(t, "_progres", "-b", "-db", db, "-1", "-p", "dump_lasttask_df.p", "-param", together)
	for _, f := range []string{"source.lasttask", "source.df"} {
		want, err := os.ReadFile(filepath.Join(apart, f))
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(together, f))
		require.NoError(t, err, f)
		assert.Equal(t, string(want), string(got), f)
	}

	served := filepath.Join(env.work, "served")
	require.NoError(t, os.MkdirAll(served, 0o755))
	env.ok(t, "proserve", db)
	defer env.ok(t, "proshut", db, "-by")
	r := env.run(t, nil, "", "_progres", "-b", "-db", db, "-1", "-p", "dump_lasttask_df.p", "-param", served)
	assert.NotEqual(t, 0, r.code)
	assert.Contains(t, r.out, "(276)")
	left, err := os.ReadDir(served)
	require.NoError(t, err)
	assert.Empty(t, left)

	r = env.run(t, nil, "", "_progres", "-b", "-db", db, "-1", "-p", "dump_lasttask_df.p")
	assert.NotEqual(t, 0, r.code, "no directory given:\n%s", r.out)
}
