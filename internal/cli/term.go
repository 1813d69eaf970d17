package cli

import (
	"os"
	"strings"

	"golang.org/x/term"
)

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// liveScreenTerminal says whether the live screen can be shown: on a
// terminal, unless TERM says it is a dumb one (Emacs' M-x shell, a serial
// or web console), which cannot move the cursor back to redraw: there each
// frame would land below the last with its escape sequences printed. The
// plain lines are shown instead, as on a pipe.
func liveScreenTerminal(tty bool, termName string) bool {
	return tty && !strings.EqualFold(termName, "dumb")
}
