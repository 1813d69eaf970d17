package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/manifest"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/room"
	"github.com/oedl/oedl/internal/schedule"
)

// The files a run creates, proven before anything is written
// (internal/manifest): the target's every file, resolved as prostrct will
// resolve them, against the source's files and whatever else exists. The
// preflight proves them; create-target proves them again the moment
// before it writes, removes only what the proof allows, and writes the
// target's record (DB.oedl.json) that a later --force relies on.

// targetProof is what a proof decided.
type targetProof struct {
	entries []manifest.Entry
	rules   manifest.Rules
	// keep: a resume continues into the target it created; nothing is
	// replaced, every existing file was checked to be the record's.
	keep bool
	// ownWritten: a rebuild of the run's own target (noint.go), which its
	// utilities wrote since the record stamped it (oesim rewrites the
	// control area whole): as for keep, the record's name proves the
	// control area and the log, its stamped identity every extent
	// (manifest.Record.ForOwnRun).
	ownWritten bool
	replace    []manifest.Found // files create-target removes first
	// leftSince: a resume of the run that owns the target, which an
	// earlier invocation left at this time; create-target proves it
	// untouched since again before it removes anything (ownleft.go).
	leftSince *time.Time
}

// targetEntries lists every file of the target: those prostrct create
// makes from target.st, run in the target's directory as createSteps runs
// it, and the target's record.
func (c *Config) targetEntries(view manifest.FS, st *openedge.Structure) ([]manifest.Entry, error) {
	entries, err := manifest.NewDatabase(view, c.Target, st, filepath.Dir(c.Target))
	if err != nil {
		return nil, err
	}
	rec := manifest.RecordPath(c.Target)
	r, err := manifest.Resolve(view, rec)
	if err != nil {
		return nil, err
	}
	return append(entries, manifest.Entry{Path: rec, Resolved: r, What: "oedl's record of the target"}), nil
}

