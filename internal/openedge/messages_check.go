package openedge

import (
	"fmt"
	"strings"
)

// successMarkers maps a utility to the message that proves it finished
// (openedge-formats.md §8). Oetools and PCT fail a run without it even when
// the exit code is 0, and so does oedl.
var successMarkers = map[string]int{
	"dump":            MsgDumpComplete,
	"dumpspecified":   MsgDumpComplete,
	"load":            MsgLoadComplete,
	"idxbuild":        MsgIndexesRebuilt,
	"probkup":         MsgBackupComplete,
	"procopy":         MsgDBCopied,
	"prostrct repair": MsgRepairComplete,
	"prostrct remove": MsgRemoveComplete,
}

// SuccessMarker returns the message number utility must print on success
// ("dump", "load", "idxbuild", "procopy", "prostrct repair", ...); false for
// utilities that have none, whose exit code is all there is.
func SuccessMarker(utility string) (int, bool) {
	n, ok := successMarkers[utility]
	return n, ok
}

// UtilityError is a utility run that failed: a non-zero exit code, a
// missing success marker, or (idxbuild) a non-zero error count.
type UtilityError struct {
	Utility  string
	ExitCode int
	Marker   int     // the success message that is missing; 0 if not the reason
	Last     Message // the last numbered message printed, usually the cause
	Reason   string  // set when neither the exit code nor a marker explains it
}

func (e *UtilityError) Error() string {
	var b strings.Builder
	b.WriteString(e.Utility)
	switch {
	case e.ExitCode != 0:
		fmt.Fprintf(&b, " failed with exit code %d", e.ExitCode)
	case e.Marker != 0:
		fmt.Fprintf(&b, " exited 0 without its success message (%d)", e.Marker)
	default:
		b.WriteString(" failed")
	}
	if e.Reason != "" {
		b.WriteString(": " + e.Reason)
	}
	if e.Last.Num != 0 {
		fmt.Fprintf(&b, "; last message: %s", e.Last.String())
	}
	return b.String()
}

// CheckSuccess decides whether a utility run worked: exit code 0 and, for
// the utilities that have one, the success marker in out. For idxbuild the
// "N error(s)" count must also be 0. The error is a *UtilityError carrying
// the last numbered message, which is what a DBA needs to see first.
func CheckSuccess(utility, out string, exitCode int) error {
	if exitCode != 0 {
		return &UtilityError{Utility: utility, ExitCode: exitCode, Last: lastMessage(out)}
	}
	marker, ok := successMarkers[utility]
	if !ok {
		return nil
	}
	if !HasMessage(out, marker) {
		return missingMarker(utility, marker, out)
	}
	if utility == "idxbuild" {
		if _, err := ParseIdxbuildOutput(out); err != nil {
			return &UtilityError{Utility: utility, Reason: err.Error(), Last: lastMessage(out)}
		}
	}
	return nil
}

func missingMarker(utility string, marker int, out string) error {
	return &UtilityError{Utility: utility, Marker: marker, Last: lastMessage(out)}
}

func lastMessage(out string) Message {
	var last Message
	forEachLine(out, func(n int, line string) bool {
		if m, ok := lineMessage(n, line); ok {
			last = m
		}
		return true
	})
	return last
}
