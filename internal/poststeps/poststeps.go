// Package poststeps is what a DBA does to the target after the load that
// oedl must not do itself (seed 003's "Watch out!": re-enable
// after-imaging and replication, update the SQL statistics): each step
// with why it applies or not (from the source's describe), and the exact
// commands, written as a script the DBA reads and runs.
//
// oedl never runs them: after-imaging needs a backup and AI extents, and
// replication a properties file and a target site, all of which the DBA
// owns; the statistics need a SQL broker and an account. The run writes
// the steps into its work directory (post-load.json, post-load.sh,
// update-statistics.sql) once the preflight has described the source,
// because only the run knows the source's after-imaging and replication:
// the plan is made from a tabanalys report and a .df, which carry
// neither. The report lists them.
package poststeps

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/oedl/oedl/internal/atomicfile"
	"github.com/oedl/oedl/internal/execx"
)

// The files the run writes in its work directory.
const (
	JSONFile       = "post-load.json"
	ScriptFile     = "post-load.sh"
	StatisticsFile = "update-statistics.sql"
	// StatisticsOutput is what sqlexp writes when the DBA runs the
	// statistics step of ScriptFile (not the run itself).
	StatisticsOutput = "update-statistics.out"
)

// The steps, in the order they must run: the backup after-imaging begins
// from, then replication (which needs after-imaging), then statistics.
const (
	StepAfterImaging = "after-imaging"
	StepReplication  = "replication"
	StepStatistics   = "statistics"
)

// Step is one thing to do after the load. Commands are argv lists; an
// argument "$NAME" is the shell variable the DBA sets (a port, a backup
// destination): the script checks it is set and expands it.
type Step struct {
	Name     string     `json:"name"`
	Applies  bool       `json:"applies"`
	Why      string     `json:"why"`
	Commands [][]string `json:"commands"`
}

// Source is what the preflight learnt of the source by describe. Known is
// false when it was not described (a run across hosts).
type Source struct {
	Known       bool
	AI          bool
	Replication bool
}

// Build returns the steps for target (tables as "owner.name") given what
// describe said of the source; dlc is the target's $DLC and work the
// directory the files are written to.
func Build(dlc, target, work string, tables []string, src Source) []Step {
	bin := func(p string) string { return filepath.Join(dlc, "bin", p) }
	ai := Step{Name: StepAfterImaging, Applies: src.AI,
		Commands: [][]string{
			{bin("probkup"), target, "$OEDL_BACKUP"},
			{bin("rfutil"), target, "-C", "aimage", "begin"},
		}}
	repl := Step{Name: StepReplication, Applies: src.Replication,
		Commands: [][]string{{bin("proutil"), target, "-C", "enablesitereplication", "source"}}}
	switch {
	case !src.Known:
		why := "not known: the source was not described (a run across hosts); run proutil -C describe on the source and do this step if it "
		ai.Why = why + "prints an After Imaging section"
		repl.Why = why + "lists feature 1, OpenEdge Replication"
	default:
		ai.Why = "the source had after-imaging off (describe prints no After Imaging section)"
		if src.AI {
			ai.Why = "the source had after-imaging on (describe prints its After Imaging section); a dump and load does not carry it. " +
				"The target needs AI extents (prostrct add) and a full backup before aimage begin"
		}
		repl.Why = "the source was not a replication source (describe lists no feature 1, OpenEdge Replication)"
		if src.Replication {
			repl.Why = "the source was a replication source (describe lists feature 1, OpenEdge Replication). " +
				"The target needs after-imaging (the step above) and " + target + ".repl.properties; a target site must be re-baselined from a backup of this target"
		}
	}
	stats := Step{Name: StepStatistics, Applies: len(tables) > 0,
		Why: "a loaded database has no SQL statistics (SYSTBLSTAT, SYSIDXSTAT, SYSCOLSTAT start empty): the SQL optimizer needs them. Needs the target served with a SQL broker",
		Commands: [][]string{{bin("sqlexp"), "-char", "-db", target, "-S", "$OEDL_SQL_PORT", "-user", "$OEDL_SQL_USER", "-password", "$OEDL_SQL_PASSWORD",
			"-infile", filepath.Join(work, StatisticsFile), "-outfile", filepath.Join(work, StatisticsOutput)}}}
	return []Step{ai, repl, stats}
}

