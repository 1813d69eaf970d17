package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/manifest"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/room"
	"github.com/oedl/oedl/internal/schedule"
	"github.com/oedl/oedl/internal/units"
	"github.com/oedl/oedl/internal/verify"
)

// UsageError is bad input found before anything ran (exit 2): a plan
// directory that disagrees with itself or with the source, a source that
// is the target.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// PreconditionError is something outside oedl that must change before the
// run can start (exit 3): DLC missing, database in use, no disk space.
type PreconditionError struct{ Err error }

func (e *PreconditionError) Error() string { return e.Err.Error() }
func (e *PreconditionError) Unwrap() error { return e.Err }

func precondition(format string, a ...any) error {
	return &PreconditionError{Err: fmt.Errorf(format, a...)}
}

// utilitiesNeeded are the $DLC/bin programs every run calls.
var utilitiesNeeded = []string{"proutil", "prostrct", "procopy", "proserve", "proshut", "_progres"}

// preflight checks everything that can be checked before the first
// utility changes anything, and says precisely what is wrong: the plan
// directory holds together (exit 2), the source is not the target (exit
// 2), nobody else holds the source, the plan was made from it (exit 2),
// and no file the target will have exists unless a record proves an
// earlier oedl run made it (exit 3, naming every file). It returns a
// one-line summary for the journal.
func (r *runner) preflight(ctx context.Context, resumed bool) (string, error) {
	c := r.cfg
	if err := r.checkDLC(utilitiesNeeded); err != nil {
		return "", err
	}
	if !exists(c.Source + ".db") {
		return "", precondition("source database %s.db not found", c.Source)
	}
	// The empty database's description (a copy of it, then describe)
	// depends on nothing below: it runs beside the source's checks.
	empty := r.describeEmpty(ctx, c.emptyDB())
	defer empty()
	pf, err := readPlanFiles(c)
	if err != nil {
		return "", err
	}
	view := manifest.OS{}
	if err := c.sameDatabase(view); err != nil {
		return "", err
	}
	// A prepared target's proof runs beside the source's checks; every
	// return waits for it, so that no call outlives the preflight.
	prepared := r.provePreparedBeside(ctx, pf.st)
	if prepared != nil {
		defer func() { _, _ = prepared() }()
	}
	scratch, err := os.MkdirTemp("", "oedl-preflight-")
	if err != nil {
		return "", precondition("scratch directory: %v", err)
	}
	defer os.RemoveAll(scratch)
	if err := r.checkSourceFree(ctx, scratch); err != nil {
		return "", err
	}
	source, err := r.sourceFiles(ctx, view)
	if err != nil {
		return "", err
	}
	// A target to create is proven now, and prostrct validates its
	// structure beside the source's last two checks (validateBeside).
	// A preparation is proven first (keepPrepared): its target is proven
	// after the source's checks, as before.
	var space string
	var validated validation
	if r.prepared == nil {
		if space, err = r.proveTargetFiles(ctx, view, pf.st, source, resumed); err != nil {
			return "", err
		}
		validated = r.validateBeside(ctx)
		defer func() { _, _ = validated("") }()
	}
	if err := r.checkSourceSchema(ctx, pf); err != nil {
		return "", err
	}
	if r.described, err = r.compareDescribed(ctx, c.emptyDB(), empty); err != nil {
		return "", err
	}
	r.warnings = append(r.warnings, r.described.warnings...)
	dropped, err := r.keepPrepared(ctx, pf.st, prepared)
	if err != nil {
		return "", err
	}
	if dropped != "" {
		r.warnings = append(r.warnings, fmt.Sprintf("--force: the target oedl prepare made is not provably as it left it (%s): it is created again", dropped))
	}
	if validated == nil {
		if space, err = r.proveTargetFiles(ctx, view, pf.st, source, resumed); err != nil {
			return "", err
		}
		validated = r.validateBeside(ctx)
	}
	if space, err = validated(space); err != nil {
		return "", err
	}
	onto := r.targetSummary("run")
	if r.prepared != nil {
		onto = fmt.Sprintf("the target oedl prepare made at %s is kept: its %d files are the ones it made, its tables as empty as it left them",
			r.prepared.at.Local().Format("2006-01-02 15:04:05"), len(r.proof.entries))
	}
	use := "not in use"
	if r.externallyServed[schedule.DBSource] {
		use = "ONLINE from a broker oedl did not start (--online-source)"
	}
	summary := fmt.Sprintf("DLC %s; source %s %s (%d files); %s; %s", c.DLC, c.Source, use, source.Len(), onto, space)
	return summary + "; " + r.described.summary(), nil
}

