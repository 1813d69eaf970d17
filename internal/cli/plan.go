package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/hosts"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/units"
)

// PlanOptions are the flags of `oedl plan`.
type PlanOptions struct {
	IO     *IOStreams
	Runner execx.Runner // runs proutil and _progres in --source mode

	Tabanalys string
	DF        string
	Source    string
	DLC       string
	Out       string

	BlockSize int
	Large     string
	Medium    string
	Top       int
	Headroom  int
	MaxExtent string
	DataDirs  []string
	BIDir     string
	AIDirs    []string
	Cores     int
	Memory    string
	Target    string
	JSON      bool
	Hosts     string // hosts file: the source (and the target's path) on their hosts

	hosts *hosts.File
}

// NewCmdPlan builds `oedl plan`.
func NewCmdPlan(io *IOStreams) *cobra.Command {
	opts := &PlanOptions{IO: io, Runner: execx.Local{}}
	cmd := &cobra.Command{
		Use:   "plan (--tabanalys FILE [--df FILE] | --source DB --dlc DIR) -o DIR",
		Short: "Plan the target layout: storage areas, .st, .df, tablemove.sh, tuned .pf",
		Long: `Plan turns the source database's tabanalys report (or dbanalys, or the
-csoutput DB.tab.txt with DB.ix.txt beside it), and its .df, into a better
layout for the target database, with a reason for every decision:

  target.st     the new structure: Type II areas by size class and RPB, an index
                area per data area, LOB areas, extents sized from the data
  target.df     the source .df with only AREA, index AREA and LOB-AREA rewritten
  tablemove.sh  the online alternative: proutil tablemove per table, after
                prostrct addonline of the areas in tablemove.st
  placement.md  every area and table with size, records, RPB, BPC and why
  target.pf     startup parameters, each with its reason, and the idxbuild ones
  plan.json     all of it for oedl run and oedl estimate

With --source, oedl runs proutil dbanalys (tabanalys with the indexes' sizes,
which size the index areas and idxbuild's sort) and dumps the .df itself.
Nothing is written unless the whole plan is valid.`,
		Example: `  # from a report and a .df
  oedl plan --tabanalys prod.tba --df prod.df -o plan/

  # from the database itself, for a bigger target machine with two data disks
  oedl plan --source /db/prod --dlc /usr/dlc -o plan/ --target /db/new/prod \
      --data-dir /data1/prod --data-dir /data2/prod --bi-dir /bi/prod --cores 16 --memory 64GB`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if opts.DLC == "" {
				opts.DLC = os.Getenv("DLC")
			}
			return planRun(c.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Tabanalys, "tabanalys", "", "tabanalys or dbanalys report of the source, or its -csoutput DB.tab.txt")
	f.StringVar(&opts.DF, "df", "", "the source .df (needed for target.df and LOB areas)")
	f.StringVar(&opts.Source, "source", "", "source database: run dbanalys and dump the .df from it")
	f.StringVar(&opts.DLC, "dlc", "", "OpenEdge install directory for --source (default $DLC)")
	f.StringVarP(&opts.Out, "out", "o", "", "plan directory to write (replaced if it holds an earlier plan and nothing else)")
	f.IntVar(&opts.BlockSize, "block-size", plan.DefaultBlockSize, "target database block size: 1024, 2048, 4096 or 8192")
	f.StringVar(&opts.Large, "large", "1GB", "tables this large get their own area (BPC 512)")
	f.StringVar(&opts.Medium, "medium", "100MB", "tables this large (and under --large) share medium areas (BPC 64)")
	f.IntVar(&opts.Top, "top", 0, "also give the N largest tables their own area")
	f.IntVar(&opts.Headroom, "headroom", plan.DefaultHeadroomPct, "growth headroom for fixed extents, percent")
	f.StringVar(&opts.MaxExtent, "max-extent", "2GB", "largest fixed extent; up to 2GB every extent stays under 2 GiB (no large files needed), above it the target needs large files")
	f.StringArrayVar(&opts.DataDirs, "data-dir", nil, "directory for data extents, repeatable: each fixed extent to the one with the fewest fixed bytes (default: the --target directory)")
	f.StringVar(&opts.BIDir, "bi-dir", "", "directory for the before-image extents (default: the first data directory)")
	f.StringArrayVar(&opts.AIDirs, "ai-dir", nil, "directory for after-image extents, repeatable (default: no AI extents)")
	f.IntVar(&opts.Cores, "cores", 0, "cores of the target machine (default: the target host's cores: in --hosts, else this machine's)")
	f.StringVar(&opts.Memory, "memory", "", "memory of the target machine, e.g. 64GB (default: this machine's)")
	f.StringVar(&opts.Target, "target", "", "target database path the extents are laid out for")
	f.BoolVar(&opts.JSON, "json", false, "print plan.json on stdout")
	f.StringVar(&opts.Hosts, "hosts", "", "hosts file: run dbanalys and dump the .df on the source host over ssh, and lay the extents out for the target host's database (docs/hosts.md)")
	return cmd
}

func planRun(ctx context.Context, opts *PlanOptions) error {
	hf, err := readHosts(opts.Hosts, opts.Source, "")
	if err != nil {
		return err
	}
	if hf != nil {
		if opts.Tabanalys != "" {
			return UsageError("--hosts plans from the source host: leave out --tabanalys")
		}
		opts.hosts = hf
		if opts.Target == "" {
			opts.Target = hf.Target().DB
		}
	}
	o, err := opts.planOptions()
	if err != nil {
		return err
	}
	if err := checkOutputDir("-o", opts.Out); err != nil {
		return err
	}
	var in plan.Input
	var df *openedge.DF
	var extra []plan.File
	switch {
	case opts.Source != "" || opts.hosts != nil:
		in, df, extra, err = sourceInput(ctx, opts)
	default:
		in, df, err = fileInput(opts)
	}
	if err != nil {
		return err
	}
	p, err := plan.Make(in, o)
	if err != nil {
		return UsageError("%v", err)
	}
	if opts.Source != "" {
		p.Source.Path, _ = filepath.Abs(strings.TrimSuffix(opts.Source, ".db"))
	}
	if opts.hosts != nil {
		// The source and the target are on their hosts: their files are
		// proven there, by oedl run's preflight.
		p.Source.Path = opts.hosts.Source().DB
	} else if err := checkPlanPaths(ctx, opts, p); err != nil {
		return err
	}
	if err := plan.WriteDir(opts.Out, p, df, extra...); err != nil {
		var invalid *plan.InvalidError
		switch {
		case errors.Is(err, plan.ErrNotPlanDir), errors.Is(err, plan.ErrNotOnlyPlan):
			return UsageError("-o %v", err)
		case errors.As(err, &invalid):
			return UsageError("the plan is not written: %v", err)
		}
		return FailedError(fmt.Errorf("write %s: %w", opts.Out, err))
	}
	printPlanSummary(opts, p)
	if opts.JSON {
		return plan.WriteJSON(opts.IO.Out, p)
	}
	return nil
}

// planOptions checks the flags and turns them into plan.Options.
func (opts *PlanOptions) planOptions() (plan.Options, error) {
	o := plan.DefaultOptions()
	switch {
	case opts.Tabanalys == "" && opts.Source == "" && opts.hosts == nil:
		return o, UsageError("give --tabanalys FILE or --source DB")
	case opts.Tabanalys != "" && opts.Source != "":
		return o, UsageError("--tabanalys and --source exclude each other")
	case opts.DF != "" && opts.Source != "":
		return o, UsageError("--df is for --tabanalys; --source dumps the .df itself")
	case opts.Out == "":
		return o, UsageError("give the plan directory with -o DIR")
	}
	sizes := []struct {
		flag string
		text string
		dst  *int64
	}{
		{"--large", opts.Large, &o.LargeBytes},
		{"--medium", opts.Medium, &o.MediumBytes},
		{"--max-extent", opts.MaxExtent, &o.MaxExtentBytes},
	}
	for _, s := range sizes {
		n, err := units.ParseBytes(s.text)
		if err != nil {
			return o, UsageError("%s: %v", s.flag, err)
		}
		*s.dst = n
	}
	o.BlockSize, o.TopN, o.HeadroomPct = opts.BlockSize, opts.Top, opts.Headroom
	o.DataDirs, o.BIDir, o.AIDirs = opts.DataDirs, opts.BIDir, opts.AIDirs
	if opts.Target != "" {
		abs, err := filepath.Abs(opts.Target)
		if err != nil {
			return o, UsageError("--target %q: %v", opts.Target, err)
		}
		o.Target = strings.TrimSuffix(abs, ".db")
	}
	switch {
	case opts.Cores != 0:
		o.Machine.Cores = opts.Cores
	case opts.hosts != nil && opts.hosts.Target().Cores > 0:
		// The target host's, as the hosts file says: the machine oedl
		// runs on is rarely the new server target.pf is tuned for.
		o.Machine.Cores = opts.hosts.Target().Cores
	}
	if opts.Memory != "" {
		n, err := units.ParseBytes(opts.Memory)
		if err != nil {
			return o, UsageError("--memory: %v", err)
		}
		o.Machine.MemoryBytes = n
	} else if o.Machine.MemoryBytes == 0 {
		return o, UsageError("cannot read this machine's memory size (no /proc/meminfo): give --memory")
	}
	return o, nil
}

// fileInput reads --tabanalys and --df. Unreadable or malformed files are
// bad input (exit 2); the parsers' errors already name file:line.
func fileInput(opts *PlanOptions) (plan.Input, *openedge.DF, error) {
	in := plan.Input{AnalysisName: opts.Tabanalys}
	var err error
	if in.Analysis, err = readAnalysis(opts.Tabanalys); err != nil {
		return in, nil, err
	}
	if opts.DF == "" {
		return in, nil, nil
	}
	df, err := readDF(opts.DF)
	if err != nil {
		return in, nil, err
	}
	in.DFTables, in.DFSequences, in.DFName, in.AlternatePool = df.Tables(), df.Sequences(), opts.DF, df.AlternatePool()
	return in, df, nil
}

// readAnalysis reads a tabanalys or dbanalys report, or the -csoutput
// DB.tab.txt file (exact byte sizes instead of the report's one decimal),
// known by its name or its content, together with DB.ix.txt beside it when
// there is one. `oedl verify` reads its reports with it too, so that it
// accepts whatever `oedl plan` does.
func readAnalysis(path string) (*openedge.Analysis, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, UsageError("%v", err)
	}
	data = openedge.FromUTF16(data) // redirected by Windows PowerShell
	prefix, isCS := strings.CutSuffix(path, ".tab.txt")
	isCS = isCS || openedge.IsCSTab(data)
	if !isCS {
		a, err := openedge.ParseAnalysis(bytes.NewReader(data), path)
		if err != nil {
			return nil, UsageError("%v", err)
		}
		return a, nil
	}
	a, err := openedge.ParseCSTab(bytes.NewReader(data), path)
	if err != nil {
		return nil, UsageError("%v", err)
	}
	ixPath := prefix + ".ix.txt"
	f, err := os.Open(ixPath)
	if errors.Is(err, fs.ErrNotExist) {
		return a, nil
	} else if err != nil {
		return nil, UsageError("%v", err)
	}
	defer f.Close()
	ix, err := openedge.ParseCSIndex(f, ixPath)
	if err != nil {
		return nil, UsageError("%v", err)
	}
	a.Indexes = ix.Indexes
	return a, nil
}

