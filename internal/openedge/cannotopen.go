package openedge

import (
	"strconv"
	"strings"
	"syscall"
)

// CannotOpen finds the first (43) in out, "** Cannot find or open file %s,
// errno = %i.", and its errno: the system's reason (2 missing, 13
// permission denied). The template ends with the errno, so it is the last
// number of the message's text whatever the language around it and
// whatever digits the path holds (openedge-formats.md §8).
func CannotOpen(out string) (Message, syscall.Errno, bool) {
	m, ok := FindMessage(out, MsgCannotOpen)
	if !ok {
		return Message{}, 0, false
	}
	errno, ok := LastNumber(m.Text)
	return m, syscall.Errno(errno), ok
}

// Denied reports whether errno is the system refusing this user the file
// (EACCES, EPERM): the DBA runs as the wrong user or must grant access.
func Denied(errno syscall.Errno) bool { return errno == syscall.EACCES || errno == syscall.EPERM }

// LastNumber is the last whole number in a message's text ("Processing
// area 8 :" -> 8; (43)'s errno).
func LastNumber(s string) (int, bool) {
	f := strings.FieldsFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	if len(f) == 0 {
		return 0, false
	}
	n, err := strconv.Atoi(f[len(f)-1])
	return n, err == nil
}