// keepPrepared proves a preparation found in the work directory untouched
// (provePrepared). One that is not is refused, or under --force dropped
// (its target created again): dropped then says why.
func (r *runner) keepPrepared(ctx context.Context, st *openedge.Structure, beside preparedProof) (dropped string, err error) {
	if r.prepared == nil {
		return "", nil
	}
	decided := false
	if beside != nil {
		decided, err = beside()
	}
	if !decided {
		err = r.provePrepared(ctx, r.prepared, st)
	}
	if err != nil {
		var nu *NotUntouchedError
		if !r.cfg.Force || !errors.As(err, &nu) {
			return "", err
		}
		r.prepared, r.resumeKeepsTarget = nil, false
		return strings.Join(nu.Why, "; "), nil
	}
	return "", nil
}

// proveTargetFiles proves every file the target will have (proveTarget),
// the target free of other users when it exists, its directories
// writable, and room for the work; it returns the space found.
func (r *runner) proveTargetFiles(ctx context.Context, view manifest.FS, st *openedge.Structure, source *manifest.Files, resumed bool) (string, error) {
	var err error
	if r.proof, err = r.proveTarget(view, st, source, resumed); err != nil {
		return "", err
	}
	// The target's lock, once the proof says its files may be written
	// (never beside the source, never over a prepared target that is
	// refused), and before anything is written there (targetlock.go).
	if err := r.lockTarget(); err != nil {
		return "", err
	}
	// A kept preparation's proof has just checked the target's holder.
	if exists(r.cfg.Target+manifest.SuffixControl) && r.prepared == nil {
		if err := r.checkHolder(ctx, schedule.DBTarget); err != nil {
			return "", err
		}
	}
	if err := r.checkUnstampedEmpty(ctx); err != nil {
		return "", err
	}
	for _, d := range r.proof.dirs() {
		if err := writable(d); err != nil {
			return "", precondition("target directory %s is not writable: %v", d, err)
		}
	}
	return r.checkSpace(st)
}

// targetSummary says what the proof found of the target: new files, the
// one this run (or preparation) created kept, or an earlier oedl target
// to replace.
func (r *runner) targetSummary(creator string) string {
	onto := fmt.Sprintf("%d target files proven new", len(r.proof.entries)-len(r.proof.replace))
	switch {
	case r.proof.keep:
		onto = "the target this " + creator + " created is kept"
	case len(r.proof.replace) > 0:
		onto += fmt.Sprintf(", %d of an earlier oedl target to replace", len(r.proof.replace))
	}
	return onto
}

// checkDLC finds $DLC, the utilities named and the empty database the
// target is a copy of.
func (r *runner) checkDLC(utilities []string) error {
	c := r.cfg
	if c.DLC == "" {
		return precondition("DLC is not set: give --dlc or set $DLC to the OpenEdge (or oesim) install")
	}
	if st, err := os.Stat(c.DLC); err != nil || !st.IsDir() {
		return precondition("DLC %s is not a directory", c.DLC)
	}
	for _, u := range utilities {
		if p := c.bin(u); !executable(p) {
			return precondition("%s not found or not executable: is DLC (%s) an OpenEdge install?", p, c.DLC)
		}
	}
	if empty := c.emptyDB() + ".db"; !exists(empty) {
		return precondition("%s not found: the target is a copy of it, of the plan's block size", empty)
	}
	if slices.Contains(utilities, "_progres") {
		return c.checkStartupPF()
	}
	return nil
}

// checkStartupPF refuses a startup parameter file that connects a database
// (openedge.NoStartupDatabase), exit 3: the machine's set-up, not the
// command line, is to change. The file checked is the one every utility
// is handed (Config.startupPF). Without $DLC here (a dry run for another
// machine) there is nothing to read.
func (c *Config) checkStartupPF() error {
	if c.DLC == "" {
		return nil
	}
	if err := openedge.NoStartupDatabase(c.startupPF, c.DLC, os.ReadFile); err != nil {
		return precondition("%v", err)
	}
	return nil
}

