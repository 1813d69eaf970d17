package sim

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"syscall"

	"github.com/oedl/oedl/internal/sim/msg"
	"github.com/oedl/oedl/internal/sim/store"
)

// Release is the banner oesim prints, as OpenEdge utilities do first.
const Release = "OpenEdge Release 12.8 as of Wed Jan 24 19:02:14 EST 2024"

// proc is one utility invocation: its arguments and console. Utilities
// print their messages on stdout, as the real ones do; usage errors go to
// stderr.
type proc struct {
	name   string
	args   []string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	env    *environment
	texts  *msg.Texts // the message file (PROMSGS) the utility prints from
	// room is a diskfull-after fault on prostrct, procopy or _progres
	// (nil: none); proutil's qualifiers take theirs where they write.
	room *diskRoom
}

// runUtility applies the environment (start-up delay, faults, virtual
// disk) around one utility.
func (p *proc) runUtility(fn func(*proc) int) int {
	env, err := loadEnvironment()
	if err != nil {
		p.msg("oesim.error", err)
		return exitUsage
	}
	// The message file, chosen as OpenEdge chooses it (package msg).
	promsgs := os.Getenv("PROMSGS")
	if p.texts, err = msg.Open(promsgs, os.Getenv("DLC")); err != nil {
		p.msg("43", promsgs, 2)
		return exitUsage
	}
	p.env = env
	defer env.close()
	// A utility is short-lived and moves big buffers: collect less often
	// (the machine has memory to spare, a real proutil has -B buffers).
	debug.SetGCPercent(400)
	if path := os.Getenv("OESIM_CPUPROFILE"); path != "" {
		// Profiling one utility call, for oesim's own performance work.
		if f, err := os.Create(fmt.Sprintf("%s.%s.%d", path, p.name, os.Getpid())); err == nil {
			pprof.StartCPUProfile(f)
			defer func() { pprof.StopCPUProfile(); f.Close() }()
		}
	}
	if os.Getenv(brokerChildEnv) == "" {
		env.startup() // the broker pays it once it holds the database
	}
	if !isProutil(p.name) {
		// Utilities other than proutil take the rules that strike at
		// start (exit, hang, delay) by their own name: "procopy:exit=1".
		fp := env.fault(p, "", "")
		if rc := applyEarlyFault(p, fp); rc >= 0 {
			return rc
		}
		p.room = roomFor(fp)
	}
	return fn(p)
}

func isProutil(name string) bool { return name == "proutil" || name == "_proutil" || name == "_dbutil" }

// say prints one console line that is not a message (a report line, a
// name under a heading).
func (p *proc) say(format string, a ...any) {
	fmt.Fprintf(p.stdout, format+"\n", a...)
}

// msg prints catalog message key in the language of the message file.
func (p *proc) msg(key string, a ...any) {
	t := p.texts
	if t == nil {
		t = englishTexts
	}
	fmt.Fprintln(p.stdout, t.Sprintf(key, a...))
}

var englishTexts = msg.Builtin(msg.English)

// fail prints message key and returns exitFail.
func (p *proc) fail(key string, a ...any) int {
	p.msg(key, a...)
	return exitFail
}

// failf prints a line of oesim's own command line (install, gen), which
// is not a simulated utility and has no message file, and returns
// exitFail.
func (p *proc) failf(format string, a ...any) int {
	p.say(format, a...)
	return exitFail
}

// failErr prints err and returns exitFail: a catalog message (*msg.Error,
// or an error that carries one) in the language of the message file, any
// other error as an OpenEdge error line "** text".
func (p *proc) failErr(err error) int {
	p.sayErr(err)
	return exitFail
}

func (p *proc) sayErr(err error) {
	var me *msg.Error
	var k msg.Keyed
	var damaged *store.DamagedError
	var pe *fs.PathError
	var errno syscall.Errno
	switch {
	case errors.As(err, &damaged):
		p.msg("509")
		p.msg("510")
	case errors.As(err, &me):
		p.msg(me.Key, me.Args...)
	case errors.As(err, &k):
		me = k.Message()
		p.msg(me.Key, me.Args...)
	case errors.As(err, &pe) && pe.Op == "open" && errors.As(pe.Err, &errno):
		// Any file the utility cannot open (DB.lk, an extent, a .bd)
		// is (43) with its errno, as OpenEdge reports it.
		p.msg("43", pe.Path, int(errno))
	case errors.As(err, &pe) && pe.Op == "write" && errors.As(pe.Err, &errno):
		// A write the system refused (DB.lk on a full disk) says its
		// errno, as oesim's other write errors do.
		p.msg("oesim.write.errno", pe.Path, int(errno), errno)
	default:
		p.msg("oesim.internal", strings.TrimPrefix(err.Error(), "** "))
	}
}

// usage prints a usage error and returns exitUsage.
func (p *proc) usage(format string, a ...any) int {
	fmt.Fprintf(p.stderr, "%s: "+format+"\n", append([]any{p.name}, a...)...)
	return exitUsage
}

func (p *proc) banner() { p.say("%s", Release) }

// dlc is $DLC, which every utility needs as the real wrappers do.
func (p *proc) dlc() (string, bool) {
	d := os.Getenv("DLC")
	if d == "" {
		p.msg("oesim.dlc")
		return "", false
	}
	return d, true
}

// flagSet is a tiny parser for OpenEdge-style command lines: positional
// words and "-name [value]" parameters, in any order.
type flagSet struct {
	pos    []string
	values map[string]string
	bools  map[string]bool
}

// parseFlags splits args; takesValue lists the parameters followed by a
// value (others are switches).
func parseFlags(args []string, takesValue ...string) (*flagSet, error) {
	fs := &flagSet{values: map[string]string{}, bools: map[string]bool{}}
	tv := map[string]bool{}
	for _, n := range takesValue {
		tv[n] = true
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if len(a) > 1 && a[0] == '-' && !isNumber(a) {
			if tv[a] {
				if i+1 >= len(args) {
					return nil, fmt.Errorf("%s needs a value", a)
				}
				fs.values[a] = args[i+1]
				i++
				continue
			}
			fs.bools[a] = true
			continue
		}
		fs.pos = append(fs.pos, a)
	}
	return fs, nil
}

func isNumber(s string) bool {
	if s == "" || s == "-" {
		return false
	}
	for i, c := range s {
		if c == '-' && i == 0 {
			continue
		}
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// intValue reads an integer parameter, def when absent.
func (fs *flagSet) intValue(name string, def int) (int, error) {
	v, ok := fs.values[name]
	if !ok {
		return def, nil
	}
	var n int
	if _, err := fmt.Sscanf(v, "%d", &n); err != nil || fmt.Sprint(n) != strings.TrimLeft(v, "+") {
		return 0, fmt.Errorf("%s: %q is not a number", name, v)
	}
	return n, nil
}