func readDF(path string) (*openedge.DF, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, UsageError("--df: %v", err)
	}
	defer f.Close()
	df, err := openedge.ParseDF(f, path)
	if err != nil {
		return nil, UsageError("%v", err)
	}
	if len(df.Tables()) == 0 {
		return nil, UsageError("--df %s: no ADD TABLE in it: an empty .df defines nothing to plan (dump the source's with prodict/dump_df.p, ALL tables)", path)
	}
	// The whole schema the target will be built from: what load_df.p
	// would stop at after the outage began is refused now.
	if err := openedge.CheckSchema(df, nil); err != nil {
		return nil, UsageError("%v", err)
	}
	return df, nil
}

// sourceInput runs dbanalys and the .df dump against --source (or the
// source host of --hosts), through the same utilities a DBA would run, and
// keeps both outputs in the plan directory (source.dba, source.df) so that
// the plan can be audited. dbanalys, not tabanalys: its index section gives
// each table's index bytes, which size the index areas' extents, the sort
// space the preflight checks and idxbuild's key work in the estimate; a
// plan from tabanalys alone guesses them (docs/decisions.md, "The plan
// from the source runs dbanalys"). The plan is made before the outage, so
// the longer scan costs no outage time.
func sourceInput(ctx context.Context, opts *PlanOptions) (plan.Input, *openedge.DF, []plan.File, error) {
	var in plan.Input
	ps, err := opts.planSource()
	if err != nil {
		return in, nil, nil, err
	}
	defer ps.close()
	if ps.dlc == "" {
		return in, nil, nil, PreconditionError(errors.New("--source needs --dlc DIR or $DLC"))
	}
	proutil := path.Join(ps.dlc, "bin", "proutil")
	progres := path.Join(ps.dlc, "bin", "_progres")
	db := strings.TrimSuffix(ps.db, ".db")
	got, err := ps.fs.Lstat(ctx, proutil, progres, db+".db")
	if err != nil {
		return in, nil, nil, PreconditionError(fmt.Errorf("%s%v", ps.where, err))
	}
	for _, exe := range []string{proutil, progres} {
		if _, ok := got[exe]; !ok {
			return in, nil, nil, PreconditionError(fmt.Errorf("%sDLC %s: %s not found: is it an OpenEdge (or oesim) install?", ps.where, ps.dlc, exe))
		}
	}
	if _, ok := got[db+".db"]; !ok {
		return in, nil, nil, PreconditionError(fmt.Errorf("%ssource database %s: %s.db not found", ps.where, ps.db, db))
	}
	tmp := path.Join(ps.scratch, fmt.Sprintf(".oedl-plan-%d", os.Getpid()))
	if err := ps.fs.MkdirAll(ctx, tmp); err != nil {
		return in, nil, nil, err
	}
	defer func() { _ = ps.fs.RemoveAll(context.WithoutCancel(ctx), tmp) }()
	env := append([]string{"DLC=" + ps.dlc}, ps.env...)

	res, err := ps.runner.Run(ctx, execx.Cmd{Path: proutil, Args: openedge.ProutilArgs(db, "dbanalys"), Env: env, Dir: tmp})
	if err != nil {
		if denied := sourceDenied(ps, res.Output); denied != nil {
			return in, nil, nil, denied
		}
		return in, nil, nil, FailedError(fmt.Errorf("%sproutil %s -C dbanalys: %w\n%s", ps.where, db, err, tail(res.Output)))
	}
	report := res.Output
	name := db + " (proutil -C dbanalys)"
	if in.Analysis, err = openedge.ParseAnalysis(strings.NewReader(report), name); err != nil {
		return in, nil, nil, FailedError(err)
	}
	in.AnalysisName = sourceAnalysisFile

	dfPath := path.Join(tmp, "source.df")
	res, err = ps.runner.Run(ctx, execx.Cmd{Path: progres, Env: env, Dir: tmp,
		Args: openedge.ProgresArgs(db, "prodict/dump_df.p", "ALL,"+dfPath+",")})
	if err != nil {
		if denied := sourceDenied(ps, res.Output); denied != nil {
			return in, nil, nil, denied
		}
		return in, nil, nil, FailedError(fmt.Errorf("%s_progres dump_df.p on %s: %w\n%s", ps.where, db, err, tail(res.Output)))
	}
	dfData, err := ps.fs.ReadFile(ctx, dfPath)
	if err != nil {
		return in, nil, nil, FailedError(fmt.Errorf("dump_df.p wrote no .df: %w\n%s", err, tail(res.Output)))
	}
	df, err := openedge.ParseDF(bytes.NewReader(dfData), "source.df")
	if err != nil {
		return in, nil, nil, FailedError(err)
	}
	in.DFTables, in.DFSequences, in.DFName, in.AlternatePool = df.Tables(), df.Sequences(), "source.df", df.AlternatePool()
	extra := []plan.File{
		{Name: sourceAnalysisFile, Mode: 0o644, Data: []byte(report)},
		{Name: plan.FileSourceDF, Mode: 0o644, Data: dfData},
	}
	return in, df, extra, nil
}