// checkSourceFree proves nobody else holds the source and, unless the DBA
// serves it (--online-source), reads its last transaction id (the run is
// about to freeze it, fingerprint.go) and dumps its .df into dir for
// checkSourceSchema, in one single-user session (dump_lasttask_df.p).
// That session goes first: OpenEdge refuses a single-user (-1) session
// on a database anyone holds ((276) a broker, (263) a single-user
// utility) and grants it only alone, so one that succeeds has proven the
// source free, as the holder's answer did. proutil -C holder is asked
// only when it fails, and its answer is handled as before (a killed
// run's broker shut down, a single-user holder waited for on a resume,
// the DBA's broker taken as --online-source's); then the session runs
// again. A free source so costs one call where it cost three (the
// holder, dump_lasttask.p, dump_df.p), on the window's first steps: the
// serve and every dump wait for the preflight.
func (r *runner) checkSourceFree(ctx context.Context, dir string) error {
	if err := r.refuseLeftLock(ctx); err != nil {
		return err
	}
	task, err := r.readSourceTaskAndDF(ctx, dir)
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		if err := r.checkHolder(ctx, schedule.DBSource); err != nil {
			return err
		}
		if r.externallyServed[schedule.DBSource] {
			return nil
		}
		if task, err = r.readSourceTaskAndDF(ctx, dir); err != nil {
			return err
		}
	}
	r.sourceTask, r.sourceDF = &task, filepath.Join(dir, SourceDF)
	return nil
}

// checkHolder makes sure nobody but us holds a database. A broker the
// journal says we started (a killed run's) is shut down; a single-user
// holder left by a killed run's utility is waited for (it finishes or dies
// on its own; its work is repaired or redone from the journal).
func (r *runner) checkHolder(ctx context.Context, which string) error {
	c := r.cfg
	db := c.db(which)
	deadline := time.Now().Add(c.WaitFree)
	for {
		h, out, err := r.holder(ctx, which)
		if err != nil {
			return err
		}
		switch h {
		case holderFree:
			return nil
		case holderMulti:
			ours, err := r.killedRunServes(ctx, which)
			if err != nil {
				return err
			}
			if ours {
				if err := r.call(ctx, c.shutdownStep(which)); err != nil {
					return fmt.Errorf("shut down the broker a killed run left on %s: %w", db, err)
				}
				r.servedByUs[which] = false
				continue
			}
			if err := c.notOursServes(ctx, which, r.logWriter()); err != nil {
				return err
			}
			if which == schedule.DBSource {
				return r.servedSource(db)
			}
			if which != schedule.DBTarget {
				return r.servedReplica(which, db)
			}
			return precondition("%s is in use in multi-user mode (276), served by a broker oedl did not start: shut it down (proshut %s -by) first", db, execx.ShellQuote(db))
		case holderSingle:
			if !c.Resume || time.Now().After(deadline) {
				hint := ""
				if len(r.unfinished) > 0 {
					hint = fmt.Sprintf("; the killed run left %s unfinished: its utility may still be running (see WORK/logs/); let it end or stop it, then resume again",
						strings.Join(r.unfinished, ", "))
				}
				return precondition("%s%s", singleUserRefusal(db, out), hint)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(250 * time.Millisecond):
			}
		}
	}
}

// singleUserRefusal says that db is in use single-user: the utility's
// own (263) line when it printed one (it names the database, in the
// language of its message file), else oedl's words and its last message.
func singleUserRefusal(db, out string) string {
	if m, ok := openedge.FindMessage(out, openedge.MsgInUseSingle); ok {
		return m.String()
	}
	return fmt.Sprintf("%s is in use in single-user mode (263)%s", db, holderText(out))
}

func holderText(out string) string {
	msgs := openedge.ScanMessages(out)
	if len(msgs) == 0 {
		return ""
	}
	return ": " + msgs[len(msgs)-1].String()
}

func (r *runner) holder(ctx context.Context, which string) (int, string, error) {
	return r.holderTo(ctx, which, r.logWriter())
}

