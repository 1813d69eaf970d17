package sim

import (
	"errors"
	"fmt"
	"os"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/sim/store"
)

// A broker's -n (Number of Users). "After n concurrent connections have
// been made to the OpenEdge database, additional connection startup
// attempts are rejected" (Startup Command and Parameter Reference), and
// every connection counts: clients, utilities connected in multi-user
// mode, the broker's helper processes (KB P11340). The refused client
// prints (748) and exits 1 having read and written nothing; the broker
// records the denial in DB.lg ("Connection denials when the user count
// is exceeded", Managing ABL Applications).
//
// oesim counts the users alive in DB.usr/ and the helpers recorded in
// DB.srv, and admits a client under DB.srv's lock, so that two clients
// connecting at once cannot both take the last slot.

// helpers is the broker's helper processes connected to it.
func (st servedState) helpers() int {
	n := st.APWs
	if st.BIW {
		n++
	}
	return n
}

// userLimit is the broker's -n; a state without one (no broker, or one
// that recorded none) has the default.
func (st servedState) userLimit() int {
	if st.Users > 0 {
		return st.Users
	}
	return openedge.DefaultBrokerUsers
}

// errUserLimit is a connection the broker refused: its -n is reached.
var errUserLimit = errors.New("user limit reached")

// connectUser connects this process to the broker serving paths, or
// returns errUserLimit when its users and helpers already fill -n.
func connectUser(paths store.Paths) (*store.UserLease, error) {
	// DB.srv is locked only if the broker wrote it: creating it here would
	// leave a file the broker did not make.
	f, err := os.OpenFile(servedStatePath(paths), os.O_RDWR, 0)
	if err == nil {
		defer f.Close()
		unlock, err := store.Flock(f, true)
		if err != nil {
			return nil, err
		}
		defer unlock()
	}
	h, err := store.ReadHolder(paths)
	if err != nil {
		return nil, err
	}
	st := readServedState(paths, h)
	users, err := store.ConnectedUsers(paths)
	if err != nil {
		return nil, err
	}
	if len(users)+st.helpers()+1 > st.userLimit() {
		return nil, errUserLimit
	}
	return store.Connect(paths)
}

// denyUser refuses a connection past the broker's -n: (748) to the
// client, a line in DB.lg, exit 1.
func (p *proc) denyUser(paths store.Paths, who string) int {
	logLine(paths.Log(), who, fmt.Sprintf("(748) Connection refused: the number of users (-n) is reached (pid %d).", os.Getpid()))
	return p.fail("748")
}