// proveTarget proves the target's files for this invocation: a first run
// creates over nothing (with --force, over what the target's record proves
// an earlier oedl run made); a resume that keeps the target checks that
// every file there is the record's; a resume that creates the target
// again replaces only what its own record names.
func (r *runner) proveTarget(view manifest.FS, st *openedge.Structure, source *manifest.Files, resumed bool) (*targetProof, error) {
	c := r.cfg
	entries, err := c.targetEntries(view, st)
	if err != nil {
		return nil, pathError(err)
	}
	target, err := manifest.Resolve(view, c.Target)
	if err != nil {
		return nil, pathError(err)
	}
	rec, err := manifest.ReadRecord(view, manifest.RecordPath(c.Target))
	if err != nil {
		return nil, precondition("the target's record: %v", err)
	}
	if c.Force && rec != nil && filepath.Clean(rec.Work) != filepath.Clean(c.Work) && workLocked(rec.Work) {
		// The record proves oedl made the target, not that it is done with
		// it: the run that made it may be loading it now, between two
		// utilities (no .lk), and --force would remove its files under it.
		return nil, precondition("the target %s belongs to the oedl running now in %s (its record %s says that run made it): --force never replaces a target under a live run; watch it with oedl status --work %s",
			c.Target, rec.Work, manifest.RecordPath(c.Target), execx.ShellQuote(rec.Work))
	}
	if err := resumeOntoOthers(c, rec, resumed, r.resumeKeepsTarget); err != nil {
		return nil, err
	}
	p := &targetProof{entries: entries, keep: r.resumeKeepsTarget, ownWritten: r.rebuild}
	if resumed && ownRecord(rec, c.Work) && leftAfter(rec, r.lastStart) {
		if err := ownLeftAlone(c, rec, view); err != nil {
			return nil, err
		}
		p.leftSince = rec.Left
	}
	if resumed && ownRecord(rec, c.Work) && !leftAfter(rec, r.lastStart) {
		// Killed since its last end stamp: its log says who used it (on
		// a run across hosts, read on the target's host).
		if err := r.noSessionSinceKill(view, rec); err != nil {
			return nil, err
		}
	}
	p.rules = manifest.Rules{Protected: []*manifest.Files{source}, Target: target, Record: rec, Work: c.Work,
		Replace: c.Force || resumed || r.prepared != nil}
	switch {
	case r.prepared != nil:
		// A prepared target proven untouched: its files are the very ones
		// the record stamped (provePrepared), identities and all.
	case p.keep && rec == nil && r.recordWritten:
		// The run wrote a record and it is gone: the database there now
		// may be anything (the directory replaced, a restore, a copy),
		// and keeping it would truncate its areas and load into it.
		return nil, precondition("the target's record %s is gone, though this run wrote it when it created the target (its journal lists the files it created): the database at %s cannot be proven the one this run created, and the resume would truncate its areas and load into it; if it is, put the record back; if not, start the migration in a new --work directory",
			manifest.RecordPath(c.Target), c.Target)
	case p.keep && rec == nil:
		// A run begun by an oedl that wrote no record (nor listed the
		// files it created in its journal): the journal proves it created
		// the target; the files are its own unless the source's.
		p.rules.Record = manifest.NewRecord(target, c.Work, entries)
	case (p.keep || p.ownWritten) && rec != nil && filepath.Clean(rec.Work) == filepath.Clean(c.Work):
		// The run's own target, which its utilities have been writing:
		// the control area and the log by name (oesim writes the control
		// area anew, a log may be rotated), every extent
		// by the identity stamped (a hard link or bind mount of another
		// database's extent at its name is not the run's).
		p.rules.Record = rec.ForOwnRun()
	}
	found, err := manifest.Prove(view, entries, p.rules)
	if err != nil {
		var ce *manifest.ConflictError
		if errors.As(err, &ce) {
			ce.Advice = conflictAdvice(ce, c, resumed)
		}
		return nil, pathError(err) // files in the way: exit 3
	}
	if !p.keep && len(found) > 0 && !(resumed && ownRecord(rec, c.Work)) {
		if err := forceLeftAlone(c, rec, view); err != nil {
			return nil, err
		}
	}
	if !p.keep {
		p.replace = found
	}
	return p, nil
}

// ownRecord: the record is the one this run's work directory wrote.
func ownRecord(rec *manifest.Record, work string) bool {
	return rec != nil && filepath.Clean(rec.Work) == filepath.Clean(work)
}

// forceLeftAlone refuses to replace a target that is not exactly as the
// oedl run that made it left it (force-live): a DBA may have gone live on
// it since, and shut it down again, and OpenEdge writes in place, so the
// identities the record proves are unchanged. Only a resume of the run
// that owns the target is spared: its own writes since the last stamp
// (a kill -9 leaves none at the end) are the run's, and it proves the
// files by identity (ForOwnRun).
func forceLeftAlone(c *Config, rec *manifest.Record, view manifest.FS) error {
	if rec == nil {
		return nil
	}
	err := rec.UnchangedSinceLeft(view)
	var nl *manifest.NotLeftError
	if !errors.As(err, &nl) {
		return err
	}
	return precondition("--force replaces a target only while it is exactly as the oedl run that made it left it, and %s is not: %s. It is not oedl's to replace any more (a DBA may have gone live on it: OpenEdge writes a database in place, so its files keep the identities %s names). Check what it is, then remove it yourself (prodel %s, or rm of the files %s names), or choose another --target",
		c.Target, nl.Why, manifest.RecordPath(c.Target), execx.ShellQuote(c.Target), filepath.Base(manifest.RecordPath(c.Target)))
}

// conflictAdvice says what to do about files in the way.
func conflictAdvice(ce *manifest.ConflictError, c *Config, resumed bool) string {
	advice := conflictRemedy(ce, c, resumed)
	if c.Resume && !resumed {
		return fmt.Sprintf("--resume found no journal in %s, so this is a first run, and a first run creates over nothing: %s", c.Work, advice)
	}
	return advice
}