// holderTo is holder logging its call to log.
func (r *runner) holderTo(ctx context.Context, which string, log io.Writer) (int, string, error) {
	c := r.cfg.atDB(which)
	db, m := c.db(which), r.cfg.machine(c.host)
	res, err := m.runner.Run(ctx, execx.Cmd{Path: c.bin("proutil"), Args: []string{db, "-C", "holder"},
		Dir: m.work, Env: c.env(), Timeout: time.Minute, Log: log})
	if err != nil && !errors.Is(err, execx.ErrExit) {
		return -1, res.Output, fmt.Errorf("proutil %s -C holder: %w", db, err)
	}
	switch res.ExitCode {
	case holderFree, holderSingle, holderMulti:
		return res.ExitCode, res.Output, nil
	}
	return -1, res.Output, precondition("proutil %s -C holder failed with exit code %d: %s", db, res.ExitCode, lastMessage(res.Output))
}

// call runs one step outside the graph (preflight, cleanup).
func (r *runner) call(ctx context.Context, s step) error {
	_, err := r.callOutput(ctx, s)
	return err
}

// callOutput is call, with what the utility printed: a caller decides
// from its message numbers.
func (r *runner) callOutput(ctx context.Context, s step) (string, error) {
	m := r.cfg.machine(s.host)
	dir := s.dir
	if dir == "" {
		dir = m.work
	}
	res, err := m.runner.Run(ctx, execx.Cmd{Path: s.argv[0], Args: s.argv[1:], Dir: dir, Stdin: s.stdin, Env: r.cfg.at(s.host).env(),
		Timeout: 5 * time.Minute, Log: r.logWriter()})
	if err != nil {
		return res.Output, fmt.Errorf("%s: %w: %s", execx.Quote(s.argv), err, lastMessage(res.Output))
	}
	return res.Output, nil
}

