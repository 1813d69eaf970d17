package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/oedl/oedl/internal/execx"
)

// validateTarget asks the installation's own prostrct whether it will
// create the target from target.st: `prostrct create TARGET target.st
// -blocksize N -validate`, the create-target call with -validate, run
// where that call runs. prostrct checks the file's syntax and content and
// the room for its extents, and creates nothing ("The add or create will
// not execute, even if there are no errors": Progress, "Validating
// structure description files", Database Management 12.2). A refusal
// found here stops the run before the source is frozen, where found at
// create-target it stopped it inside the window.
//
// It runs only when this invocation creates the target over nothing: a
// target kept (prepared, or a resume's own) is not created; one that
// replaces an earlier oedl target still has that target's files where
// the new ones go, which prostrct refuses (create-target removes them
// first). done is false then.
func (r *runner) validateTarget(ctx context.Context) (done bool, err error) {
	return r.validateTargetTo(ctx, r.logWriter())
}

// validateTargetTo is validateTarget with the call's output going to log.
func (r *runner) validateTargetTo(ctx context.Context, log io.Writer) (done bool, err error) {
	if r.prepared != nil || r.proof == nil || r.proof.keep || len(r.proof.replace) > 0 {
		return false, nil
	}
	c := r.cfg
	s := c.createSteps()[0]
	s.argv = append(s.argv, "-validate")
	if _, err := os.Stat(s.dir); err != nil {
		return false, nil // the dry run, before the target's directory is made
	}
	m := c.machine(s.host)
	res, err := m.runner.Run(ctx, execx.Cmd{Path: s.argv[0], Args: s.argv[1:], Dir: s.dir, Env: c.at(s.host).env(),
		Timeout: 5 * time.Minute, Log: log})
	switch {
	case err == nil:
		return true, nil
	case !errors.Is(err, execx.ErrExit):
		return false, precondition("%s (validating the target's structure before anything is written): %v", execx.Quote(s.argv), err)
	}
	return false, structureRefused(s.argv, c.targetST(), res.Output)
}

// validation waits for the validation validateBeside started and returns
// the preflight's space summary as validatedSpace does. Every call after
// the first returns the first's answer.
type validation func(space string) (string, error)

// validateBeside starts validateTarget beside the source's last check
// (its describe; its .df too until the .df came with the transaction id,
// checkSourceFree). After them it was one utility start-up more on
// the window's first, idle second (0.2 s of the 1.1 s before the first
// job on seed003 at 150 ms a start-up: docs/benchmarks/run.md, i12-gap4).
// It needs the target proven (which files exist, which are replaced) and
// its directories found, and writes nothing (validateTarget); it reads
// neither the source nor anything the source's checks read, so it may run
// while they do. Its call goes to run.log when it is waited for, after the
// source's (the log stays one call after another).
func (r *runner) validateBeside(ctx context.Context) validation {
	var (
		log  bytes.Buffer
		done bool
		err  error
	)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		done, err = r.validateTargetTo(ctx, &log)
	}()
	var logged sync.Once
	return func(space string) (string, error) {
		<-finished
		logged.Do(func() {
			if w := r.logWriter(); w != nil {
				_, _ = w.Write(log.Bytes())
			}
		})
		if done {
			space += "; target.st taken by prostrct create -validate"
		}
		return space, err
	}
}

// validatedSpace is the preflight's space summary, saying that prostrct
// took target.st when it was asked (validateTarget): validateBeside with
// nothing beside it (the preparation's preflight).
func (r *runner) validatedSpace(ctx context.Context, space string) (string, error) {
	return r.validateBeside(ctx)(space)
}

// targetST is the plan's target.st, as createSteps names it.
func (c *Config) targetST() string { return filepath.Join(c.PlanDir, "target.st") }

// structureRefused is prostrct -validate's refusal of stPath. Named by
// the line the utility names (its "FILE:LINE" form, whatever the message
// language) it is bad input, exit 2: the plan's target.st has a line this
// installation refuses (a large extent where it has no large files, a
// syntax it does not take). Without a line it is the target's
// filesystems (no room, a file there), exit 3.
func structureRefused(argv []string, stPath, out string) error {
	lines := structureLines(stPath, out)
	what := errorLines(out)
	if len(lines) == 0 {
		return precondition("%s refused the target's structure, so the run stopped before anything was written or frozen: %s", execx.Quote(argv), what)
	}
	text := readLines(stPath)
	var named []string
	for _, n := range lines {
		l := fmt.Sprintf("%s line %d", stPath, n)
		if n-1 < len(text) {
			l += fmt.Sprintf(" (%s)", strings.TrimSpace(text[n-1]))
		}
		named = append(named, l)
	}
	return &UsageError{Err: fmt.Errorf("%s: this installation's prostrct refuses %s, so the run stopped before anything was written or frozen: %s; make the plan again for this target (oedl plan), or correct the line",
		strings.Join(named, "; "), stPath, what)}
}

// structureLines are the .st lines a utility's output names, in order,
// once each: "PATH:LINE" after the .st's path.
func structureLines(stPath, out string) []int {
	re := regexp.MustCompile(regexp.QuoteMeta(stPath) + `:(\d+)`)
	var lines []int
	seen := map[int]bool{}
	for _, m := range re.FindAllStringSubmatch(out, -1) {
		n, err := strconv.Atoi(m[1])
		if err == nil && !seen[n] {
			seen[n] = true
			lines = append(lines, n)
		}
	}
	return lines
}

// errorLines are the utility's error lines ("** ..."), or its last line
// when it printed none.
func errorLines(out string) string {
	var errs []string
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "**") {
			errs = append(errs, l)
		}
	}
	if len(errs) == 0 {
		return lastMessage(out)
	}
	return strings.Join(errs, " ")
}

func readLines(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return strings.Split(string(b), "\n")
}
