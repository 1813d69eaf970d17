package openedge

import (
	"fmt"
	"strings"
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

// ParseDescribe reads the "Key : Value" lines of proutil -C describe,
// splitting on the first " : ". Keys of the top block ("Block Size",
// "Version", "Database Name") are kept as printed; keys under an indented
// section title are prefixed with it, because "Block Size" appears in
// several: "Before Imaging information/Block Size". Values are trimmed.
func ParseDescribe(out string) map[string]string {
	kv := map[string]string{}
	section := ""
	forEachLine(out, func(_ int, line string) bool {
		trimmed := strings.TrimSpace(line)
		key, value, ok := strings.Cut(trimmed, " : ")
		if !ok {
			key, ok = strings.CutSuffix(trimmed, " :") // a key with an empty value
		}
		switch {
		case trimmed == "":
		case ok && strings.TrimSpace(key) != "":
			key = strings.TrimSpace(key)
			if section != "" && indentOf(line) > 0 {
				key = section + "/" + key
			}
			kv[key] = strings.TrimSpace(value)
		case indentOf(line) == 1:
			section = trimmed // " Before Imaging information"
		case indentOf(line) == 0:
			section = ""
		}
		return true
	})
	return kv
}

func indentOf(s string) int {
	return len(s) - len(strings.TrimLeft(s, " \t"))
}
