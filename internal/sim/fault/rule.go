package fault

import (
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"
)

// Kind is what a rule makes the utility do.
type Kind string

const (
	// CrashAfter kills the utility (SIGKILL) once it has processed N
	// records: the records already written stay, the rest never come.
	CrashAfter Kind = "crash-after"
	// Exit makes the utility fail at once with exit code N.
	Exit Kind = "exit"
	// Hang makes the utility stop doing anything until it is killed.
	Hang Kind = "hang"
	// HangAfter hangs once N records are processed.
	HangAfter Kind = "hang-after"
	// Corrupt damages record N (default 1) of the file the utility writes
	// (a dump's .bd), so that its checksum no longer matches.
	Corrupt Kind = "corrupt"
	// TruncateAfter ends the written file after N records, without its
	// trailer, as a dump cut short by a full or failing disk leaves it.
	TruncateAfter Kind = "truncate-after"
	// DiskFullAfter fails writes with "no space left" after N bytes.
	DiskFullAfter Kind = "diskfull-after"
	// Delay adds a start-up delay (Rule.Delay) before the utility works.
	Delay Kind = "delay"
	// OpenErrno makes the utility fail at once as one that cannot open
	// its database's file, with (43) and errno N (13 permission denied,
	// 24 too many open files...): a refusal oedl tells by its number.
	OpenErrno Kind = "open-errno"
	// Slow caps this utility run's own disk I/O at N bytes a second, on
	// top of the shared virtual disk: one slow call (a load that must be
	// caught in flight) without slowing the rest of the run.
	Slow Kind = "slow"
	// Wait holds the utility before it starts until the file
	// $OESIM_STATE/release/NAME exists (Rule.Name): a test's hook to let
	// it go at the moment the test chooses (another process started in
	// between), with no sleep standing in for that moment.
	Wait Kind = "wait"
)

// kinds lists each kind with what its argument is.
var kinds = map[Kind]argKind{
	CrashAfter:    argCount,
	Exit:          argExitCode,
	Hang:          argNone,
	HangAfter:     argCount,
	Corrupt:       argOptionalCount,
	TruncateAfter: argCount,
	DiskFullAfter: argBytes,
	Delay:         argDuration,
	Slow:          argBytes,
	OpenErrno:     argErrno,
	Wait:          argName,
}

type argKind int

const (
	argNone argKind = iota
	argCount
	argOptionalCount
	argExitCode
	argBytes
	argDuration
	argErrno
	argName
)

// Rule is one parsed fault rule.
type Rule struct {
	Op    string // operation: a proutil qualifier (dump, load, idxbuild...) or a utility (procopy...), or "*"
	Table string // "" (any table, or none), "*", "name", "owner.name"; may hold * wildcards
	Kind  Kind
	// N is the argument: records (crash-after, hang-after, truncate-after,
	// corrupt), the exit code (exit), bytes (diskfull-after), bytes a
	// second (slow).
	N     int64
	Delay time.Duration // delay=
	Name  string        // wait=: the release file's name
	// Times is how many times the rule fires over all processes; 0 means
	// every time.
	Times int
	// Pos is the 1-based position of the rule in the list; Text the rule
	// as written.
	Pos  int
	Text string

	set *Set
}

// String is the rule in canonical form; Parse(r.String()) gives it back.
func (r *Rule) String() string {
	var b strings.Builder
	b.WriteString(r.Op)
	if r.Table != "" {
		b.WriteString(":" + r.Table)
	}
	b.WriteString(":" + string(r.Kind))
	switch kinds[r.Kind] {
	case argCount, argExitCode, argBytes, argErrno:
		b.WriteString("=" + strconv.FormatInt(r.N, 10))
	case argOptionalCount:
		if r.N != 1 {
			b.WriteString("=" + strconv.FormatInt(r.N, 10))
		}
	case argDuration:
		b.WriteString("=" + r.Delay.String())
	case argName:
		b.WriteString("=" + r.Name)
	}
	switch r.Times {
	case 0:
	case 1:
		b.WriteString(",once")
	default:
		b.WriteString(",times=" + strconv.Itoa(r.Times))
	}
	return b.String()
}

// matches reports whether the rule applies to the utility, qualifier and
// table (any of which may be empty).
func (r *Rule) matches(utility, qualifier, table string) bool {
	if r.Op != "*" && !strings.EqualFold(r.Op, qualifier) && !strings.EqualFold(r.Op, utility) {
		return false
	}
	if r.Table == "" {
		return true
	}
	if table == "" {
		return r.Table == "*"
	}
	pattern, name := strings.ToLower(r.Table), strings.ToLower(table)
	if strings.Contains(pattern, ".") {
		if !strings.Contains(name, ".") {
			name = "pub." + name
		}
	} else if i := strings.IndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	ok, err := path.Match(pattern, name)
	return err == nil && ok
}

// errAt is a parse error that names the rule and where in OESIM_FAULTS it
// is.
func errAt(src string, pos, col int, rule, format string, args ...any) error {
	return fmt.Errorf("%s: rule %d %q (column %d): %s", src, pos, rule, col, fmt.Sprintf(format, args...))
}
