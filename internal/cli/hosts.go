package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/hostfs"
	"github.com/oedl/oedl/internal/hosts"
	"github.com/oedl/oedl/internal/report"
	"github.com/oedl/oedl/internal/units"
)

// readHosts reads --hosts (nil without one). A hosts file names the
// databases: --source and --target beside it would be a second answer to
// the same question, so they are refused rather than silently ranked.
func readHosts(path, source, target string) (*hosts.File, error) {
	if path == "" {
		return nil, nil
	}
	if source != "" || target != "" {
		return nil, UsageError("--hosts names the source and the target (%s): leave out --source and --target", path)
	}
	f, err := hosts.Read(path)
	if err != nil {
		return nil, UsageError("--hosts: %v", err)
	}
	return f, nil
}

// writeHostRows is status's picture of each host: what finished, failed
// and moved where, from the journal (status reaches no host: it only
// reads the work directory).
func writeHostRows(w io.Writer, rows []report.HostRow, killed bool) {
	for _, h := range rows {
		who := h.Name
		if h.Role != "" {
			who += fmt.Sprintf(" (%s, %s)", h.Role, h.SSH)
		}
		fmt.Fprintf(w, "host %s: %d job(s) ended, %d failed; %d dump(s) %s, %d move(s) %s to the target, %d load(s)\n", who, h.Jobs, h.Failed,
			h.Dumps, units.FormatIEC(h.DumpBytes), h.Moves, units.FormatIEC(h.MovedBytes), h.Loads)
	}
	if killed && len(rows) > 0 {
		fmt.Fprintln(w, "the killed run's utilities on remote hosts are stopped by oedl run --resume before anything is repaired")
	}
}

// planSource is where `oedl plan` reads the source: this machine, or the
// source host of --hosts over its ssh connection.
type planSource struct {
	runner  execx.Runner
	fs      hostfs.FS
	dlc, db string
	env     []string
	scratch string // a directory there for dump_df.p's output
	where   string // "host NAME: " in messages, "" here
	close   func()
}

// absPaths makes db and dlc absolute ("" stays ""), for utilities run in
// another directory than the current one.
func absPaths(db, dlc string) (string, string, error) {
	out := []string{db, dlc}
	for i, p := range out {
		if p == "" {
			continue
		}
		a, err := filepath.Abs(p)
		if err != nil {
			return "", "", err
		}
		out[i] = a
	}
	return out[0], out[1], nil
}

func (opts *PlanOptions) planSource() (*planSource, error) {
	if opts.hosts == nil {
		l := &hostfs.Local{}
		l.Own(os.TempDir())
		// The utilities run in a scratch directory: a relative --source
		// (or $DLC) would be looked for there, not where the DBA typed it.
		db, dlc, err := absPaths(opts.Source, opts.DLC)
		if err != nil {
			return nil, PreconditionError(err)
		}
		return &planSource{runner: opts.Runner, fs: l, dlc: dlc, db: db, scratch: os.TempDir(), close: func() {}}, nil
	}
	h := opts.hosts.Source()
	ps := &planSource{dlc: h.DLC, db: h.DB, env: h.Env, where: "host " + h.Name + ": ", close: func() {}}
	if ps.dlc == "" {
		ps.dlc = opts.DLC
	}
	if h.Local() {
		l := &hostfs.Local{}
		l.Own(os.TempDir())
		ps.runner, ps.fs, ps.scratch = opts.Runner, l, os.TempDir()
		var err error
		if ps.db, ps.dlc, err = absPaths(ps.db, ps.dlc); err != nil {
			return nil, PreconditionError(err)
		}
		return ps, nil
	}
	o := opts.hosts.SSH
	ssh := execx.NewSSH(h.SSH, execx.SSHOptions{Config: o.Config, AliveInterval: o.AliveInterval, AliveCount: o.AliveCount, ConnectTimeout: o.ConnectTimeout})
	r := &hostfs.Remote{Name: h.Name, R: ssh}
	r.Own(h.Work)
	ps.runner, ps.fs, ps.scratch = ssh, r, h.Work
	ps.close = func() { _ = ssh.Close() }
	return ps, nil
}
