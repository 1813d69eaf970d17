package openedge

import (
	"syscall"
)

// Messages that carry the operating system's reason, or say for good
// that a utility cannot do what it was asked.
const (
	// MsgSystemIOError: "SYSTEM ERROR: I/O error <n> in <program>, ret
	// <n>, file <n>, addr <n>. (290)"; the number after "I/O error" is the
	// errno (Progress KB 12646 on its file numbers, KB 18401: "I/O error 9
	// ... errno = 9"): the first number of the message's text.
	MsgSystemIOError = 290
	// MsgWrongVersion: "** Database has the wrong version number. (db: N,
	// pro: N). (44)" (Progress KB P58368: an endian mismatch "will never
	// work"; so does a database of another major version).
	MsgWrongVersion = 44
	// MsgInsufficientSpace: "<function>:Insufficient disk space during
	// <system call>, fd <n>, len <n>, offset <n>, file <name>. (6091)":
	// the filesystem is full, or the file at its size limit (2 GB without
	// large files) (Progress KB P22954, P4404, P98311).
	MsgInsufficientSpace = 6091
)

// ENOSPC is errno 28 on Linux (and the other Unixes OpenEdge runs on):
// no space left on the device.
const ENOSPC = syscall.ENOSPC

// NoSpace finds the message of out that says its disk filled up, by
// number: a (6091), a (290) whose errno is 28, a (43) whose errno is 28.
// It returns the last such message. A line with no message number is
// not read here (see the run's diskFull for oesim's own lines).
func NoSpace(out string) (Message, bool) {
	var found Message
	ok := false
	for _, m := range ScanMessages(out) {
		if m.Num == MsgInsufficientSpace || messageErrno(m) == ENOSPC {
			found, ok = m, true
		}
	}
	return found, ok
}

// messageErrno is the errno a numbered message carries, 0 when it
// carries none: (290)'s first number, (43)'s last (its template ends
// with it: CannotOpen). The words around it are never read.
func messageErrno(m Message) syscall.Errno {
	switch m.Num {
	case MsgSystemIOError:
		if n, err := m.Count(); err == nil {
			return syscall.Errno(n)
		}
	case MsgCannotOpen:
		if n, ok := LastNumber(m.Text); ok {
			return syscall.Errno(n)
		}
	}
	return 0
}

// Refusal finds a message of out that says another attempt fails the
// same way: a file the system will not let the utility have (43) with
// errno ENOENT, ENOTDIR, EISDIR, EACCES, EPERM, EROFS, ELOOP or
// ENAMETOOLONG, a database of another version (44), one crash recovery
// cannot repair (509, 510), after-imaging where the operation needs it
// off (1525). A file being made or released (EAGAIN, EINTR, EMFILE...)
// and a database in use (263, 276), a broker's user limit (748) are
// not refusals: they may pass on the next attempt.
func Refusal(out string) (Message, bool) {
	for _, m := range ScanMessages(out) {
		switch m.Num {
		case MsgWrongVersion, MsgLastNoIntegrity, MsgCannotRepair, MsgAIEnabled:
			return m, true
		case MsgCannotOpen:
			switch messageErrno(m) {
			case syscall.ENOENT, syscall.ENOTDIR, syscall.EISDIR, syscall.EACCES, syscall.EPERM,
				syscall.EROFS, syscall.ELOOP, syscall.ENAMETOOLONG:
				return m, true
			}
		}
	}
	return Message{}, false
}
