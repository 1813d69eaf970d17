package run

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/manifest"
)

// Two runs with different --work directories and one --target would each
// pass the preflight while the target does not exist yet (with
// --online-source the source's single-user lock does not put them in turn)
// and both write it. The work directory's lock cannot see that, so the
// target has one too: DB.oedl.lock beside it (as DB.oedl.json is), a POSIX
// lock held by the run, or by oedl prepare, from the moment its preflight
// has proven the target's files (never beside the source, never over a
// target it refuses) to its end, and dropped by the kernel when the
// process dies. It names the
// holder's work directory, so the second run says whose target it is.
//
// On a hosts file whose target is on another machine this machine's lock
// proves nothing there, so none is taken (docs/hosts.md).

// TargetLockSuffix names the target's lock: /newdb/prod.oedl.lock for
// /newdb/prod.
const TargetLockSuffix = ".oedl.lock"

// targetLockHeader starts every target lock oedl writes: a file by that
// name that does not start so is someone else's, and is left alone.
const targetLockHeader = "oedl target lock\n"

// TargetLockPath is the lock file of the target db.
func TargetLockPath(db string) string {
	return strings.TrimSuffix(filepath.Clean(db), manifest.SuffixControl) + TargetLockSuffix
}

// lockTarget takes the target's lock for the run (or preparation) until
// releaseTarget, or says which run holds it (exit 3).
func (r *runner) lockTarget() error {
	if r.unlockTarget != nil {
		return nil
	}
	unlock, err := lockTarget(r.cfg)
	if err != nil {
		return err
	}
	r.unlockTarget = unlock
	return nil
}

// releaseTarget drops the target's lock, if this runner took it.
func (r *runner) releaseTarget() {
	if r.unlockTarget != nil {
		r.unlockTarget()
		r.unlockTarget = nil
	}
}

// lockTarget takes the target's lock for the run in c.Work, or says which
// run holds it (exit 3). It creates the target's directory when needed,
// as the preflight's check that it can be written does next.
func lockTarget(c *Config) (func(), error) {
	if c.Hosts != nil {
		return func() {}, nil
	}
	path := TargetLockPath(c.Target)
	if err := refuseForeignLock(path); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, precondition("the target's directory: %v", err)
	}
	work, err := filepath.Abs(c.Work)
	if err != nil {
		return nil, precondition("work directory: %v", err)
	}
	stamp := fmt.Sprintf("%spid %d\nwork %s\n", targetLockHeader, os.Getpid(), work)
	unlock, err := lockPath(path, stamp, func() error {
		pid, other := targetLockHolder(path)
		return precondition("the target %s is being written by the oedl (pid %s) running in %s (it holds %s): two runs never write one target; watch that one with oedl status --work %s, or give another --target",
			c.Target, pid, other, path, execx.ShellQuote(other))
	})
	if err != nil {
		var pe *PreconditionError
		if errors.As(err, &pe) {
			return nil, err
		}
		return nil, precondition("the target's lock %s: %v", path, err)
	}
	return unlock, nil
}

// refuseForeignLock refuses a file at path that oedl did not write (any
// kind but a regular file, or one whose content is not a target lock's).
func refuseForeignLock(path string) error {
	st, err := os.Lstat(path)
	if err != nil {
		return nil // none yet (or unreadable: opening it will say)
	}
	// A lock is a few lines: a larger file is not one, and is not read.
	if st.Mode().IsRegular() && st.Size() <= 4096 {
		if data, err := os.ReadFile(path); err == nil && (len(data) == 0 || bytes.HasPrefix(data, []byte(targetLockHeader))) {
			return nil
		}
	}
	return precondition("%s exists and is not oedl's lock of the target %s: oedl never writes over it; remove it yourself or give another --target",
		path, strings.TrimSuffix(path, TargetLockSuffix))
}

// targetLockHolder reads the pid and work directory a target lock names.
func targetLockHolder(path string) (pid, work string) {
	data, _ := os.ReadFile(path)
	pid, work = "?", "another work directory"
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "pid "); ok {
			pid = v
		}
		if v, ok := strings.CutPrefix(line, "work "); ok {
			work = v
		}
	}
	return pid, work
}