func writable(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".oedl-write-test-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// checkSpace estimates what the run writes and compares it with the free
// space of each filesystem: the dumps (about the data size) and the sort
// files of idxbuild (up to 75% of the database, per the idxbuild docs) in
// the work directory; the target's data and indexes in its directories.
// Two of them on one filesystem add up. On a resume, the dumps the
// journal proves are on disk already are not needed again, and the files
// of an earlier target the run removes first are room (replacedSpace).
// st is the target's structure (targetNeeds); nil: all of the target in
// its .db's directory.
func (r *runner) checkSpace(st *openedge.Structure) (string, error) {
	p := r.cfg.Plan
	data, index, lobs := planSizes(p)
	dumps := r.dumpsToWrite(data + lobs)
	type need struct {
		dir         string
		free, bytes int64 // free: room.Of's, read once per filesystem
		what        []string
	}
	byFS := map[room.FS]*need{}
	var order []room.FS
	add := func(dir string, n int64, what string) error {
		key, free, err := room.Of(dir)
		if err != nil {
			return precondition("%v", err)
		}
		if byFS[key] == nil {
			byFS[key] = &need{dir: dir, free: free}
			order = append(order, key)
		}
		byFS[key].bytes += n
		byFS[key].what = append(byFS[key].what, fmt.Sprintf("%s %s", what, units.FormatIEC(n)))
		return nil
	}
	if !r.prepareOnly { // the preparation writes the target alone
		if err := add(r.cfg.Work, dumps, "dumps"); err != nil {
			return "", err
		}
		if err := add(r.cfg.Work, (data+index)*3/4, "sort files"); err != nil {
			return "", err
		}
	}
	if st == nil {
		if err := add(filepath.Dir(r.cfg.Target), data+index+lobs, "target"); err != nil {
			return "", err
		}
	} else {
		// A target kept (prepared, or resumed) has its fixed extents
		// already: only what grows past them counts, in its areas' own
		// directories as for a new one.
		for _, n := range r.targetNeeds(st, r.resumeKeepsTarget, existingParent) {
			if err := add(n.dir, n.bytes, "target in "+n.dir); err != nil {
				return "", err
			}
		}
	}
	freed, err := r.replacedSpace()
	if err != nil {
		return "", err
	}
	var parts []string
	for _, k := range order {
		n := byFS[k]
		free := n.free + freed[k]
		freeText := units.FormatIEC(free)
		if freed[k] > 0 {
			freeText += fmt.Sprintf(" (%s of it held by the earlier target's files this run replaces)", units.FormatIEC(freed[k]))
		}
		if free < n.bytes {
			return "", precondition("not enough disk space on the filesystem of %s: %s free, %s needed (%s)",
				n.dir, freeText, units.FormatIEC(n.bytes), strings.Join(n.what, " + "))
		}
		// Where the source grows, the room it keeps (room.Source).
		if err := r.sourceRoom.Check(k, free, room.Take{Dir: n.dir, Bytes: n.bytes, What: n.what}); err != nil {
			return "", &PreconditionError{Err: err}
		}
		part := fmt.Sprintf("%s free for %s (%s)", freeText, units.FormatIEC(n.bytes), strings.Join(n.what, " + "))
		if r.sourceRoom.Grows(k) {
			part += fmt.Sprintf(", %s kept for the source to grow", units.FormatIEC(r.sourceRoom.Headroom))
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, "; "), nil
}

// dumpsToWrite is what the dumps still to run write, of all (the plan's
// dump bytes): on a resume, the dumps the journal proves are on disk
// already take their room there now, and are not needed again.
func (r *runner) dumpsToWrite(all int64) int64 {
	if r.dumpProven == nil {
		return all
	}
	for _, t := range r.cfg.Plan.Tables {
		if r.dumpProven(t.Table) {
			all -= t.DumpBytes()
		}
	}
	return max(0, all)
}

// fsOf identifies the filesystem of dir (of its nearest existing parent).
func fsOf(dir string) (room.FS, error) {
	fs, _, err := room.Of(dir)
	if err != nil {
		return "", precondition("%v", err)
	}
	return fs, nil
}

// existingParent is room.ExistingParent: where a directory not made yet
// takes its room from.
var existingParent = room.ExistingParent

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// preflightJob is the graph's preflight: the checks ran before the graph
// started (so that exit 3 comes before anything changes); the job journals
// what they found.
func (e *Executor) preflightJob() (journal.Record, error) {
	return journal.Record{Message: e.preflightSummary, SourceTask: e.sourceTask}, nil
}

// planSizes is what the plan moves: its tables' record bytes (data), their
// indexes' and their LOBs' (which a binary dump writes into the .bd files
// with the records: the dumps hold data+lobs, the target data+index+lobs,
// and idxbuild sorts keys of data only). A plan without totals (written by
// hand) is summed from its tables.
func planSizes(p *plan.Plan) (data, index, lobs int64) {
	data, index = p.Totals.Bytes, p.Totals.IndexBytes
	for _, t := range p.Tables {
		if p.Totals.Bytes == 0 {
			data += t.Bytes
			index += t.IndexBytes
		}
		lobs += t.LOBBytes
	}
	return data, index, lobs
}

// checkUnstampedEmpty refuses to replace the files of a target whose
// record stamped none when the database there holds records. Such a record
// is a create-target stopped between the record's first write and its
// stamp (prostrct create formatting the extents, procopy, load_df.p), and
// it proves the files by their names alone, so whatever was made at those
// names since passed (safety trial 6: the DBA built his own database there
// and loaded it; oedl prepare, given again, removed it). A target whose
// create-target never finished holds no record: the loads come after it.
// One that cannot be read is taken for the half-made target it may be. A
// record with any identity is past its stamp, and proves those (the run's
// own record read for a rebuild drops the control area's and the log's,
// manifest.Record.ForOwnRun, and its target holds the run's loads).
func (r *runner) checkUnstampedEmpty(ctx context.Context) error {
	rec := r.proof.rules.Record
	if r.proof.keep || rec == nil || rec.Stamped() || len(r.proof.replace) == 0 || !exists(r.cfg.Target+manifest.SuffixControl) {
		return nil
	}
	a, err := r.targetAnalysis(ctx, r.logWriter())
	if err != nil {
		return nil // no database to read: what a stopped prostrct create leaves
	}
	var loaded []string
	for _, t := range verify.NewSide(a, "target").Tables {
		if t.Records > 0 {
			loaded = append(loaded, fmt.Sprintf("%s (%d records)", t.Table, t.Records))
		}
	}
	if len(loaded) == 0 {
		return nil
	}
	return precondition("the target %s holds records: %s; its record %s names its files but stamped none (oedl was stopped while it created the target), so it proves them by name alone, and a target oedl never finished creating holds no record: this database was made there since, and oedl does not remove it; if it is not needed, remove its files yourself, or choose another --target",
		r.cfg.Target, strings.Join(loaded, ", "), manifest.RecordPath(r.cfg.Target))
}
