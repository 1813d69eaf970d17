package sim

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The generated database's users, grants and views go out with
// dump_security.p and into an empty copy with load_security.p; a second
// load ends the same; the truncate fault loses rows silently.
func TestSecurityDumpAndLoad(t *testing.T) {
	env, db := smallDB(t)
	out := filepath.Join(env.work, "sec")
	env.ok(t, "_progres", "-b", "-db", db, "-1", "-p", "/w/abl/dump_security.p", "-param", out)
	src, err := openedge.ReadSecurity(out)
	require.NoError(t, err)
	require.Len(t, src.Users, 4)
	require.NotEmpty(t, src.Grants)
	require.Len(t, src.Views, 1)

	tgt := emptyCopy(t, env, db, "tgt")
	back := filepath.Join(env.work, "back")
	env.ok(t, "_progres", "-b", "-db", tgt, "-1", "-p", "/w/abl/dump_security.p", "-param", back)
	empty, err := openedge.ReadSecurity(back)
	require.NoError(t, err)
	assert.Empty(t, empty.Users, "an empty copy has no users before the load")

	for range 2 {
		env.ok(t, "_progres", "-b", "-db", tgt, "-1", "-p", "load_security.p", "-param", out)
		env.ok(t, "_progres", "-b", "-db", tgt, "-1", "-p", "dump_security.p", "-param", back)
		got, err := openedge.ReadSecurity(back)
		require.NoError(t, err)
		assert.Equal(t, src, got)
	}

	lossy := emptyCopy(t, env, db, "lossy")
	r := env.run(t, []string{"OESIM_FAULTS=_progres:_User:truncate-after=3"}, "", "_progres", "-b", "-db", lossy, "-1", "-p", "load_security.p", "-param", out)
	require.Equal(t, 0, r.code, r.out)
	env.ok(t, "_progres", "-b", "-db", lossy, "-1", "-p", "dump_security.p", "-param", back)
	got, err := openedge.ReadSecurity(back)
	require.NoError(t, err)
	assert.Len(t, got.Users, 3)
	assert.Equal(t, src.Grants, got.Grants)

	// procopy copies the whole database, users, grants and views too (a
	// source made by procopy had none: oedl verified "0 users before = after").
	dir := filepath.Join(env.work, "copied")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	st, err := os.ReadFile(db + ".st")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "copied.st"), []byte(replaceDots(string(st), dir)), 0o644))
	copied := filepath.Join(dir, "copied")
	env.ok(t, "prostrct", "create", copied, filepath.Join(dir, "copied.st"), "-blocksize", "8192")
	env.ok(t, "procopy", db, copied)
	env.ok(t, "_progres", "-b", "-db", copied, "-1", "-p", "dump_security.p", "-param", back)
	got, err = openedge.ReadSecurity(back)
	require.NoError(t, err)
	assert.Equal(t, src, got)

	r = env.run(t, nil, "", "_progres", "-b", "-db", tgt, "-1", "-p", "load_security.p", "-param", filepath.Join(env.work, "nowhere"))
	assert.NotEqual(t, 0, r.code)
	assert.Contains(t, r.out, "(43)")
	r = env.run(t, nil, "", "_progres", "-b", "-db", tgt, "-1", "-p", "dump_security.p")
	assert.NotEqual(t, 0, r.code)
	require.NoError(t, os.WriteFile(filepath.Join(out, openedge.UsersFile), []byte("\"a\" \"b\"\n.\n"), 0o644))
	r = env.run(t, nil, "", "_progres", "-b", "-db", tgt, "-1", "-p", "load_security.p", "-param", out)
	assert.NotEqual(t, 0, r.code)
	assert.Contains(t, r.out, "_user.d:1: 2 fields, want 3")
}
