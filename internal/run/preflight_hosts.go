package run

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/hostfs"
	"github.com/oedl/oedl/internal/manifest"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/room"
	"github.com/oedl/oedl/internal/schedule"
	"github.com/oedl/oedl/internal/units"
)

// preflightHosts is the preflight of a run on several hosts: the checks
// of the one-machine preflight, each made on the host it is about,
// through that host's connection (prepareHosts has already checked that
// each host answers, has the tools oedl's file operations use, a POSIX
// login shell and its DLC). The target's files are proven on the target's
// machine, against the source's files when the source is on that machine
// too (files of different machines cannot be one another).
func (r *runner) preflightHosts(ctx context.Context, resumed bool) (string, error) {
	c := r.cfg
	l := c.hostLayout()
	pf, err := readPlanFiles(c)
	if err != nil {
		return "", err
	}
	if err := c.checkStartupPFOn(ctx); err != nil {
		return "", err
	}
	for _, h := range append([]string{l.Source}, l.Replicas...) {
		hc := c.at(h)
		ok, err := c.existsOn(ctx, h, hc.Source+manifest.SuffixControl)
		if err != nil {
			return "", precondition("host %s: %v", h, err)
		}
		if !ok {
			return "", precondition("host %s: database %s.db not found", h, hc.Source)
		}
	}
	bs := c.Plan.BlockSize
	if bs <= 0 {
		bs = 8192
	}
	tc := c.at(l.Target)
	if ok, err := c.existsOn(ctx, l.Target, path.Join(tc.DLC, fmt.Sprintf("empty%d.db", bs/1024))); err != nil || !ok {
		return "", precondition("host %s: %s/empty%d.db not found: the target's %d-byte blocks need it (%v)", l.Target, tc.DLC, bs/1024, bs, err)
	}
	dbs := []string{schedule.DBSource}
	for _, h := range l.Replicas {
		dbs = append(dbs, schedule.ReplicaDB(h))
	}
	for _, which := range dbs {
		if err := r.checkHolder(ctx, which); err != nil {
			return "", err
		}
	}
	if r.externallyServed[schedule.DBSource] && len(l.Replicas) > 0 {
		return "", precondition("the source is dumped online (--online-source): a replica cannot be proven to hold the data of a source that is still changing; take the replicas out of the hosts file")
	}
	if !r.externallyServed[schedule.DBSource] {
		// Free: the run is about to freeze it (fingerprint.go).
		task, err := r.readSourceTaskOn(ctx)
		if err != nil {
			return "", err
		}
		r.sourceTask = &task
	}
	if err := r.checkSourceSchemaOn(ctx, pf); err != nil {
		return "", err
	}
	srcSt, err := r.sourceStructureOn(ctx)
	if err != nil {
		return "", err
	}
	if r.sourceRoom, err = r.sourceRoomOn(ctx, srcSt); err != nil {
		return "", err
	}
	tm := c.machine(l.Target)
	view := hostfs.NewView(ctx, tm.fs)
	source := &manifest.Files{}
	sameMachine := c.machine(l.Source).dest == tm.dest
	if sameMachine {
		if source, err = manifest.ExistingDatabase(view, "source", c.Source, srcSt); err != nil {
			return "", precondition("the source's files: %v", err)
		}
		if err := c.sameDatabase(view); err != nil {
			return "", err
		}
	}
	if r.proof, err = r.proveTargetOn(view, pf.st, source, resumed); err != nil {
		return "", onHost(l.Target, err)
	}
	if ok, _ := c.existsOn(ctx, l.Target, c.Target+manifest.SuffixControl); ok {
		if err := r.checkHolder(ctx, schedule.DBTarget); err != nil {
			return "", err
		}
	}
	// The space first: a refusal leaves nothing made on any host.
	space, err := r.checkSpaceOn(ctx, pf.st)
	if err != nil {
		return "", err
	}
	for _, d := range r.proof.dirs() {
		if err := tm.fs.MkdirAll(ctx, d); err != nil {
			return "", precondition("host %s: target directory %s: %v", l.Target, d, err)
		}
	}
	onto := fmt.Sprintf("%d target files proven new on %s", len(r.proof.entries)-len(r.proof.replace), l.Target)
	switch {
	case r.proof.keep:
		onto = "the target this run created is kept"
	case len(r.proof.replace) > 0:
		onto += fmt.Sprintf(", %d of an earlier oedl target to replace", len(r.proof.replace))
	}
	hostsLine := fmt.Sprintf("source %s on %s", c.Source, l.Source)
	for _, h := range l.Replicas {
		hostsLine += fmt.Sprintf(", replica %s on %s", c.at(h).Source, h)
	}
	// describe is not compared across hosts (the comparison reads the
	// source and a copy of $DLC/emptyN on this machine): said in the
	// summary and as a warning, so the DBA compares them by hand.
	r.warnings = append(r.warnings, notComparedAcrossHosts)
	r.openEdge = r.openEdgeOnHosts(ctx)
	return fmt.Sprintf("%s; target %s on %s; %s; %s; %s", hostsLine, c.Target, l.Target, onto, space, notComparedAcrossHosts), nil
}

