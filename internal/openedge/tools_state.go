package openedge

import (
	"fmt"
)

// DBUse is what proutil -C busy or -C holder says about a database.
type DBUse int

const (
	DBNotInUse   DBUse = iota // busy 0, holder 0
	DBInUse                   // busy 6: in use, mode unknown
	DBStarting                // busy 64: a broker is starting up
	DBSingleUser              // holder 14: single-user session, PROUTIL or RFUTIL
	DBMultiUser               // holder 16: open in multi-user mode (served)
)

func (u DBUse) String() string {
	switch u {
	case DBNotInUse:
		return "not in use"
	case DBInUse:
		return "in use"
	case DBStarting:
		return "starting up"
	case DBSingleUser:
		return "in use in single-user mode"
	case DBMultiUser:
		return "in use in multi-user mode"
	}
	return fmt.Sprintf("DBUse(%d)", int(u))
}

// BusyState reads the exit code of proutil -C busy: 0 not in use, 6 in use,
// 64 starting up; anything else is an error of the utility itself.
func BusyState(exit int) (DBUse, error) {
	switch exit {
	case 0:
		return DBNotInUse, nil
	case 6:
		return DBInUse, nil
	case 64:
		return DBStarting, nil
	}
	return 0, fmt.Errorf("proutil -C busy: unexpected exit code %d (want 0, 6 or 64)", exit)
}

// HolderState reads the exit code of proutil -C holder: 0 not in use, 14
// single-user (or PROUTIL/RFUTIL), 16 multi-user; anything else is an error.
func HolderState(exit int) (DBUse, error) {
	switch exit {
	case 0:
		return DBNotInUse, nil
	case 14:
		return DBSingleUser, nil
	case 16:
		return DBMultiUser, nil
	}
	return 0, fmt.Errorf("proutil -C holder: unexpected exit code %d (want 0, 14 or 16)", exit)
}
