package sim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

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
		// asOther: permissions do not stop root: run as root, the utility
		// runs as nobody (uid 65534), as a DBA who is not the owner.
		asOther bool
	}{
		{"missing", func(t *testing.T) (string, string) {
			missing := filepath.Join(env.work, "nowhere", "prod")
			return missing, missing + ".db"
		}, syscall.ENOENT, false},
		{"a .db that links to itself", func(t *testing.T) (string, string) {
			dir := filepath.Join(t.TempDir(), "loop")
			require.NoError(t, os.MkdirAll(dir, 0o755))
			require.NoError(t, os.Symlink("prod.db", filepath.Join(dir, "prod.db")))
			return filepath.Join(dir, "prod"), filepath.Join(dir, "prod.db")
		}, syscall.ELOOP, false},
		{"a .db the user may not read", func(t *testing.T) (string, string) {
			require.NoError(t, os.Chmod(db+".db", 0o600))
			t.Cleanup(func() { _ = os.Chmod(db+".db", 0o644) })
			if os.Geteuid() != 0 {
				require.NoError(t, os.Chmod(db+".db", 0))
			}
			return db, db + ".db"
		}, syscall.EACCES, true},
	}
	langs := []struct{ name, promsgs string }{
		{"en", filepath.Join(env.dlc, "promsgs")},
		{"pt", filepath.Join(env.dlc, "prolang", "brz", "promsgs.brz")},
		{"de", filepath.Join(env.dlc, "prolang", "ger", "promsgs.ger")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dbArg, file := tt.setup(t)
			dir := filepath.Dir(file) // the first file refused may be an extent
			var cred *syscall.Credential
			if tt.asOther && os.Geteuid() == 0 {
				cred = &syscall.Credential{Uid: 65534, Gid: 65534}
				openToOthers(t, env.dlc, filepath.Dir(dbArg))
			}
			for _, l := range langs {
				for _, q := range []string{"dbanalys", "describe"} {
					r := env.runAs(t, cred, []string{"PROMSGS=" + l.promsgs}, "proutil", dbArg, "-C", q)
					assert.NotEqual(t, 0, r.code, r.out)
					m, ok := openedge.FindMessage(r.out, openedge.MsgCannotOpen)
					require.True(t, ok, "%s %s: %s", l.name, q, r.out)
					assert.Contains(t, m.Text, dir+string(filepath.Separator), "a file of the database")
					assert.Contains(t, m.Text, fmt.Sprintf("errno = %d.", int(tt.errno)), "%s %s", l.name, q)
					assert.NotContains(t, r.out, "(oesim)")
				}
			}
		})
	}
}

// TestCannotOpenMessage: an open refused for permission, which root cannot
// be given, prints (43) with errno 13 in every language.
func TestCannotOpenMessage(t *testing.T) {
	for _, l := range msg.Langs() {
		var out bytes.Buffer
		p := &proc{name: "proutil", stdout: &out, stderr: &out, texts: msg.Builtin(l)}
		err := fmt.Errorf("lock: %w", &fs.PathError{Op: "open", Path: "/db/prod.lk", Err: syscall.EACCES})
		assert.Equal(t, exitFail, p.failErr(err))
		m, errno, ok := openedge.CannotOpen(out.String())
		require.True(t, ok, out.String())
		assert.Contains(t, m.Text, "/db/prod.lk")
		assert.Equal(t, syscall.EACCES, errno, "the last number, in any language")
	}
}

// runAs is env.run as the user of cred (nil: this process's).
func (d *dlcEnv) runAs(t *testing.T, cred *syscall.Credential, extraEnv []string, utility string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := d.command(ctx, extraEnv, utility, args...)
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		cmd.Dir = "/"
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	if cred != nil && errors.Is(err, syscall.EPERM) {
		// A container without CAP_SETUID cannot start a process as
		// another user: no other user to be here.
		t.Skipf("cannot run %s as uid %d here: %v", utility, cred.Uid, err)
	}
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("%s %v: %v", utility, args, err)
	}
	return result{out: out.String(), code: cmd.ProcessState.ExitCode()}
}

// openToOthers lets another user reach the test's DLC (its programs and
// message files) and the database's directory: t.TempDir's directories
// are 0700. The files keep their modes.
func openToOthers(t *testing.T, dirs ...string) {
	t.Helper()
	tmp := filepath.Clean(os.TempDir())
	for _, d := range dirs {
		for d = filepath.Clean(d); d != tmp && d != filepath.Dir(d); d = filepath.Dir(d) {
			require.NoError(t, os.Chmod(d, 0o755))
		}
	}
	require.NoError(t, filepath.WalkDir(dirs[0], func(path string, e fs.DirEntry, err error) error {
		if err != nil || !e.IsDir() {
			return err
		}
		return os.Chmod(path, 0o755)
	}))
}
