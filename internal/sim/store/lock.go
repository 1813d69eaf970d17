package store

import (
	"errors"
	"fmt"
	"github.com/oedl/oedl/internal/sim/msg"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// LockMode is how a database is held.
type LockMode string

// Lock modes written in DB.lk.
const (
	Single LockMode = "single" // a single-user utility (proutil, prostrct ...)
	Multi  LockMode = "multi"  // a broker (proserve)
	// Starting is a broker that holds the database but does not serve it
	// yet (busy exits 64).
	Starting LockMode = "starting"
	// Stopping is a broker shutting down: it disconnects its users and
	// takes no new ones (they are refused with (276)).
	Stopping LockMode = "stopping"
)

// Served reports whether the mode is a broker's (starting, serving or
// stopping): the database is in multi-user mode.
func (m LockMode) Served() bool { return m == Multi || m == Starting || m == Stopping }

// Holder is the content of DB.lk plus whether its owner still lives.
type Holder struct {
	Mode  LockMode
	Pid   int
	Host  string
	Alive bool
	// NoIntegrity: the holder runs with -i (no crash protection). One
	// that died so leaves a database crash recovery cannot repair.
	NoIntegrity bool
}

// noIntegrityMark is the fourth word of DB.lk while its holder runs
// with -i.
const noIntegrityMark = "no-integrity"

// DamagedError is a database whose last holder died while it ran with
// -i: (509) and (510), and nothing opens it but a restore (or, for oedl,
// creating it again).
type DamagedError struct{ DB string }

func (e *DamagedError) Error() string {
	return msg.E("509").Error() + "\n" + msg.E("510").Error()
}

// InUseError is (263) or (276).
type InUseError struct {
	DB   string
	Mode LockMode
}

func (e *InUseError) Error() string { return e.Message().Error() }

// Message is the catalog message the utility prints for the error.
func (e *InUseError) Message() *msg.Error {
	if e.Mode.Served() {
		return msg.E("276", e.DB)
	}
	return msg.E("263", e.DB)
}

// Liveness is not the pid in DB.lk (pids are reused, a killed child can be
// a zombie): the holder keeps an exclusive flock on DB.lk for as long as
// it lives, and the kernel drops it when the process dies, even by kill -9.
// Acquiring and releasing are serialised by the schema lock (Paths.SchemaLock) so
// that nobody can open a DB.lk that is being removed.
//
// Whoever asks if the holder lives (ReadHolder) tries a shared flock for
// an instant: it fails only against a holder's exclusive one. The probe
// took an exclusive flock once, and so looked like a live holder itself,
// to another probe and to Acquire: a broker starting while proserve
// polled for it found the database "in use" by that poll and exited 1
// (calibrate's scratch broker "did not start" under load; 450 spurious
// (276) in 20,000 acquires beside a polling loop). Acquire tells a probe
// from a holder by the shared flock it can still take beside a probe,
// and waits for the probes to end (an instant: they hold nothing else).

// ReadHolder reports who holds the database; nil when DB.lk is absent.
func ReadHolder(p Paths) (*Holder, error) {
	f, err := os.OpenFile(p.Lock(), os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := parseHolder(f)
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		h.Alive = true
	} else {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	}
	return h, nil
}

func parseHolder(f *os.File) *Holder {
	b := make([]byte, 256)
	n, _ := f.ReadAt(b, 0)
	fs := strings.Fields(string(b[:n]))
	h := &Holder{}
	if len(fs) >= 2 {
		h.Mode = LockMode(fs[0])
		h.Pid, _ = strconv.Atoi(fs[1])
	}
	if len(fs) >= 3 {
		h.Host = fs[2]
	}
	h.NoIntegrity = len(fs) >= 4 && fs[3] == noIntegrityMark
	return h
}

// Lease is a held DB.lk.
type Lease struct {
	p           Paths
	f           *os.File
	mode        LockMode
	noIntegrity bool
	// Recovered is the holder left behind by a process that died holding
	// the database (nil when DB.lk was absent or clean).
	Recovered *Holder
}

// Acquire takes DB.lk in the given mode, or fails with *InUseError when a
// live process holds it. A DB.lk left by a dead process is taken over and
// reported in Lease.Recovered, so the caller can run crash recovery; one
// left by a process that ran with -i is *DamagedError, and stays as it is.
func Acquire(p Paths, mode LockMode) (*Lease, error) {
	unlock, err := FileLock(p.SchemaLock(), true)
	if err != nil {
		return nil, err
	}
	defer unlock()
	_, statErr := os.Lstat(p.Lock())
	made := errors.Is(statErr, fs.ErrNotExist)
	f, err := os.OpenFile(p.Lock(), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := lockOutProbes(f); err != nil {
		h := parseHolder(f)
		f.Close()
		if h.Mode == "" {
			h.Mode = Single
		}
		return nil, &InUseError{DB: p.Base, Mode: h.Mode}
	}
	l := &Lease{p: p, f: f}
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		l.Recovered = parseHolder(f)
		if l.Recovered.NoIntegrity {
			syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
			f.Close()
			return nil, &DamagedError{DB: p.Base}
		}
	}
	if err := l.SetMode(mode); err != nil {
		// A DB.lk this call made and could not write (a full disk) goes:
		// left empty, it would say the database was left open.
		if made {
			os.Remove(p.Lock())
		}
		f.Close()
		return nil, err
	}
	return l, nil
}

// lockOutProbes takes the exclusive flock on DB.lk, or fails when a live
// holder has it. A shared flock that can be taken beside whoever blocks
// the exclusive one means only ReadHolder probes do (a holder's flock is
// exclusive, and no second holder can come while the caller holds the
// schema lock), so it waits for them rather than report them in use.
func lockOutProbes(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if err == nil {
		return nil
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		return err
	}
	probesEnding()
	_, err = Flock(f, true)
	return err
}

// probesEnding runs while Acquire waits for probes of DB.lk to end: a test
// ends its own probe there, so the wait is seen without timing it.
var probesEnding = func() {}

// SetMode rewrites the mode in DB.lk (a broker going from Starting to
// Multi once it serves).
func (l *Lease) SetMode(mode LockMode) error {
	l.mode = mode
	return l.write()
}

// SetNoIntegrity marks DB.lk as held with -i: from now until Release, a
// death of the holder leaves the database damaged beyond crash recovery.
func (l *Lease) SetNoIntegrity() error {
	l.noIntegrity = true
	return l.write()
}

func (l *Lease) write() error {
	host, _ := os.Hostname()
	content := fmt.Sprintf("%s %d %s", l.mode, os.Getpid(), host)
	if l.noIntegrity {
		content += " " + noIntegrityMark
	}
	if err := l.f.Truncate(0); err != nil {
		return err
	}
	_, err := l.f.WriteAt([]byte(content+"\n"), 0)
	if err == nil && l.noIntegrity {
		// The mark must be on disk before anything is written unsafely.
		err = l.f.Sync()
	}
	return err
}

// Release removes DB.lk and drops the lock.
func (l *Lease) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	unlock, err := FileLock(l.p.SchemaLock(), true)
	if err == nil {
		defer unlock()
	}
	rmErr := os.Remove(l.p.Lock())
	l.f.Close()
	l.f = nil
	return rmErr
}
