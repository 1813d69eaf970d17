package sim

import (
	"github.com/oedl/oedl/internal/sim/store"
)

// busy and holder exit statuses (documented, openedge-formats.md §7.1).
const (
	busyNotInUse = 0
	busyInUse    = 6
	busyStarting = 64
	holderSingle = 14
	holderMulti  = 16
)

// holderOf reports who holds the database (nil: nobody alive does).
func holderOf(p *proc, dbArg string) (*store.Holder, store.Paths, int) {
	paths := store.PathsFor(dbArg)
	if err := paths.Check(); err != nil {
		return nil, paths, p.failErr(err)
	}
	h, err := store.ReadHolder(paths)
	if err != nil {
		return nil, paths, p.failErr(err)
	}
	if h != nil && !h.Alive {
		h = nil // a stale DB.lk: the next opener recovers it
	}
	return h, paths, 0
}

// busyQualifier: 0 not in use, 6 in use, 64 a broker starting up.
func busyQualifier(p *proc, dbArg string, _ []string) int {
	h, paths, rc := holderOf(p, dbArg)
	if rc != 0 {
		return rc
	}
	if h == nil {
		return busyNotInUse
	}
	if h.Mode == store.Starting {
		return busyStarting
	}
	p.sayErr(&store.InUseError{DB: paths.Base, Mode: h.Mode})
	return busyInUse
}

// holderQualifier: 0 not in use, 14 single-user, 16 multi-user.
func holderQualifier(p *proc, dbArg string, _ []string) int {
	h, paths, rc := holderOf(p, dbArg)
	if rc != 0 {
		return rc
	}
	if h == nil {
		return busyNotInUse
	}
	p.sayErr(&store.InUseError{DB: paths.Base, Mode: h.Mode})
	if h.Mode.Served() {
		return holderMulti
	}
	return holderSingle
}
