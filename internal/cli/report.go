package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/oedl/oedl/internal/atomicfile"
	"github.com/oedl/oedl/internal/report"
)

// ReportOptions are the flags of `oedl report`.
type ReportOptions struct {
	IO    *IOStreams
	Work  string
	HTML  string // extra copy of report.html, e.g. for mailing
	Hosts string // hosts file: each host's role and address in the Hosts section
	JSON  bool   // the report's data on stdout instead of the files' names
}

// NewCmdReport builds `oedl report`.
func NewCmdReport(io *IOStreams) *cobra.Command {
	opts := &ReportOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "report --work DIR [--html FILE]",
		Short: "Write the report of a run: verdict, timings, critical path, Gantt chart",
		Long: `Report reads a run's work directory (journal.jsonl, plan.json, verify.json) and
writes WORK/report.md and a self-contained WORK/report.html (inline CSS and SVG,
no script, nothing fetched): the verdict, record counts table by table, timings
per phase and per table, the slowest tables, the critical path, throughput over
time and a Gantt chart of the jobs as they ran. It works on a run that is still
going or was interrupted; the verdict then says so. It exits 1 when the verdict
is not OK, so scripts can gate on it.

With --json the data report.md is made from goes to stdout as one JSON
object (its shape is in docs/run.md), and nothing else does; report.md and
report.html are written all the same.`,
		Example: `  oedl report --work work/
  oedl report --work work/ --html /tmp/migration-sports.html
  oedl report --work work/ --json | jq '.verdict.state, .phases'`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return reportRun(opts) },
	}
	cmd.Flags().StringVar(&opts.Work, "work", "", "work directory of the run")
	cmd.Flags().StringVar(&opts.HTML, "html", "", "also write the HTML report to FILE")
	cmd.Flags().StringVar(&opts.Hosts, "hosts", "", "hosts file of the run: each host's role and ssh destination in the report's Hosts section (docs/hosts.md)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "the report's data as JSON on stdout (still writes report.md and report.html)")
	return cmd
}

func reportRun(opts *ReportOptions) error {
	if opts.Work == "" {
		return UsageError("give the work directory of the run with --work")
	}
	if st, err := os.Stat(opts.Work); err != nil || !st.IsDir() {
		return UsageError("--work %s: not a directory", opts.Work)
	}
	if err := checkOutputDir("--work", opts.Work); err != nil {
		return err // report.md and report.html are written there
	}
	// Over a run's own reports only: a directory given as --work may
	// hold a journal copied among someone's files (safety trial 11).
	if err := checkOutputFile("--work", filepath.Join(opts.Work, report.MarkdownFile), oedlReportMD); err != nil {
		return err
	}
	if err := checkOutputFile("--work", filepath.Join(opts.Work, report.HTMLFile), oedlHTML); err != nil {
		return err
	}
	if opts.HTML != "" {
		if err := checkOutputFile("--html", opts.HTML, oedlHTML); err != nil {
			return err
		}
	}
	hf, err := readHosts(opts.Hosts, "", "")
	if err != nil {
		return err
	}
	d, err := report.FromWork(opts.Work)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return UsageError("%s holds no run (journal.jsonl is missing): %v", opts.Work, err)
		}
		return UsageError("%v", err)
	}
	d.WithHosts(hf)
	if err := report.Write(opts.Work, d); err != nil {
		return err
	}
	if opts.HTML != "" {
		var page bytes.Buffer
		if err := report.WriteHTML(&page, d); err != nil {
			return err
		}
		if err := makeOutputParent("--html", opts.HTML); err != nil {
			return err
		}
		if err := atomicfile.WriteFile(opts.HTML, page.Bytes()); err != nil {
			return err
		}
	}
	if opts.JSON {
		if err := report.WriteJSON(opts.IO.Out, d); err != nil {
			return err
		}
		return reportExit(d)
	}
	w := opts.IO.ErrOut
	if d.Verdict.OK {
		fmt.Fprintln(w, d.Verdict.Headline)
	}
	for _, x := range d.Verdict.Details {
		fmt.Fprintf(w, "  %s\n", x)
	}
	fmt.Fprintf(opts.IO.Out, "%s\n%s\n", filepath.Join(opts.Work, report.MarkdownFile), filepath.Join(opts.Work, report.HTMLFile))
	if opts.HTML != "" {
		fmt.Fprintln(opts.IO.Out, opts.HTML)
	}
	return reportExit(d)
}

// reportExit: 1 when the verdict is not OK, so scripts can gate on it.
func reportExit(d report.Data) error {
	if !d.Verdict.OK {
		return &ExitError{Code: ExitFailed, Err: errors.New(d.Verdict.Headline)}
	}
	return nil
}
