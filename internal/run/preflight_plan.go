package run

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/schedule"
)

// planFiles are the files of the plan directory the run hands to the
// utilities, parsed: target.st for prostrct create, target.df for
// load_df.p.
type planFiles struct {
	st *openedge.Structure
	df *openedge.DF
}

// readPlanFiles reads target.st and target.df and holds them together with
// plan.json (plan.ReadTarget, which estimate and calibrate use too): a
// plan that disagrees with itself fails here, naming file and line (exit
// 2), not in create-target after the dumps.
func readPlanFiles(c *Config) (*planFiles, error) {
	t, err := plan.ReadTarget(c.PlanDir, c.Plan, true)
	var invalid *plan.InvalidError
	switch {
	case errors.As(err, &invalid):
		return nil, &UsageError{Err: err}
	case errors.Is(err, fs.ErrNotExist):
		return nil, precondition("%v: run oedl plan first", err)
	case err != nil:
		return nil, precondition("%v", err)
	}
	return &planFiles{st: t.Structure, df: t.DF}, nil
}

// checkSourceSchema holds the plan against the source's definitions (the
// .df the preflight's single-user session dumped, or prodict/dump_df.p
// through the DBA's broker, read-only, into a scratch directory)
// (plan.CheckSource): a plan made from another database, or before the
// schema changed, is refused before anything is dumped (exit 2).
func (r *runner) checkSourceSchema(ctx context.Context, pf *planFiles) error {
	c := r.cfg
	out := r.sourceDF // dumped with the transaction id (checkSourceFree)
	if out == "" {
		// Served by the DBA (--online-source): through its broker.
		tmp, err := os.MkdirTemp("", "oedl-preflight-")
		if err != nil {
			return precondition("scratch directory: %v", err)
		}
		defer os.RemoveAll(tmp)
		out = filepath.Join(tmp, SourceDF)
		argv := []string{c.bin("_progres"), "-b", "-db", c.Source, "-p", "prodict/dump_df.p", "-param", "ALL," + out}
		res, err := c.Runner.Run(ctx, execx.Cmd{Path: argv[0], Args: argv[1:], Dir: tmp, Env: c.env(), Timeout: 5 * time.Minute, Log: r.logWriter()})
		if err != nil {
			return precondition("dump the source's definitions (to check the plan was made from it): %s: %v: %s", execx.Quote(argv), err, lastMessage(res.Output))
		}
	}
	f, err := os.Open(out)
	if err != nil {
		return precondition("prodict/dump_df.p wrote no .df for %s: %v", c.Source, err)
	}
	defer f.Close()
	src, err := openedge.ParseDF(f, c.Source+" (dump_df.p)")
	if err != nil {
		return precondition("the source's definitions: %v", err)
	}
	if err := plan.CheckSource(c.Plan, pf.df, src, c.Source); err != nil {
		return &UsageError{Err: err}
	}
	return nil
}

// servedSource decides about a source someone else serves (a broker oedl
// did not start): users may still be writing, so a dump is not a
// consistent copy. Refused, unless the DBA said --online-source; then the
// run dumps through that broker, warns on the screen and in the report,
// and leaves the broker running.
func (r *runner) servedSource(db string) error {
	c := r.cfg
	switch {
	case !c.OnlineSource:
		return precondition("the source %s is served by a broker oedl did not start (276): users may still be writing, so the dump would not be a consistent copy. Stop it first (proshut %s -by), or, to dump it online anyway, give --online-source", db, execx.ShellQuote(db))
	case !c.served(schedule.DBSource):
		return precondition("the source %s is served (276) and --online-source dumps through its broker, which needs --dump-jobs 2 or more (with one dump job oedl opens the source single-user)", db)
	}
	r.externallyServed[schedule.DBSource] = true
	r.warnings = append(r.warnings, fmt.Sprintf("the source %s is served by a broker oedl did not start and is dumped ONLINE (--online-source): users may still be writing, so the target is not a consistent copy of any one moment", db))
	return nil
}