func conflictRemedy(ce *manifest.ConflictError, c *Config, resumed bool) string {
	switch {
	case ce.Source():
		return "the target would be created over the source: give another --target, or a plan whose extent directories (--data-dir, --bi-dir, --ai-dir) do not hold the source's files, or with another database name"
	case resumed:
		return "the run's own files were replaced or moved since it created them; check what is there, then remove the target's files yourself and resume"
	case c.Force:
		return "--force replaces only the files an earlier oedl run made (named, with their inodes, in its record " + filepath.Base(manifest.RecordPath(c.Target)) + "); remove the others yourself, or choose another --target"
	}
	return "choose another --target name or a plan with other extent directories, remove these files yourself, or, if an earlier oedl run made them, give --force"
}

// pathError is a proof that failed: bad input (exit 2) when no filesystem
// could make it hold, a precondition (exit 3) otherwise.
func pathError(err error) error {
	if manifest.IsInput(err) {
		return &UsageError{Err: err}
	}
	var pe *PreconditionError
	if errors.As(err, &pe) {
		return err
	}
	return &PreconditionError{Err: err}
}

// sourceFiles are the files of the source the run must never write: its
// structure read with `prostrct list` into a scratch directory (it works
// online; given no output file it would write DB.st beside the source),
// and every file named like the source's beside them.
// The structure also says where the source grows (r.sourceRoom): the
// room its disks keep is checked with the space (checkSpace).
func (r *runner) sourceFiles(ctx context.Context, view manifest.FS) (*manifest.Files, error) {
	files, st, err := listSourceFiles(ctx, r.cfg, view, r.logWriter())
	if err != nil {
		return nil, err
	}
	if r.sourceRoom, err = room.ForSource(r.cfg.Source, st, r.cfg.SourceHeadroom); err != nil {
		return nil, precondition("%v", err)
	}
	return files, nil
}

// SourceFiles are the files of cfg.Source as the preflight knows them
// (`prostrct list`, read-only, and the files named like them), for
// `oedl plan` to check its extents against.
func SourceFiles(ctx context.Context, cfg Config) (*manifest.Files, error) {
	cfg.fill()
	files, _, err := listSourceFiles(ctx, &cfg, manifest.OS{}, nil)
	return files, err
}

// SourceRoom is where cfg.Source grows while it is served and the room
// its disks keep (room.ForSource, cfg.SourceHeadroom), read with
// `prostrct list` as the preflight reads it: for oedl calibrate.
func SourceRoom(ctx context.Context, cfg Config) (*room.Source, error) {
	cfg.fill()
	_, st, err := listSourceFiles(ctx, &cfg, manifest.OS{}, nil)
	if err != nil {
		return nil, err
	}
	return room.ForSource(cfg.Source, st, cfg.SourceHeadroom)
}

func listSourceFiles(ctx context.Context, c *Config, view manifest.FS, log io.Writer) (*manifest.Files, *openedge.Structure, error) {
	tmp, err := os.MkdirTemp("", "oedl-preflight-")
	if err != nil {
		return nil, nil, precondition("scratch directory: %v", err)
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "source.st")
	res, err := c.Runner.Run(ctx, execx.Cmd{Path: c.bin("prostrct"), Args: []string{"list", c.Source, out},
		Dir: tmp, Env: c.env(), Timeout: time.Minute, Log: log})
	if err != nil {
		return nil, nil, precondition("prostrct list %s (to learn the source's files before anything is written): %v: %s", c.Source, err, lastMessage(res.Output))
	}
	f, err := os.Open(out)
	if err != nil {
		return nil, nil, precondition("prostrct list %s wrote no structure file: %v", c.Source, err)
	}
	defer f.Close()
	st, err := openedge.ParseStructure(f, "prostrct list "+c.Source)
	if err != nil {
		return nil, nil, precondition("the source's structure: %v", err)
	}
	files, err := manifest.ExistingDatabase(view, "source", c.Source, st)
	if err != nil {
		return nil, nil, precondition("the source's files: %v", err)
	}
	return files, st, nil
}

