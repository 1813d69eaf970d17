package sim

import (
	"encoding/json"
	"io"
	"os"
	"slices"
	"strconv"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/sim/store"
)

// What a served database's clients learn of their broker: its -B and its
// helper processes, the before-image writer (probiw) and page writers
// (proapw). They decide how a load's before-image and checkpoint writes
// reach the disk (openedge.LoadLog): a helper writes in the background
// what a loader would otherwise write itself and wait for.
//
// A real helper is a process connected to the broker until proshut. In
// oesim its whole effect is on the loads' charges, so probiw and proapw
// record the helper in DB.srv (as the broker records its -B when it
// starts) and return: no process to stop. The record names the broker's
// pid, so a broker started again has no helper until they are started
// again, as with a real one.

// servedState is DB.srv.
type servedState struct {
	Pid     int   `json:"pid"`     // the broker's
	Buffers int64 `json:"buffers"` // its -B
	BIW     bool  `json:"biw"`
	APWs    int   `json:"apws"`
	// Users is the broker's -n: its clients and helpers together never
	// exceed it (users.go).
	Users int `json:"users"`
}

func servedStatePath(p store.Paths) string { return p.Base + ".srv" }

// updateServedState changes DB.srv under an exclusive lock: two helpers
// started at once both count.
func updateServedState(p store.Paths, change func(*servedState)) error {
	path := servedStatePath(p)
	unlock, err := store.FileLock(path, true)
	if err != nil {
		return err
	}
	defer unlock()
	f, err := os.OpenFile(path, os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	var st servedState
	if b, err := io.ReadAll(f); err == nil && len(b) > 0 {
		_ = json.Unmarshal(b, &st) // a torn file is a state with nothing in it
	}
	change(&st)
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err = f.WriteAt(b, 0)
	return err
}

// readServedState is DB.srv if it belongs to the live broker h.
func readServedState(p store.Paths, h *store.Holder) servedState {
	var st servedState
	b, err := os.ReadFile(servedStatePath(p))
	if err != nil || json.Unmarshal(b, &st) != nil || h == nil || !h.Alive || st.Pid != h.Pid {
		return servedState{}
	}
	return st
}

// runProbiw: probiw db-name starts the database's before-image writer
// ("You can only run one BIW per database").
func runProbiw(p *proc) int { return startHelper(p, "probiw", func(st *servedState) { st.BIW = true }) }

// runProapw: proapw db-name starts one more page writer.
func runProapw(p *proc) int { return startHelper(p, "proapw", func(st *servedState) { st.APWs++ }) }

func startHelper(p *proc, name string, add func(*servedState)) int {
	fs, err := parseFlags(p.args)
	if err != nil || len(fs.pos) != 1 {
		return p.usage("usage: %s db-name", name)
	}
	if _, ok := p.dlc(); !ok {
		return exitFail
	}
	paths, h, rc := p.broker(fs.pos[0], store.Multi)
	if rc != 0 {
		return rc
	}
	var denied bool
	err = updateServedState(paths, func(st *servedState) {
		if st.Pid != h.Pid {
			*st = servedState{Pid: h.Pid, Buffers: st.Buffers, Users: st.Users}
		}
		// A helper is one more connection to the broker (KB P11340).
		users, _ := store.ConnectedUsers(paths)
		if denied = len(users)+st.helpers()+1 > st.userLimit(); !denied {
			add(st)
		}
	})
	if err != nil {
		return p.failErr(err)
	}
	if denied {
		return p.denyUser(paths, name)
	}
	logLine(paths.Log(), name, "(2518) Started.")
	return exitOK
}

// loadLogging is how the loads of session s pay their before-image and
// checkpoint writes: the load's own -i/-r and -B single-user; the
// broker's -i, -B and helpers when served.
func loadLogging(s *session, fs *flagSet, opts loadOptions) openedge.LoadLogging {
	c := s.db.Ctl
	ll := openedge.LoadLogging{BlockBytes: int64(c.BlockSize),
		BIBlockBytes: int64(c.BIBlockKB) * 1024, BIClusterBytes: int64(c.BIClusterKB) * 1024}
	switch {
	case fs.bools["-i"] || opts.brokerNoIntegrity:
		ll.Integrity = openedge.NoIntegrity
	case fs.bools["-r"]:
		ll.Integrity = openedge.BufferedBI
	}
	if !s.online {
		if b, err := strconv.ParseInt(fs.values["-B"], 10, 64); err == nil && b > 0 {
			ll.Buffers = b
		}
		return ll
	}
	h, _ := store.ReadHolder(s.paths)
	st := readServedState(s.paths, h)
	ll.Buffers = st.Buffers
	if ll.Buffers <= 0 {
		ll.Buffers = openedge.DefaultBuffersMultiUser
	}
	ll.BIW, ll.APW = st.BIW, st.APWs > 0
	return ll
}

// broker finds the live broker serving database db in one of modes, or
// fails as the utilities do: the database's absence, or (1423) when no
// broker serves it (proshut, probiw, proapw).
func (p *proc) broker(db string, modes ...store.LockMode) (store.Paths, *store.Holder, int) {
	h, paths, rc := holderOf(p, db)
	if rc != 0 {
		return paths, nil, rc
	}
	if h == nil || !slices.Contains(modes, h.Mode) {
		return paths, nil, p.fail("1423", paths.Base)
	}
	return paths, h, 0
}