const notComparedAcrossHosts = "describe: the source's codepage and block sizes were NOT compared with the target's on a run across hosts: compare proutil -C describe of the source and of $DLC/emptyN on the target's host by hand (seed 003's \"Watch out!\")"

// onHost names the host an error of the preflight is about, keeping its
// exit status: the target's paths may exist on this machine or on another
// host too, and the DBA must know on which one the files are in the way.
func onHost(host string, err error) error {
	var ue *UsageError
	if errors.As(err, &ue) {
		return &UsageError{Err: fmt.Errorf("host %s: %w", host, ue.Err)}
	}
	var pe *PreconditionError
	if errors.As(err, &pe) {
		return &PreconditionError{Err: fmt.Errorf("host %s: %w", host, pe.Err)}
	}
	return fmt.Errorf("host %s: %w", host, err)
}

// existsOn reports whether a file exists on a host.
func (c *Config) existsOn(ctx context.Context, host, p string) (bool, error) {
	got, err := c.machine(host).fs.Lstat(ctx, p)
	if err != nil {
		return false, err
	}
	_, ok := got[p]
	return ok, nil
}

// proveTargetOn is proveTarget through a host's view, with the target's
// record read there.
func (r *runner) proveTargetOn(view *hostfs.View, st *openedge.Structure, source *manifest.Files, resumed bool) (*targetProof, error) {
	entries := append([]string{r.cfg.Target, manifest.RecordPath(r.cfg.Target)}, r.cfg.Target+manifest.SuffixControl)
	for _, a := range st.Areas {
		for _, x := range a.Extents {
			if strings.HasPrefix(x.Path, "/") {
				entries = append(entries, x.Path)
			}
		}
	}
	_ = view.Prefetch(entries...)
	return r.proveTarget(view, st, source, resumed)
}

// sourceStructureOn is the source's structure, listed on its host
// (prostrct list into a scratch file of the host's work directory, read
// back and removed): its files, which the target must not be, and where
// it grows (sourceRoomOn).
func (r *runner) sourceStructureOn(ctx context.Context) (*openedge.Structure, error) {
	c := r.cfg
	l := c.hostLayout()
	out, err := r.scratchOutput(ctx, l.Source, "source.st", func(hc *Config, file string) []string {
		return []string{hc.bin("prostrct"), "list", hc.Source, file}
	})
	if err != nil {
		return nil, precondition("prostrct list %s on %s (to learn the source's files before anything is written): %v", c.Source, l.Source, err)
	}
	st, err := openedge.ParseStructure(strings.NewReader(string(out)), "prostrct list "+c.Source)
	if err != nil {
		return nil, precondition("the source's structure: %v", err)
	}
	return st, nil
}

// sourceRoomOn is where the source grows on its host and the room its
// disks keep (room.ForSourceOn, --source-headroom): the same rule as on
// one machine, its files' sizes read there and their filesystems named
// by df there (fsOn), as checkSpaceOn names those it writes on.
func (r *runner) sourceRoomOn(ctx context.Context, st *openedge.Structure) (*room.Source, error) {
	c := r.cfg
	h := c.hostLayout().Source
	m := c.machine(h)
	var size int64
	if c.SourceHeadroom == 0 {
		infos, err := m.fs.Lstat(ctx, room.Files(c.Source, st)...)
		if err != nil {
			return nil, precondition("host %s: the size of the source's files: %v", h, err)
		}
		for _, fi := range infos {
			if fi.Mode.IsRegular() {
				size += fi.Size
			}
		}
	}
	s, err := room.ForSourceOn(c.Source, st, c.SourceHeadroom, size, func(dir string) (room.FS, error) {
		fs, _, err := fsOn(ctx, m, dir)
		return fs, err
	})
	if err != nil {
		return nil, precondition("host %s: where the source grows: %v", h, err)
	}
	return s, nil
}

