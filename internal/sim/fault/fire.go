package fault

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// For returns the first rule that applies to a run of utility (proutil,
// procopy...) with qualifier (dump, load...; "" for none) on table ("" when
// the run is not about one table), or nil. A nil *Set has no rules.
func (s *Set) For(utility, qualifier, table string) *Rule {
	if s == nil {
		return nil
	}
	for _, r := range s.Rules {
		if r.matches(utility, qualifier, table) {
			return r
		}
	}
	return nil
}

// ForKind is For restricted to the rules of one kind, for a utility that
// checks for each kind of fault at the point where it would strike.
func (s *Set) ForKind(utility, qualifier, table string, k Kind) *Rule {
	if s == nil {
		return nil
	}
	for _, r := range s.Rules {
		if r.Kind == k && r.matches(utility, qualifier, table) {
			return r
		}
	}
	return nil
}

// Without a state directory, firings are counted in this process only.
var (
	localMu     sync.Mutex
	localCounts = map[string]int{}
)

// Fire reports whether the rule strikes now and, for a rule limited to
// Times firings, uses one of them. Call it at the moment the fault would
// take effect (the Nth record, the start), not before, so that a crash
// planned after 1000 records does not use its one firing on a table of 10.
// Firing k of a rule is the file fault-<hash of rule>-<k> in the state
// directory, created with O_EXCL: exactly one process gets each. An error
// reaching the directory is returned as is: a utility should then fail
// loudly rather than silently skip or repeat a planned fault.
func (r *Rule) Fire() (bool, error) {
	if r == nil {
		return false, nil
	}
	if r.Times == 0 {
		return true, nil
	}
	key := r.key()
	dir := ""
	if r.set != nil {
		dir = r.set.StateDir
	}
	if dir == "" {
		key = fmt.Sprintf("%p/%s", r.set, key) // one count per parsed set
		localMu.Lock()
		defer localMu.Unlock()
		if localCounts[key] >= r.Times {
			return false, nil
		}
		localCounts[key]++
		return true, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("fault state: %w", err)
	}
	for k := 1; k <= r.Times; k++ {
		f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("fault-%s-%d", key, k)), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return false, fmt.Errorf("fault state: %w", err)
		}
		fmt.Fprintf(f, "%s\npid %d\n", r.Text, os.Getpid())
		return true, f.Close()
	}
	return false, nil
}

// key identifies a rule across processes: its canonical text and position,
// so that two identical rules in one list count separately and editing
// OESIM_FAULTS starts the counts afresh.
func (r *Rule) key() string {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s", r.Pos, r.String())
	return fmt.Sprintf("%016x", h.Sum64())
}

// CrashNow kills the calling process with SIGKILL, as the kernel's OOM
// killer or a "kill -9" would: no deferred function runs, no buffer is
// flushed, so the parent sees a crash and the data already written (with
// write(2)) stays on disk. It does not return: until the signal lands it
// waits as HangNow does.
func CrashNow() {
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	_ = HangNow(context.Background())
}

// HangNow blocks until ctx is done, doing nothing, like a utility stuck on
// a lock or a dead NFS mount; the process stays alive until it is killed
// or ctx ends. It returns ctx.Err().
//
// It waits on a ticker as well as on ctx: a program whose only goroutine
// blocks on a channel nothing can close (select {}, the nil Done of
// context.Background, a cancel nobody calls) is ended by Go's runtime
// with "all goroutines are asleep - deadlock!" and exit status 2, which
// the parent would take for an ordinary failure. A pending timer keeps
// the runtime from concluding that; the tick itself does nothing.
func HangNow(ctx context.Context) error {
	tick := time.NewTicker(time.Hour)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// WaitRelease blocks until the file name exists in stateDir/release (a
// wait= rule), polling it: it is created by another process (a test),
// which nothing here can be told of otherwise.
func WaitRelease(stateDir, name string) {
	path := filepath.Join(stateDir, "release", name)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}