// logWriter is logs/run.log, or nothing for a check outside a run.
func (r *runner) logWriter() io.Writer {
	if r.log == nil {
		return nil
	}
	return r.log
}

// sameDatabase refuses a target that is the source: the same path once
// links are resolved, or the same control area by device and inode.
func (c *Config) sameDatabase(view manifest.FS) error {
	rs, err1 := manifest.Resolve(view, c.Source)
	rt, err2 := manifest.Resolve(view, c.Target)
	if err := errors.Join(err1, err2); err != nil {
		return pathError(err)
	}
	same := rs == rt
	if !same {
		s, errS := view.Lstat(rs + manifest.SuffixControl)
		t, errT := view.Lstat(rt + manifest.SuffixControl)
		if errS == nil && errT == nil {
			is, ok1 := manifest.IDOf(s)
			it, ok2 := manifest.IDOf(t)
			same = ok1 && ok2 && is == it
		}
	}
	if same {
		how := ""
		if c.Source != c.Target {
			how = fmt.Sprintf(" (%s and %s are one database once links are followed)", c.Source, c.Target)
		}
		return &UsageError{Err: fmt.Errorf("--source and --target are the same database%s: the target is created new, from nothing", how)}
	}
	return nil
}

// dirs are the directories the target's files go to, resolved: the
// preflight makes sure each can be written.
func (p *targetProof) dirs() []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range p.entries {
		d := filepath.Dir(e.Resolved)
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// stampTarget records the identities of the target's files as the run
// leaves them (see manifest.Record.Stamp), when the target's record is
// this run's.
func (r *runner) stampTarget() error {
	if r.proof == nil {
		return nil
	}
	path := manifest.RecordPath(r.cfg.Target)
	tf := r.cfg.targetFiles(context.Background())
	rec, err := manifest.ReadRecord(tf.view, path)
	if err != nil || rec == nil || filepath.Clean(rec.Work) != filepath.Clean(r.cfg.Work) {
		return err
	}
	if err := rec.Stamp(tf.view, r.proof.rules.Protected...); err != nil {
		return err
	}
	rec.Leave() // the invocation's last write to the target is behind it
	return tf.write(rec, path)
}

// resumeOntoOthers refuses a resume onto a target another oedl run made
// since this one created its own (safety trial 5): its record names
// another work directory. The DBA started the migration again elsewhere
// (with --force, which replaced this run's target), and now resumes the
// first run. A resume's proof replaces what the record proves oedl made
// (the rebuild of a no-integrity target removes it), and a resume that
// keeps the target truncates its dirty areas and loads into it: either
// would destroy a database this run did not make, perhaps the verified
// one the DBA went live with. Only --force may replace it, as a first
// run's --force may (and only when that run is not live: proveTarget's
// check); keeping it is never right, --force or not.
func resumeOntoOthers(c *Config, rec *manifest.Record, resumed, keep bool) error {
	if !resumed || rec == nil || filepath.Clean(rec.Work) == filepath.Clean(c.Work) || (c.Force && !keep) {
		return nil
	}
	what := "its journal's jobs would run on that database (areas truncated, tables loaded)"
	remedy := "start the migration in a new --work directory"
	if !keep {
		what = "the resume would remove it and create this run's target again"
		remedy = "give --force to replace it, or start the migration in a new --work directory"
	}
	return precondition("the target %s is not this run's any more: its record %s says the oedl run in %s made it, after this run (%s) made its own; %s: %s",
		c.Target, manifest.RecordPath(c.Target), rec.Work, c.Work, what, remedy)
}

// journalWroteRecord: the journal's create-target lists the files it
// created, which the oedl that wrote the target's record does (the two
// came together).
func journalWroteRecord(rp *journal.Replayed) bool {
	j := rp.Jobs[string(schedule.KindCreateTarget)]
	return j != nil && j.Done != nil && len(j.Done.Created) > 0
}
