package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// The users of a served database. A real broker keeps its users in shared
// memory, and `proshut -by` disconnects every one of them before the
// database shuts down ("an unconditional batch shutdown that disconnects
// all active users", PROSHUT command, OpenEdge Database Management). oesim
// keeps them as files: a client of a broker (a dump, load, tabanalys or
// _progres against a served database) holds an exclusive flock on its own
// file in DB.usr/ for as long as it is connected, so the broker can list
// the users that are alive, signal them, and wait until their locks are
// gone. The kernel drops a dead client's lock, even after kill -9.

// Users is the directory of the database's connected users, DB.usr.
func (p Paths) Users() string { return p.Base + ".usr" }

// UserLease is one connection to a served database.
type UserLease struct {
	f    *os.File
	name string // the file's path once it carries its PID name
}

// Connect records this process as a user of the served database. The
// file is locked under a name ConnectedUsers passes over (a leading dot,
// no PID to read) and only then given its PID name: a listing between the
// create and the lock would otherwise take the unlocked file for a dead
// user's and remove it, and the user would run unseen by proshut.
func Connect(p Paths) (*UserLease, error) {
	if err := os.MkdirAll(p.Users(), 0o755); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(p.Users(), "."+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*UserLease, error) {
		name := f.Name()
		f.Close()
		os.Remove(name)
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return fail(fmt.Errorf("lock %s: %w", f.Name(), err))
	}
	name := filepath.Join(p.Users(), strings.TrimPrefix(filepath.Base(f.Name()), "."))
	if err := os.Rename(f.Name(), name); err != nil {
		return fail(err)
	}
	return &UserLease{f: f, name: name}, nil
}

// Disconnect ends the connection.
func (u *UserLease) Disconnect() {
	if u == nil || u.f == nil {
		return
	}
	os.Remove(u.name)
	u.f.Close()
	u.f = nil
}

// ConnectedUsers returns the process IDs of the users alive (their file's
// lock is held); files of users that died are removed.
func ConnectedUsers(p Paths) ([]int, error) {
	entries, err := os.ReadDir(p.Users())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, e := range entries {
		path := filepath.Join(p.Users(), e.Name())
		pidText, _, _ := strings.Cut(e.Name(), "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil {
			continue
		}
		f, err := os.Open(path)
		if err != nil {
			continue // it disconnected meanwhile
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
			pids = append(pids, pid)
		} else {
			os.Remove(path)
		}
		f.Close()
	}
	return pids, nil
}

// RemoveUsers removes DB.usr once no user is left.
func RemoveUsers(p Paths) { _ = os.Remove(p.Users()) }
