package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/poststeps"
)

// The figures a run may change only when the DBA asked for it (seed 003,
// "Watch out!": check the codepage, the database and BI block sizes and
// the BI cluster size). The names are those of --allow-change and of the
// OpenEdge options that set them.
const (
	ChangeCodepage      = "codepage"
	ChangeBlockSize     = "blocksize"
	ChangeBIBlockSize   = "biblocksize"
	ChangeBIClusterSize = "biclustersize"
)

// Changes are the values --allow-change takes.
var Changes = []string{ChangeCodepage, ChangeBlockSize, ChangeBIBlockSize, ChangeBIClusterSize}

// describeCheck is what the preflight learnt from describe: the source's
// figures (the post phase reads its AI and replication) and what the
// comparison let through: notes (what the plan decided, journalled with
// the preflight) and warnings (what --allow-change let through: on screen
// and in the report).
type describeCheck struct {
	source   openedge.Description
	notes    []string
	warnings []string
}

// checkDescribe compares the source with the target as the run will make
// it: block size from the plan, BI block and cluster size from the plan's
// BI settings (applied after the load) or else the empty database's, and
// the codepage of $DLC/emptyN, which procopy gives the target. That empty
// database is described through a copy in a scratch directory: describing
// $DLC's own would open (and lock) a file oedl did not create. A
// difference the DBA did not ask for (--allow-change, or the plan's own
// decision) is refused with exit 3 naming both values; one --allow-change
// let through is a warning, on screen and in the report; one the plan
// decided (its BI settings, its block size) is a note in the preflight's
// summary, as plan.json explains it.
func (r *runner) checkDescribe(ctx context.Context, emptyDB string) (*describeCheck, error) {
	return r.compareDescribed(ctx, emptyDB, r.describeEmpty(ctx, emptyDB))
}

// emptyDescribed is what describeEmpty learns, when it has.
type emptyDescribed func() (openedge.Description, error)

// describeEmpty describes a copy of emptyDB, in a scratch directory of its
// own, while the caller goes on (the function it returns waits for it, as
// often as called): the copy touches nothing the run has
// checked or will check (neither the source nor the target), and its two
// calls (procopy, describe) were two start-ups in the preflight's serial
// path. Its output goes to run.log when the caller has it, after the
// caller's own calls (the log stays one call after another).
func (r *runner) describeEmpty(ctx context.Context, emptyDB string) emptyDescribed {
	var (
		log  bytes.Buffer
		desc openedge.Description
		err  error
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		// The utilities run in the scratch directory, so that whatever
		// they leave in their working directory goes with it (the dry
		// run may have no work directory yet).
		scratch, e := os.MkdirTemp("", "oedl-describe-")
		if e != nil {
			err = e
			return
		}
		defer os.RemoveAll(scratch)
		copyDB := filepath.Join(scratch, "target")
		c := r.cfg
		argv := []string{c.bin("procopy"), emptyDB, copyDB}
		res, e := c.machine("").runner.Run(ctx, execx.Cmd{Path: argv[0], Args: argv[1:], Dir: scratch, Env: c.env(), Timeout: 5 * time.Minute, Log: &log})
		if e != nil {
			err = precondition("copy %s to learn the target's codepage: %v", emptyDB, fmt.Errorf("%s: %w: %s", execx.Quote(argv), e, lastMessage(res.Output)))
			return
		}
		desc, err = r.describeTo(ctx, copyDB, scratch, &log)
	}()
	var logged sync.Once
	return func() (openedge.Description, error) {
		<-done
		logged.Do(func() {
			if w := r.logWriter(); w != nil {
				_, _ = w.Write(log.Bytes())
			}
		})
		return desc, err
	}
}

// compareDescribed describes the source and compares it with the empty
// database's description (empty waits for it). Every return waits for
// it, so that no procopy outlives the preflight.
func (r *runner) compareDescribed(ctx context.Context, emptyDB string, empty emptyDescribed) (*describeCheck, error) {
	c := r.cfg
	scratch, err := os.MkdirTemp("", "oedl-describe-")
	if err != nil {
		_, _ = empty()
		return nil, err
	}
	defer os.RemoveAll(scratch)
	src, err := r.describe(ctx, c.Source, scratch)
	emptyDesc, emptyErr := empty()
	if err != nil {
		return nil, err
	}
	if emptyErr != nil {
		return nil, emptyErr
	}
	notes, warnings, refusals := compareDescriptions(src, emptyDesc, emptyDB, c.Plan, c.AllowChange)
	if len(refusals) > 0 {
		return nil, precondition("the target would differ from the source %s in what the DBA did not ask to change:\n  %s",
			c.Source, strings.Join(refusals, "\n  "))
	}
	return &describeCheck{source: src, notes: notes, warnings: warnings}, nil
}

// describe runs proutil db -C describe in dir and reads it by its layout.
func (r *runner) describe(ctx context.Context, db, dir string) (openedge.Description, error) {
	return r.describeTo(ctx, db, dir, r.logWriter())
}