// checkSourceSchemaOn is checkSourceSchema with dump_df.p run on the
// source's host.
func (r *runner) checkSourceSchemaOn(ctx context.Context, pf *planFiles) error {
	c := r.cfg
	l := c.hostLayout()
	data, err := r.scratchOutput(ctx, l.Source, SourceDF, func(hc *Config, file string) []string {
		argv := []string{hc.bin("_progres"), "-b", "-db", hc.Source}
		if !r.externallyServed[schedule.DBSource] {
			argv = append(argv, "-1")
		}
		return append(argv, "-p", "prodict/dump_df.p", "-param", "ALL,"+file)
	})
	if err != nil {
		return precondition("dump the source's definitions on %s (to check the plan was made from it): %v", l.Source, err)
	}
	src, err := openedge.ParseDF(strings.NewReader(string(data)), c.Source+" (dump_df.p on "+l.Source+")")
	if err != nil {
		return precondition("the source's definitions: %v", err)
	}
	if err := plan.CheckSource(c.Plan, pf.df, src, c.Source); err != nil {
		return &UsageError{Err: err}
	}
	return nil
}

// scratchOutput runs argv (built for the host, writing the file it is
// given) in a scratch directory of the host's work directory and returns
// what the file holds; the scratch directory is removed.
func (r *runner) scratchOutput(ctx context.Context, host, name string, argv func(hc *Config, file string) []string) ([]byte, error) {
	hc, m := r.cfg.at(host), r.cfg.machine(host)
	dir := path.Join(m.work, ".oedl-preflight-"+strconv.Itoa(time.Now().Nanosecond()))
	if err := m.fs.MkdirAll(ctx, dir); err != nil {
		return nil, err
	}
	defer func() { _ = m.fs.RemoveAll(context.WithoutCancel(ctx), dir) }()
	file := path.Join(dir, name)
	a := argv(hc, file)
	res, err := m.runner.Run(ctx, execx.Cmd{Path: a[0], Args: a[1:], Dir: dir, Env: hc.env(), Timeout: 5 * time.Minute, Log: r.logWriter()})
	if err != nil {
		return nil, fmt.Errorf("%s: %v: %s", execx.Quote(a), err, lastMessage(res.Output))
	}
	return m.fs.ReadFile(ctx, file)
}

