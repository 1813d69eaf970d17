package fault

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/oedl/oedl/internal/units"
)

// Set is a parsed rule list bound to the state directory that counts
// firings.
type Set struct {
	Rules []*Rule
	// StateDir holds the firing counters; "" keeps them in this process
	// only (tests, or no $OESIM_STATE and no $DLC).
	StateDir string
}

// Env is the variable FromEnv reads.
const Env = "OESIM_FAULTS"

// FromEnv parses $OESIM_FAULTS (no rules when it is unset or blank) and
// binds the set to $OESIM_STATE, else $DLC/.oesim.
func FromEnv() (*Set, error) {
	s, err := parse(os.Getenv(Env), Env)
	if err != nil {
		return nil, err
	}
	s.StateDir = StateDir()
	return s, nil
}

// StateDir is the directory all oesim processes share for fault counters
// and the virtual disk: $OESIM_STATE, else $DLC/.oesim, else "".
func StateDir() string {
	if d := os.Getenv("OESIM_STATE"); d != "" {
		return d
	}
	if d := os.Getenv("DLC"); d != "" {
		return filepath.Join(d, ".oesim")
	}
	return ""
}

// Parse reads a rule list: rules separated by ';' (or newlines), each
// operation[:table]:kind[=arg][,once|,times=N]. Blank rules are ignored.
// An error names the rule, its position in the list and the column.
func Parse(s string) (*Set, error) { return parse(s, "fault rules") }

func parse(s, src string) (*Set, error) {
	set := &Set{}
	pos, start := 0, 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != ';' && s[i] != '\n' {
			continue
		}
		text := s[start:i]
		col := start + 1 + (len(text) - len(strings.TrimLeft(text, " \t\r")))
		text = strings.TrimSpace(text)
		start = i + 1
		if text == "" {
			continue
		}
		pos++
		r, err := parseRule(text, pos, col, src)
		if err != nil {
			return nil, err
		}
		r.set = set
		set.Rules = append(set.Rules, r)
	}
	return set, nil
}

func parseRule(text string, pos, col int, src string) (*Rule, error) {
	fail := func(off int, format string, args ...any) error {
		return errAt(src, pos, col+off, text, format, args...)
	}
	r := &Rule{Pos: pos, Text: text}
	// Modifiers follow the first comma: ",once", ",times=N".
	body, mods, hasMods := strings.Cut(text, ",")
	fields := strings.Split(body, ":")
	for i := range fields {
		fields[i] = strings.TrimSpace(fields[i])
	}
	var kindField string
	switch len(fields) {
	case 2:
		r.Op, kindField = fields[0], fields[1]
	case 3:
		r.Op, r.Table, kindField = fields[0], fields[1], fields[2]
	default:
		return nil, fail(0, "want operation[:table]:kind[=arg][,once|,times=N], found %d field(s) separated by ':'", len(fields))
	}
	if !validName(r.Op, false) {
		return nil, fail(0, "operation %q is not a utility, a proutil qualifier or *", r.Op)
	}
	r.Op = strings.ToLower(r.Op)
	if r.Table != "" && !validName(r.Table, true) {
		return nil, fail(len(fields[0])+1, "table %q is not an OpenEdge table name ([owner.]name, * as wildcard)", r.Table)
	}
	kindOff := strings.LastIndex(body, kindField)
	name, arg, hasArg := strings.Cut(kindField, "=")
	r.Kind = Kind(strings.ToLower(strings.TrimSpace(name)))
	if r.Kind == "crash" { // shorthand: crash at the start
		r.Kind, arg, hasArg = CrashAfter, "0", true
	}
	ak, ok := kinds[r.Kind]
	if !ok {
		return nil, fail(kindOff, "unknown fault %q (known: crash, crash-after=N, exit=N, hang, hang-after=N, corrupt[=N], truncate-after=N, diskfull-after=SIZE, delay=DURATION, slow=SIZE, open-errno=N, wait=NAME)", name)
	}
	arg = strings.TrimSpace(arg)
	argOff := kindOff + len(name) + 1
	switch {
	case ak == argNone && hasArg:
		return nil, fail(argOff, "%s takes no argument", r.Kind)
	case ak != argNone && ak != argOptionalCount && !hasArg:
		return nil, fail(kindOff, "%s needs an argument (%s=...)", r.Kind, r.Kind)
	}
	var err error
	switch ak {
	case argCount, argOptionalCount:
		r.N = 1
		if hasArg {
			r.N, err = strconv.ParseInt(arg, 10, 64)
			if err != nil || r.N < 0 {
				return nil, fail(argOff, "%s=%s: want a number of records, 0 or more", r.Kind, arg)
			}
		}
		if ak == argOptionalCount && r.N == 0 {
			return nil, fail(argOff, "%s=%s: records are counted from 1", r.Kind, arg)
		}
	case argExitCode:
		r.N, err = strconv.ParseInt(arg, 10, 64)
		if err != nil || r.N < 1 || r.N > 255 {
			return nil, fail(argOff, "exit=%s: want an exit code from 1 to 255", arg)
		}
	case argErrno:
		r.N, err = strconv.ParseInt(arg, 10, 64)
		if err != nil || r.N < 1 || r.N > 255 {
			return nil, fail(argOff, "open-errno=%s: want an errno from 1 to 255", arg)
		}
	case argBytes:
		r.N, err = units.ParseBytes(arg)
		if err != nil {
			return nil, fail(argOff, "%s=%s: %v", r.Kind, arg, err)
		}
		if r.Kind == Slow && r.N < 1 {
			return nil, fail(argOff, "slow=%s: want bytes a second, 1 or more", arg)
		}
	case argDuration:
		r.Delay, err = time.ParseDuration(arg)
		if err != nil || r.Delay < 0 {
			return nil, fail(argOff, "delay=%s: want a duration such as 500ms or 2s", arg)
		}
	case argName:
		if !releaseName(arg) {
			return nil, fail(argOff, "wait=%s: want a file name of letters, digits, - and _", arg)
		}
		r.Name = arg
	}
	if hasMods {
		off := len(body) + 1
		for m := range strings.SplitSeq(mods, ",") {
			if err := r.modifier(strings.TrimSpace(m)); err != nil {
				return nil, fail(off, "%v", err)
			}
			off += len(m) + 1
		}
	}
	return r, nil
}

func (r *Rule) modifier(m string) error {
	switch {
	case strings.EqualFold(m, "once"):
		r.Times = 1
	case strings.HasPrefix(strings.ToLower(m), "times="):
		n, err := strconv.Atoi(strings.TrimSpace(m[len("times="):]))
		if err != nil || n < 1 {
			return fmt.Errorf("%s: want times=N with N from 1", m)
		}
		r.Times = n
	case m == "":
		return fmt.Errorf("empty modifier after ','")
	default:
		return fmt.Errorf("unknown modifier %q (once, times=N)", m)
	}
	return nil
}

// validName accepts an operation (letters, digits, '_', or "*") or, with
// table set, an OpenEdge table name with an optional owner and '*'
// wildcards.
func validName(s string, table bool) bool {
	if s == "" {
		return false
	}
	if s == "*" {
		return true
	}
	dots := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_':
		case table && (c == '*' || c == '#' || c == '$' || c == '%' || c == '&' || c == '-'):
		case table && c == '.':
			dots++
		default:
			return false
		}
	}
	return dots <= 1 && s[0] != '.' && s[len(s)-1] != '.'
}

// releaseName: a wait= name is one plain file name, never a path.
func releaseName(s string) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return s != ""
}