// describeTo is describe with its output logged to log.
func (r *runner) describeTo(ctx context.Context, db, dir string, log io.Writer) (openedge.Description, error) {
	c := r.cfg
	argv := c.proutil(db, "describe")
	res, err := c.machine("").runner.Run(ctx, execx.Cmd{Path: argv[0], Args: argv[1:], Dir: dir, Env: c.env(), Timeout: time.Minute, Log: log})
	if err != nil {
		if errors.Is(err, execx.ErrExit) {
			return openedge.Description{}, precondition("%s failed with exit code %d: %s", execx.Quote(argv), res.ExitCode, lastMessage(res.Output))
		}
		return openedge.Description{}, fmt.Errorf("%s: %w", execx.Quote(argv), err)
	}
	d, err := openedge.ParseDescribe(res.Output)
	if err != nil {
		return d, fmt.Errorf("%s: %w", execx.Quote(argv), err)
	}
	return d, nil
}

// compareDescriptions says, figure by figure, what differs between the
// source and the target the run makes: a note when the plan decided it, a
// warning when --allow-change allows it, a refusal otherwise. A codepage
// describe does not print (before 12.x) cannot be compared: a warning
// says to compare it by hand.
func compareDescriptions(src, empty openedge.Description, emptyDB string, p *plan.Plan, allow []string) (notes, warnings, refusals []string) {
	differ := func(change, what, srcV, tgtV, why string, planned bool) {
		if srcV == tgtV {
			return
		}
		msg := fmt.Sprintf("%s: source %s, target %s (%s)", what, srcV, tgtV, why)
		switch {
		case planned:
			notes = append(notes, msg)
		case slices.Contains(allow, change):
			warnings = append(warnings, msg+": --allow-change "+change)
		default:
			refusals = append(refusals, msg+"; give --allow-change "+change+" if that is intended")
		}
	}
	if src.Codepage == "" || empty.Codepage == "" {
		warnings = append(warnings, fmt.Sprintf("codepage: describe does not print it (source %q, %s %q, before OpenEdge 12): compare them by hand (DBCODEPAGE)",
			src.Codepage, emptyDB, empty.Codepage))
	} else {
		differ(ChangeCodepage, "codepage", src.Codepage, empty.Codepage, "the codepage of "+emptyDB+", which procopy gives it", false)
	}
	bs := p.BlockSize
	if bs <= 0 {
		bs = plan.DefaultBlockSize
	}
	// The plan decided the block size knowingly when it was made from
	// this source's report (the same block size as describe's).
	differ(ChangeBlockSize, "database block size", itoa(src.BlockSize), itoa(bs), "plan.json block_size",
		p.Source.BlockSize == src.BlockSize && p.BlockSize > 0)
	biBlock, biWhy := empty.BIBlockSize, "the empty database's"
	if p.BI.BlockSizeKB > 0 {
		biBlock, biWhy = p.BI.BlockSizeKB*1024, "plan.json bi.block_size_kb"
	}
	differ(ChangeBIBlockSize, "BI block size", itoa(src.BIBlockSize), itoa(biBlock), biWhy, p.BI.BlockSizeKB > 0)
	biCluster, clWhy := empty.BIClusterKB, "the empty database's"
	if p.BI.ClusterSizeKB > 0 {
		biCluster, clWhy = p.BI.ClusterSizeKB, "plan.json bi.cluster_size_kb"
	}
	differ(ChangeBIClusterSize, "BI cluster size (KB)", itoa(src.BIClusterKB), itoa(biCluster), clWhy, p.BI.ClusterSizeKB > 0)
	return notes, warnings, refusals
}

// summary is the comparison in the preflight's one line: the source's
// figures and what the plan decided to change.
func (d *describeCheck) summary() string {
	cp := d.source.Codepage
	if cp == "" {
		cp = "not printed"
	}
	s := fmt.Sprintf("describe: codepage %s, block size %d, BI block size %d, BI cluster %d KB", cp, d.source.BlockSize, d.source.BIBlockSize, d.source.BIClusterKB)
	for _, n := range d.notes {
		s += "; " + n
	}
	return s
}

// emptyDB is $DLC's empty database of the plan's block size, the one
// procopy copies to make the target (and so the one checkDescribe
// compares the source with).
func (c *Config) emptyDB() string {
	bs := c.Plan.BlockSize
	if bs <= 0 {
		bs = plan.DefaultBlockSize
	}
	return filepath.Join(c.DLC, fmt.Sprintf("empty%d", bs/1024))
}

// writePostSteps writes, into the work directory, the steps after the
// load that oedl leaves to the DBA (poststeps), decided by what describe
// said of the source (unknown on a run across hosts, which does not
// describe it).
func (r *runner) writePostSteps() error {
	c := r.cfg
	src := poststeps.Source{}
	if d := r.described; d != nil {
		src = poststeps.Source{Known: true, AI: d.source.AI(), Replication: d.source.Has(openedge.FeatureReplication)}
	}
	tables := make([]string, 0, len(c.Plan.Tables))
	for _, t := range c.Plan.Tables {
		tables = append(tables, t.Table)
	}
	dlc := c.DLC
	if l := c.hostLayout(); l != nil {
		dlc = c.at(l.Target).DLC // the commands run on the target's machine
	}
	steps := poststeps.Build(dlc, c.Target, c.Work, tables, src)
	return poststeps.Write(c.Work, c.Target, tables, steps)
}

func itoa(n int) string { return fmt.Sprint(n) }
