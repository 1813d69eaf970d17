package sim

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"
)

// The database log's layout (docs/decisions.md, "What OpenEdge's logs
// really look like"): oesim writes the one of 10.1A and later, every line
// stamped "[date@time+zone] P-pid T-tid I WHO : (NNNN) text". With
// OESIM_LG_LAYOUT=9 it writes the one of Progress 9 and OpenEdge 10.0
// instead: the session's date line, then "HH:MM:SS WHO : text (NNNN)",
// with no date, zone or process id, so that a test can prove what oedl
// does with a log it cannot tell whose lines are.
const lgLayoutEnv = "OESIM_LG_LAYOUT"

// oldLogLayout reports whether OESIM_LG_LAYOUT asks for the pre-10.1A
// layout; an unknown value is an error naming it.
func oldLogLayout() (bool, error) {
	switch v := os.Getenv(lgLayoutEnv); v {
	case "", "10.1A":
		return false, nil
	case "9":
		return true, nil
	default:
		return false, fmt.Errorf("%s=%q: want 10.1A (the default) or 9", lgLayoutEnv, v)
	}
}

// lgDated holds the logs this process wrote its session's date line to
// (the pre-10.1A layout writes one as a session begins).
var lgDated sync.Map

// leadingNumber is a text's message number written first, as the 10.1A
// layout puts it; the older layout puts it last.
var leadingNumber = regexp.MustCompile(`^(\(\d+\)) (.*)$`)

// logLine appends one line to the database log (DB.lg) in the layout
// OESIM_LG_LAYOUT picks.
func logLine(lgPath, who, text string) {
	f, err := os.OpenFile(lgPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	now := time.Now()
	if old, _ := oldLogLayout(); old {
		if _, dated := lgDated.LoadOrStore(lgPath, true); !dated {
			fmt.Fprintf(f, "\n                %s\n", now.Format("Mon Jan _2 15:04:05 2006"))
		}
		if m := leadingNumber.FindStringSubmatch(text); m != nil {
			text = m[2] + " " + m[1]
		}
		fmt.Fprintf(f, "%s %-9s: %s\n", now.Format("15:04:05"), strings.ToUpper(who), text)
		return
	}
	fmt.Fprintf(f, "[%s] P-%-6d T-0     I %-8s: %s\n", now.Format("2006/01/02@15:04:05.000-0700"), os.Getpid(),
		strings.ToUpper(who), text)
}
