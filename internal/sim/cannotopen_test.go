package sim

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/sim/msg"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A database file the utility cannot open is (43) with the errno the
// system gave, as OpenEdge prints it ("** Cannot find or open file %s,
// errno = %i.", openedge-formats.md §8), whatever the cause: oesim said
// errno 2 for every stat that failed and printed "** open ...: permission
// denied (oesim)", with no number, for a .db owned by another user
// (new-user trial 5), so oedl could not tell a permission from anything.
func TestCannotOpenSaysItsErrno(t *testing.T) {
	env, db := smallDB(t)
	tests := []struct {
		name  string
		setup func(t *testing.T) (db, file string)
		errno syscall.Errno
		root  bool // the case can be made by root (permissions do not stop root)
	}{
		{"missing", func(t *testing.T) (string, string) {
			missing := filepath.Join(env.work, "nowhere", "prod")
			return missing, missing + ".db"
		}, syscall.ENOENT, true},
		{"a .db that links to itself", func(t *testing.T) (string, string) {
			dir := filepath.Join(t.TempDir(), "loop")
			require.NoError(t, os.MkdirAll(dir, 0o755))
			require.NoError(t, os.Symlink("prod.db", filepath.Join(dir, "prod.db")))
			return filepath.Join(dir, "prod"), filepath.Join(dir, "prod.db")
		}, syscall.ELOOP, true},
		{"a .db the user may not read", func(t *testing.T) (string, string) {
			require.NoError(t, os.Chmod(db+".db", 0))
			t.Cleanup(func() { _ = os.Chmod(db+".db", 0o644) })
			return db, db + ".db"
		}, syscall.EACCES, false},
	}
	langs := []struct{ name, promsgs string }{
		{"en", filepath.Join(env.dlc, "promsgs")},
		{"pt", filepath.Join(env.dlc, "prolang", "brz", "promsgs.brz")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !tt.root && os.Geteuid() == 0 {
				t.Skip("root opens any file: TestCannotOpenMessage prints its message")
			}
			dbArg, file := tt.setup(t)
			for _, l := range langs {
				for _, q := range []string{"dbanalys", "holder", "describe"} {
					r := env.run(t, []string{"PROMSGS=" + l.promsgs}, "", "proutil", dbArg, "-C", q)
					assert.NotEqual(t, 0, r.code, r.out)
					m, ok := openedge.FindMessage(r.out, openedge.MsgCannotOpen)
					require.True(t, ok, "%s %s: %s", l.name, q, r.out)
					assert.Contains(t, m.Text, file)
					assert.Contains(t, m.Text, fmt.Sprintf("errno = %d.", int(tt.errno)), "%s %s", l.name, q)
					assert.NotContains(t, r.out, "(oesim)")
				}
			}
		})
	}
}

// TestCannotOpenMessage: an open refused for permission, which root cannot
// be given, prints (43) with errno 13 in either language.
func TestCannotOpenMessage(t *testing.T) {
	for _, l := range []msg.Lang{msg.English, msg.Portuguese} {
		var out bytes.Buffer
		p := &proc{name: "proutil", stdout: &out, stderr: &out, texts: msg.Builtin(l)}
		err := fmt.Errorf("lock: %w", &fs.PathError{Op: "open", Path: "/db/prod.lk", Err: syscall.EACCES})
		assert.Equal(t, exitFail, p.failErr(err))
		m, ok := openedge.FindMessage(out.String(), openedge.MsgCannotOpen)
		require.True(t, ok, out.String())
		assert.Contains(t, m.Text, "/db/prod.lk, errno = 13.")
	}
}