// Statistics is the SQL script of the statistics step: every statistic
// of every table, one statement each, then a commit.
func Statistics(tables []string) string {
	var b strings.Builder
	for _, t := range tables {
		owner, name, ok := strings.Cut(t, ".")
		if !ok {
			owner, name = "PUB", t
		}
		fmt.Fprintf(&b, "UPDATE TABLE STATISTICS AND INDEX STATISTICS AND ALL COLUMN STATISTICS FOR %s.%s;\n", sqlName(owner), sqlName(name))
	}
	b.WriteString("COMMIT WORK;\n")
	return b.String()
}

// sqlName is a delimited identifier: ABL names may hold hyphens.
func sqlName(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

var shellVar = regexp.MustCompile(`^\$([A-Z][A-Z0-9_]*)$`)

// Script is the sh script of the steps: those that apply as commands (it
// stops at the first that fails), the others as comments saying why not.
func Script(target string, steps []Step) string {
	var b strings.Builder
	b.WriteString("#!/bin/sh\n# Written by oedl run: the steps after the load of " + oneLine(target) + " that oedl does not take itself.\n")
	b.WriteString("# Read it, set the variables it names, and run it; each step says why it applies.\nset -e\n")
	vars := map[string]bool{}
	for _, s := range steps {
		for _, argv := range s.Commands {
			for _, a := range argv {
				if m := shellVar.FindStringSubmatch(a); m != nil && s.Applies && !vars[m[1]] {
					vars[m[1]] = true
					fmt.Fprintf(&b, ": \"${%s:?set %s (%s)}\"\n", m[1], m[1], s.Name)
				}
			}
		}
	}
	for _, s := range steps {
		verdict := "applies"
		prefix := ""
		if !s.Applies {
			verdict, prefix = "does not apply", "# "
		}
		fmt.Fprintf(&b, "\n# %s: %s: %s\n", s.Name, verdict, oneLine(s.Why))
		for _, argv := range s.Commands {
			line := Quote(argv)
			if prefix != "" {
				// every line of a step that does not apply stays a comment
				line = strings.ReplaceAll(line, "\n", "\n"+prefix)
			}
			b.WriteString(prefix + line + "\n")
		}
	}
	return b.String()
}

// oneLine keeps a comment's text on its line: after a line break the rest
// would be a command of the script (a path holding one; oedl run refuses
// such paths, this is the script's own guard).
func oneLine(s string) string { return strings.NewReplacer("\n", "\\n", "\r", "\\r").Replace(s) }

// Quote is execx.Quote but a "$NAME" argument is expanded by the shell.
func Quote(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if m := shellVar.FindStringSubmatch(a); m != nil {
			parts[i] = `"${` + m[1] + `}"`
			continue
		}
		parts[i] = execx.Quote([]string{a})
	}
	return strings.Join(parts, " ")
}

// Write writes the steps, their script and the statistics SQL into dir.
func Write(dir, target string, tables []string, steps []Step) error {
	data, err := json.MarshalIndent(steps, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, StatisticsFile), []byte(Statistics(tables))); err != nil {
		return err
	}
	script := filepath.Join(dir, ScriptFile)
	if err := atomicfile.WriteFileMode(script, []byte(Script(target, steps)), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, JSONFile), append(data, '\n'))
}

// Read reads the steps a run wrote in dir; none (nil) when it wrote none.
func Read(dir string) ([]Step, error) {
	p := filepath.Join(dir, JSONFile)
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var steps []Step
	if err := json.Unmarshal(data, &steps); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return steps, nil
}
