package openedge

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
)

// The startup parameter file every ABL client session reads before its
// own command line: $PROSTARTUP, or $DLC/startup.pf when it is unset
// (Progress: STARTUP-PARAMETERS attribute, "the default parameter file
// ($DLC/startup.pf) or the file specified by the $PROSTARTUP environment
// variable"). Parameters are processed left to right, a -pf file where it
// stands, so a -db there is connected before the command line's: it is
// LDBNAME(1), and DICTDB, of every `_progres -b -db DB -p proc` oedl runs
// (the documentation's own example: a startup.pf of
// "-db sports2000 -H pclsmith -S 5000").

// StartupPF is the startup parameter file of a client session, given the
// value of $PROSTARTUP and $DLC.
func StartupPF(prostartup, dlc string) string {
	if prostartup != "" {
		return prostartup
	}
	return filepath.Join(dlc, "startup.pf")
}

// PFConnect is a database a parameter file connects (-db NAME), where it
// says so.
type PFConnect struct {
	File string
	Line int
	DB   string
}

func (c PFConnect) String() string {
	return fmt.Sprintf("%s:%d: -db %s", c.File, c.Line, c.DB)
}

// maxPFDepth bounds the -pf files followed from one another (a file that
// names itself would never end).
const maxPFDepth = 16

// PFDatabases returns every -db of the parameter file at path and of the
// files its -pf parameters name, in the order a session connects them. A
// file that does not exist at the top connects nothing (no startup.pf is
// the default); a -pf naming one that cannot be read is an error: what it
// connects cannot be told. So is a relative -pf name: a session reads it
// from its own current directory, and oedl's utilities run in several
// (the work directory, temporary directories, the target's), so that no
// one file it names can be checked.
func PFDatabases(path string, read func(string) ([]byte, error)) ([]PFConnect, error) {
	data, err := read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []PFConnect
	return out, pfScan(path, data, read, 0, &out)
}

func pfScan(path string, data []byte, read func(string) ([]byte, error), depth int, out *[]PFConnect) error {
	if depth > maxPFDepth {
		return fmt.Errorf("%s: -pf files nested more than %d deep", path, maxPFDepth)
	}
	for i, line := range strings.Split(string(data), "\n") {
		toks := pfTokens(line)
		for j := 0; j < len(toks); j++ {
			key := toks[j]
			if key != "-db" && key != "-pf" {
				continue
			}
			arg := ""
			if j+1 < len(toks) {
				arg = toks[j+1]
				j++
			}
			if key == "-db" {
				*out = append(*out, PFConnect{File: path, Line: i + 1, DB: arg})
				continue
			}
			if arg == "" {
				return fmt.Errorf("%s:%d: -pf without a file name", path, i+1)
			}
			if !filepath.IsAbs(arg) {
				return fmt.Errorf("%s:%d: -pf %s is a relative name: each session reads it from its own current directory, "+
					"and oedl's run in several, so what it connects cannot be told; give its absolute path", path, i+1, arg)
			}
			b, err := read(arg)
			if err != nil {
				return fmt.Errorf("%s:%d: -pf %s: %w", path, i+1, arg, err)
			}
			if err := pfScan(arg, b, read, depth+1, out); err != nil {
				return err
			}
		}
	}
	return nil
}

// pfTokens splits one line of a parameter file as OpenEdge does
// (Startup Command and Parameter Reference, "Parameter file format"):
// white space separates tokens, '#' begins a comment to the end of the
// line, a value in single or double quotes is one token, and '~' takes
// away the special meaning of the next character (~t, ~n ... and ~nnn
// octal are characters; their value does not matter here beyond being
// part of the token).
func pfTokens(line string) []string {
	var toks []string
	var cur strings.Builder
	in, quote := false, rune(0)
	rs := []rune(strings.TrimRight(line, "\r"))
	flush := func() {
		if in {
			toks = append(toks, cur.String())
			cur.Reset()
			in = false
		}
	}
	for k := 0; k < len(rs); k++ {
		r := rs[k]
		switch {
		case r == '~' && k+1 < len(rs):
			k++
			in = true
			if n, err := strconv.ParseUint(string(rs[k:min(k+3, len(rs))]), 8, 8); err == nil && k+3 <= len(rs) {
				cur.WriteRune(rune(n))
				k += 2
				continue
			}
			cur.WriteRune(rs[k])
		case quote != 0:
			if r == quote {
				quote = 0
				continue
			}
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == '#':
			flush()
			return toks
		case r == ' ' || r == '\t':
			flush()
		default:
			in = true
			cur.WriteRune(r)
		}
	}
	flush()
	return toks
}

// NoStartupDatabase refuses a startup parameter file (StartupPF) that
// connects a database: oedl's ABL sessions (`_progres -b -db TARGET -p
// prodict/load_df.p`, load_seqvals.p, load_security.p ...) act on the first
// database connected, which would be that one, not the one on their
// command line: the target's definitions, sequences and users loaded into
// a database oedl did not make (safety trial 7). A relative prostartup is
// refused, not read: the utilities would each read it from their own
// directory. The caller makes it absolute first where it can tell what the
// DBA meant, and hands the utilities that name (run.Config.startupPF).
func NoStartupDatabase(prostartup, dlc string, read func(string) ([]byte, error)) error {
	pf := StartupPF(prostartup, dlc)
	which := "$DLC/startup.pf"
	if prostartup != "" {
		which = "$PROSTARTUP"
	}
	if !filepath.IsAbs(pf) {
		return fmt.Errorf("%s %s is a relative name: each ABL session reads it from its own current directory, "+
			"and oedl's run in several, so which file it names cannot be told; set it to an absolute path", which, pf)
	}
	dbs, err := PFDatabases(pf, read)
	if err != nil {
		return fmt.Errorf("the startup parameter file every ABL session reads first (%s, %s) cannot be read whole, so what it connects cannot be told: %w", which, pf, err)
	}
	if len(dbs) == 0 {
		return nil
	}
	return fmt.Errorf("the startup parameter file every ABL session reads first (%s, %s) connects a database (%s): "+
		"it would be the first database of every _progres session oedl starts, the one prodict/load_df.p and oedl's "+
		"procedures write to, instead of the target on their command line; remove the -db from it, or run oedl with "+
		"PROSTARTUP naming a parameter file without one", which, pf, dbs[0])
}