// writeBiggest writes the plan summary's biggest tables in columns as wide
// as their longest name and size (at least 32 and 8, which most fit):
// names are never cut, the DBA greps for them, and an OpenEdge name may
// have 32 characters and an owner besides. fmt counts widths in runes.
func writeBiggest(w io.Writer, big []plan.Placement) {
	nameW, sizeW := 32, 8
	for _, t := range big {
		nameW = max(nameW, utf8.RuneCountInString(t.Table))
		sizeW = max(sizeW, utf8.RuneCountInString(units.FormatIEC(t.Bytes)))
	}
	for _, t := range big {
		fmt.Fprintf(w, "  %-*s %*s  RPB %-3d BPC %-3d -> %s\n", nameW, t.Table, sizeW, units.FormatIEC(t.Bytes), t.RPB, t.BPC, t.DataArea)
	}
}

// sourceDenied is the precondition (exit 3) of a utility that could not
// open a file of the source because the system refused this user: its
// (43) with errno 13 or 1, decided from the number, not the words. A DBA
// runs the plan as another user than the database's owner; the fix is
// his: run as the owner, or give this user access (OpenEdge opens the
// database's files for writing even to read it: DB.lk, DB.lg, the BI).
// nil for any other failure.
//
// Errno 30 (EROFS) is the same kind of refusal: the source on a read-only
// filesystem (a snapshot or a restored copy mounted ro), where the
// utility cannot create DB.lk beside it (new-user trial 6).
func sourceDenied(ps *planSource, out string) error {
	m, errno, ok := openedge.CannotOpen(out)
	switch {
	case ok && openedge.Denied(errno):
		return PreconditionError(fmt.Errorf("%ssource database %s: %s; run oedl plan as the database's owner (the user its files belong to), or give this user read and write access to the database's files and directory",
			ps.where, ps.db, m.String()))
	case ok && errno == syscall.EROFS:
		return PreconditionError(fmt.Errorf("%ssource database %s: %s; the database is on a read-only filesystem, and OpenEdge writes DB.lk and DB.lg beside it even to read it: mount it read-write, or restore or copy it (procopy) to a writable place",
			ps.where, ps.db, m.String()))
	}
	return nil
}