// checkSpaceOn compares, per host and filesystem (df -Pk), what the run
// will write with the space free: on each host holding the data, the
// dumps that may run there (all of them, at worst); on the target's, the
// dumps moved there, the idxbuild sort files (75% of data and indexes,
// per the idxbuild docs) and the target itself where target.st puts its
// extents, its fixed extents at full size (targetNeeds, as on one
// machine: counting only the tables' bytes in the .db's directory passed
// a new server too small for the fixed extents, which then failed in the
// window).
func (r *runner) checkSpaceOn(ctx context.Context, st *openedge.Structure) (string, error) {
	c := r.cfg
	l := c.hostLayout()
	p := c.Plan
	data, index, lobs := planSizes(p)
	type need struct {
		host, dir   string
		free, bytes int64 // free: df's, read once per filesystem
		what        []string
	}
	var order []room.FS
	byFS := map[room.FS]*need{}
	add := func(host, dir string, n int64, what string) error {
		key, free, err := fsOn(ctx, c.machine(host), dir)
		if err != nil {
			return precondition("host %s: %v", host, err)
		}
		if byFS[key] == nil {
			byFS[key] = &need{host: host, dir: dir, free: free}
			order = append(order, key)
		}
		byFS[key].bytes += n
		byFS[key].what = append(byFS[key].what, fmt.Sprintf("%s %s", what, openedge.FormatSize(n)))
		return nil
	}
	// Each host holding the data may run any dump (at worst all of them)
	// but those a resume proves done, which take their room already.
	dumps := r.dumpsToWrite(data + lobs)
	for _, h := range append([]string{l.Source}, l.Replicas...) {
		if err := add(h, c.machine(h).work, dumps, "dumps on "+h); err != nil {
			return "", err
		}
	}
	tm := c.machine(l.Target)
	if err := add(l.Target, tm.work, data+lobs, "dumps moved to "+l.Target); err != nil {
		return "", err
	}
	if err := add(l.Target, tm.work, (data+index)*3/4, "sort files"); err != nil {
		return "", err
	}
	for _, n := range r.targetNeeds(st, r.resumeKeepsTarget, path.Clean) {
		if err := add(l.Target, n.dir, n.bytes, "target in "+n.dir); err != nil {
			return "", err
		}
	}
	var parts []string
	for _, k := range order {
		n := byFS[k]
		if n.free < n.bytes {
			return "", precondition("host %s: not enough disk space on the filesystem of %s: %s free, %s needed (%s)",
				n.host, n.dir, openedge.FormatSize(n.free), openedge.FormatSize(n.bytes), strings.Join(n.what, " + "))
		}
		// Where the source grows on its machine (a host of the source's
		// ssh destination: the source's own, or a target or replica on
		// the same machine), the room it keeps (room.Source).
		if err := r.sourceRoom.Check(k, n.free, room.Take{Dir: n.dir, Bytes: n.bytes, What: n.what}); err != nil {
			return "", &PreconditionError{Err: fmt.Errorf("host %s: %w", n.host, err)}
		}
		part := fmt.Sprintf("%s: %s free for %s", n.host, openedge.FormatSize(n.free), openedge.FormatSize(n.bytes))
		if r.sourceRoom.Grows(k) {
			part += fmt.Sprintf(", %s kept for the source to grow", units.FormatIEC(r.sourceRoom.Headroom))
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, "; "), nil
}

// fsOn is the filesystem of a directory on a host (of its nearest
// existing parent; named by the machine's ssh destination and df's
// mount point, so that hosts of one machine share it) and its free bytes.
func fsOn(ctx context.Context, m *machine, dir string) (room.FS, int64, error) {
	mount, free, err := dfOn(ctx, m, dir)
	if err != nil {
		return "", 0, fmt.Errorf("cannot read the free space of %s: %v", dir, err)
	}
	return room.FS(m.dest + "\x00" + mount), free, nil
}

// dfOn is the filesystem a directory is on (the nearest existing parent)
// and its free bytes, from POSIX df -P -k.
func dfOn(ctx context.Context, m *machine, dir string) (string, int64, error) {
	var out strings.Builder
	script := `d="$1"; while [ ! -e "$d" ] && [ "$d" != / ]; do d=$(dirname -- "$d"); done; exec df -P -k -- "$d"`
	res, err := m.runner.Run(ctx, execx.Cmd{Path: "sh", Args: []string{"-c", script, "sh", dir}, Stdout: &out, Timeout: time.Minute})
	if err != nil {
		return "", 0, fmt.Errorf("%v: %s", err, strings.TrimSpace(res.Output))
	}
	return parseDF(out.String())
}

// parseDF reads the second line of df -P -k: filesystem, 1024-blocks,
// used, available, capacity, mounted on.
func parseDF(s string) (string, int64, error) {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) < 2 {
		return "", 0, fmt.Errorf("df said %q", s)
	}
	f := strings.Fields(lines[len(lines)-1])
	if len(f) < 6 {
		return "", 0, fmt.Errorf("df said %q", s)
	}
	avail, err := strconv.ParseInt(f[3], 10, 64)
	if err != nil {
		return "", 0, fmt.Errorf("df said %q", s)
	}
	return f[len(f)-1], avail * 1024, nil
}

// servedReplica accepts a replica someone else serves: a replication
// target runs under its own broker. It is only read, once proven to hold
// the frozen source's data; the dumps go through that broker (which needs
// --dump-jobs 2 or more: with one dump job oedl opens a database
// single-user).
func (r *runner) servedReplica(which, db string) error {
	if !r.cfg.served(which) {
		return precondition("the replica %s is served (276) by a broker oedl did not start: its dumps would go through that broker, which needs --dump-jobs 2 or more", db)
	}
	r.externallyServed[which] = true
	return nil
}

// databases are every database of the run, as Job.DB names them: the
// target, the source, each replica.
func (c *Config) databases() []string {
	out := []string{schedule.DBTarget, schedule.DBSource}
	if l := c.hostLayout(); l != nil {
		for _, h := range l.Replicas {
			out = append(out, schedule.ReplicaDB(h))
		}
	}
	return out
}

// targetExists reports whether the target's control area is there, on
// its host.
func (c *Config) targetExists(ctx context.Context) bool {
	if c.fleet == nil {
		return exists(c.Target + manifest.SuffixControl)
	}
	ok, _ := c.existsOn(ctx, c.hostLayout().Target, c.Target+manifest.SuffixControl)
	return ok
}
