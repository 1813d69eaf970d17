package sim

import (
	"errors"
	"fmt"
	"time"

	"github.com/oedl/oedl/internal/sim/store"
)

// access is what a utility needs from the database.
type access int

const (
	// singleOnly: the utility runs only single-user (idxbuild, truncate bi,
	// truncate area, prostrct, procopy onto it): a served database refuses
	// with (276), a single-user holder with (263).
	singleOnly access = iota
	// client: connects to the broker when the database is served (several
	// clients run together) and otherwise opens it single-user.
	client
)

// session is an opened database.
type session struct {
	p      *proc
	paths  store.Paths
	db     *store.DB
	lease  *store.Lease     // nil for a client of a served database
	user   *store.UserLease // the connection of a client of a served database
	online bool             // served by a broker
}

// open opens db for a utility, applying the locking rules. It prints the
// refusal itself and returns a non-zero status with it.
func (p *proc) open(dbArg string, acc access) (*session, int) {
	paths := store.PathsFor(dbArg)
	if err := paths.Check(); err != nil {
		return nil, p.failErr(err)
	}
	s := &session{p: p, paths: paths}
	if acc == client {
		h, err := waitServing(paths)
		if err != nil {
			return nil, p.failErr(err)
		}
		if h != nil && h.Alive && h.Mode == store.Multi {
			if s.user, err = connectUser(paths); errors.Is(err, errUserLimit) {
				return nil, p.denyUser(paths, p.name)
			} else if err != nil {
				return nil, p.failErr(err)
			}
			// Connected, then asked again: a broker that began to shut
			// down before it could see this user refuses it, as one
			// that lists its users after would disconnect it; one that
			// is gone leaves the database to open single-user.
			h, err := store.ReadHolder(paths)
			switch {
			case err != nil:
				s.close()
				return nil, p.failErr(err)
			case h != nil && h.Alive && h.Mode == store.Multi:
				s.online = true
			case h != nil && h.Alive:
				s.close()
				return nil, p.failErr(&store.InUseError{DB: paths.Base, Mode: h.Mode})
			default:
				s.user.Disconnect()
				s.user = nil
			}
		}
	}
	if !s.online {
		lease, err := store.Acquire(paths, store.Single)
		var inUse *store.InUseError
		if errors.As(err, &inUse) {
			return nil, p.failErr(inUse)
		}
		if err != nil {
			return nil, p.failErr(err)
		}
		s.lease = lease
		if lease.Recovered != nil {
			s.recover(lease.Recovered)
		}
	}
	db, err := store.Open(paths)
	if err != nil {
		s.close()
		return nil, p.failErr(err)
	}
	s.db = db
	// The blocks a variable extent grows by are formatted as they are
	// added, written in order as prostrct create writes a fixed extent's.
	db.ChargeFormatting(p.env.seqWrite)
	// Connecting reads the database's master block and appends to its log,
	// both through the host's page cache as OpenEdge's files are without
	// -directio (docs/oesim.md, "What a utility call costs the disk"): the
	// block comes from the device only the first time any call reads it;
	// the log's page is written back later, merged with the file's other
	// dirty pages (a written-behind write: its bytes, no request of its
	// own, nobody waiting for it).
	err = p.env.cachedRead(paths.Control(), 0, int64(db.Ctl.BlockSize))
	if err == nil {
		err = p.env.seqWrite(logPageBytes)
	}
	if err != nil {
		s.close()
		return nil, p.failErr(err)
	}
	return s, 0
}

// logPageBytes is what a call's lines in the database's log cost the
// device: the page they dirty, written back (at most: lines of several
// calls that share a page are written back together).
const logPageBytes = 4096

// noIntegrity applies -i to a load: single-user, the lease is marked so
// that dying from here on leaves the database damaged (509); online, -i is
// the broker's, and a broker started with it has its clients skip the
// fsync as well.
func (s *session) noIntegrity(asked bool, o *loadOptions) int {
	if s.online {
		h, err := store.ReadHolder(s.paths)
		if err == nil && h != nil && h.NoIntegrity {
			o.noSync, o.brokerNoIntegrity = true, true
		}
		return 0
	}
	if !asked {
		return 0
	}
	if err := s.lease.SetNoIntegrity(); err != nil {
		return s.p.failErr(err)
	}
	return 0
}

// recover is crash recovery after a holder died with the database open:
// the segments it committed stay, anything it had not committed was never
// below the high-water mark, so there is nothing to undo but the lock.
func (s *session) recover(h *store.Holder) {
	s.p.msg("oesim.recover", h.Mode, h.Pid)
	s.p.msg("5326")
	s.p.msg("7161")
	s.log(fmt.Sprintf("(5326) Begin Physical Redo Phase at 0 . Previous holder pid %d died.", h.Pid))
}

// log appends to DB.lg.
func (s *session) log(text string) { logLine(s.paths.Log(), s.p.name, text) }

// close releases the database.
func (s *session) close() {
	if s.db != nil {
		s.db.Close()
	}
	if s.lease != nil {
		s.lease.Release()
		s.lease = nil
	}
	s.user.Disconnect()
	s.user = nil
}

// waitServing reads who holds the database and, while a broker is still
// starting, waits for it to serve (a client connects once it can).
func waitServing(paths store.Paths) (*store.Holder, error) {
	deadline := time.Now().Add(brokerReadyTimeout)
	for {
		h, err := store.ReadHolder(paths)
		if err != nil || h == nil || !h.Alive || h.Mode != store.Starting || time.Now().After(deadline) {
			return h, err
		}
		time.Sleep(5 * time.Millisecond)
	}
}