// sourceAnalysisFile is the source's dbanalys report in the plan directory.
const sourceAnalysisFile = plan.FileSourceAnalysis

// tail is the end of a utility's output, for an error message.
func tail(out string) string {
	const keep = 2000
	out = strings.TrimSpace(out)
	if len(out) > keep {
		out = "..." + out[len(out)-keep:]
	}
	return out
}

// printPlanSummary tells on stderr what the plan decided: areas, tables
// per class and the biggest tables.
func printPlanSummary(opts *PlanOptions, p *plan.Plan) {
	w := opts.IO.ErrOut
	classes := map[plan.SizeClass]int{}
	for _, t := range p.Tables {
		classes[t.Class]++
	}
	size := units.FormatIEC(p.Totals.Bytes)
	var lobs int64
	for _, t := range p.Tables {
		lobs += t.LOBBytes
	}
	if lobs > 0 {
		// LOBs are often most of a table's bytes, and the dumps, loads and
		// estimate carry them: say them beside the records' size.
		size = fmt.Sprintf("%s of records and %s of LOBs", size, units.FormatIEC(lobs))
	}
	fmt.Fprintf(w, "Planned %d tables (%s, %s records): %d large, %d medium, %d small, %d empty.\n",
		p.Totals.Tables, size, units.Thousands(p.Totals.Records),
		classes[plan.ClassLarge], classes[plan.ClassMedium], classes[plan.ClassSmall], classes[plan.ClassEmpty])
	if p.Source.Approximate {
		fmt.Fprintln(w, "These sizes are approximations: the analysis was made while the source was in use (2486); placement.md says so too.")
	}
	blockSize := fmt.Sprint(p.BlockSize)
	if p.Source.BlockSize != 0 && p.Source.BlockSize != p.BlockSize {
		// A change the run will not question (the plan decided it): said
		// here, where the DBA can still keep the source's with --block-size.
		blockSize += fmt.Sprintf(" (the source's is %d: --block-size %d keeps it)", p.Source.BlockSize, p.Source.BlockSize)
	}
	fmt.Fprintf(w, "Areas: %d data, %d index, %d LOB (numbers %d-%d), block size %s.\n",
		p.Totals.DataAreas, p.Totals.IndexAreas, p.Totals.LOBAreas,
		openedge.FirstUserAreaNum, openedge.FirstUserAreaNum+len(p.Areas)-1, blockSize)
	var dirs []string
	for _, du := range p.DiskUse() {
		dirs = append(dirs, fmt.Sprintf("%s %s", du.Dir, units.FormatIEC(du.FixedBytes)))
	}
	fmt.Fprintf(w, "Fixed extents: %s (%s).\n", units.FormatIEC(p.Totals.FixedBytes), strings.Join(dirs, ", "))
	for _, warning := range p.AINotIsolated() {
		fmt.Fprintf(w, "Warning: %s.\n", warning)
	}
	big := append([]plan.Placement(nil), p.Tables...)
	sort.SliceStable(big, func(i, j int) bool { return big[i].Bytes > big[j].Bytes })
	if len(big) > 5 {
		big = big[:5]
	}
	fmt.Fprintln(w, "Biggest:")
	writeBiggest(w, big)
	if p.Target == "" {
		fmt.Fprintf(w, "No --target: %s.\n", plan.NoTargetNote(p))
	}
	files := []string{plan.FileStructure, plan.FileTablemove, plan.FileAddAreas, plan.FilePlacement, plan.FilePF, plan.FilePlan}
	if p.Source.DF != "" {
		files = append(files, plan.FileDF)
	}
	fmt.Fprintf(w, "Wrote %s: %s.\n", opts.Out, strings.Join(files, ", "))
	if p.Source.DF == "" {
		fmt.Fprintln(w, "No --df: no target.df, so oedl run, prepare and calibrate cannot build the target from this plan (oedl estimate can price it): plan again with --df FILE or --source DB.")
	}
}
