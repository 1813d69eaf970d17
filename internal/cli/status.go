package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/report"
	"github.com/oedl/oedl/internal/run"
	"github.com/oedl/oedl/internal/tui"
)

// StatusOptions are the flags of `oedl status`.
type StatusOptions struct {
	IO    *IOStreams
	Work  string
	JSON  bool
	Hosts string // hosts file: each host's role and address beside what it did
}

// NewCmdStatus builds `oedl status`.
func NewCmdStatus(io *IOStreams) *cobra.Command {
	opts := &StatusOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "status --work DIR",
		Short: "Where a run is, or how it ended (read-only, safe during the run)",
		Long: `Status replays the run's journal (WORK/journal.jsonl) without writing anything:
the phase, what is done, running and failed, the areas waiting for a repair,
whether the run's process is still alive (it holds WORK/oedl.lock) or was killed
(then resume it with oedl run --resume), utilities a killed run left running,
and, last, the verify verdict.

EXIT STATUS
  0 the run is going on, or it finished verified; 1 it failed, was interrupted
  or killed (the output says how to continue), or a table was loaded twice;
  2 no journal in --work, or an unreadable one.`,
		Example: `  oedl status --work work/
  watch -n 5 oedl status --work work/
  oedl status --work work/ --json | jq .counts`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return statusRun(c.Context(), opts) },
	}
	cmd.Flags().StringVar(&opts.Work, "work", "", "work directory of the run")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "the picture as JSON on stdout")
	cmd.Flags().StringVar(&opts.Hosts, "hosts", "", "hosts file of the run: each host's role and ssh destination beside what it did there (docs/hosts.md)")
	return cmd
}

// statusJSON is `oedl status --json`: the printers' snapshot plus what only
// the journal knows (docs/events.md). Whether the process lives is "alive":
// "running" is the snapshot's list of running jobs.
type statusJSON struct {
	tui.Snapshot
	Work        string   `json:"work"`
	Alive       bool     `json:"alive"`
	Killed      bool     `json:"killed"`
	PID         int      `json:"pid,omitempty"`
	DirtyAreas  []string `json:"dirty_areas,omitempty"`
	LoadedTwice []string `json:"loaded_twice,omitempty"`
	Records     int      `json:"journal_records"`
	// Orphans are utilities of a killed run still running ("job (pid N)").
	Orphans []string `json:"orphans,omitempty"`
	// Verify is the verify step's outcome: "" (not run yet), "started",
	// "done" (every table matches) or "failed"; VerifyText says more.
	Verify     string `json:"verify,omitempty"`
	VerifyText string `json:"verify_text,omitempty"`
	// Failed: the run ended without success (the exit status is 1).
	Failed bool `json:"failed"`
	// Hosts is what each host did, on several hosts (docs/hosts.md).
	Hosts []report.HostRow `json:"hosts,omitempty"`
}

func statusRun(_ context.Context, opts *StatusOptions) error {
	if opts.Work == "" {
		return UsageError("give the work directory with --work")
	}
	hf, err := readHosts(opts.Hosts, "", "")
	if err != nil {
		return err
	}
	st, err := run.ReadStatus(opts.Work)
	if errors.Is(err, fs.ErrNotExist) {
		if _, perr := os.Stat(filepath.Join(opts.Work, journal.PrepareFileName)); perr == nil {
			// Hours before the outage, after oedl prepare: no run yet.
			return UsageError("%s holds the preparation of a target (%s) and no run yet: oedl prepare again says how it stands and finishes it; oedl status follows the run that comes after", opts.Work, journal.PrepareFileName)
		}
		// As oedl report says it: the DBA may have given the plan or the
		// target directory for the work directory.
		return UsageError("%s holds no run (journal.jsonl is missing): give the --work of an oedl run: %v", opts.Work, err)
	}
	if err != nil {
		return UsageError("%v", err)
	}
	var rows report.Data
	if len(st.Records) > 0 {
		rows.Hosts = report.HostRows(st.Records, st.Records[0].Time)
		rows.WithHosts(hf)
	}
	state := tui.NewState()
	for _, e := range st.Events() {
		state.Apply(e)
	}
	if st.Running {
		state.Advance(time.Now())
	}
	pending := st.RepairsPending()
	areas := make([]string, 0, len(pending))
	for a := range pending {
		areas = append(areas, a)
	}
	sort.Strings(areas)
	orphans := make([]string, len(st.Orphans))
	for i, o := range st.Orphans {
		orphans[i] = fmt.Sprintf("%s (pid %d)", o.Job, o.Proc.PID)
	}
	verdict := st.Verdict()
	if opts.JSON {
		work, _ := filepath.Abs(opts.Work)
		out := statusJSON{Snapshot: state.Snapshot(), Work: work, Alive: st.Running, Killed: st.Killed, PID: st.PID,
			DirtyAreas: areas, LoadedTwice: st.Replayed.LoadedTwice(), Records: len(st.Records), Orphans: orphans,
			Verify: string(verdict.State), VerifyText: verdictText(verdict), Failed: st.Failed(), Hosts: rows.Hosts}
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
		return statusExit(st)
	}
	w := opts.IO.Out
	switch {
	case st.Running:
		fmt.Fprintf(w, "running (pid %d)\n", st.PID)
	case st.Killed:
		fmt.Fprintf(w, "not running: the last run stopped without an end record (killed or crashed); continue it with %s\n", resumeHint(st, opts.Work))
	default:
		if s := endedText(st, verdict); s != "" {
			fmt.Fprintf(w, "%s; continue it with %s\n", s, resumeHint(st, opts.Work))
		}
	}
	if err := tui.RenderStatus(w, state, 0); err != nil {
		return err
	}
	for _, a := range areas {
		if st.Running {
			fmt.Fprintf(w, "area %q: the run repairs it (truncate, reload its tables): %s\n", a, pending[a])
		} else {
			fmt.Fprintf(w, "area %q needs a repair before more loads (oedl run --resume does it): %s\n", a, pending[a])
		}
	}
	if len(orphans) > 0 {
		fmt.Fprintf(w, "still running from the killed run: %s; oedl run --resume stops them before it repairs anything\n", strings.Join(orphans, ", "))
	}
	writeHostRows(w, rows.Hosts, st.Killed)
	if twice := st.Replayed.LoadedTwice(); len(twice) > 0 {
		fmt.Fprintf(w, "WARNING: loaded twice without a repair between: %v\n", twice)
	}
	fmt.Fprintf(w, "verify: %s\n", verdictText(verdict))
	return statusExit(st)
}

// endedText says how the last run ended when a resume continues it: it
// was interrupted, or a job failed for good ("" otherwise: it goes on,
// it finished verified, verify found a mismatch a resume does not mend,
// or a table was loaded twice). The help promises that the output says
// how to continue; the killed case has its own line.
func endedText(st *run.Status, v run.Verdict) string {
	runs := st.Replayed.Runs
	if st.Running || len(runs) == 0 || v.State == journal.Failed || len(st.Replayed.LoadedTwice()) > 0 {
		return ""
	}
	switch last := runs[len(runs)-1]; {
	case last.State != journal.Failed:
		return ""
	case last.Interrupted():
		return "not running: the last run was interrupted (the journal is consistent)"
	}
	return "not running: the last run failed; fix the cause (the failures below)"
}

// verdictText is the last line of oedl status: the verify step's outcome.
func verdictText(v run.Verdict) string {
	switch v.State {
	case journal.Done:
		return "MATCH: " + v.Message
	case journal.Failed:
		return "FAILED: " + v.Err
	case journal.Started:
		return "running"
	}
	return "not run yet"
}

// statusExit: 1 when the run ended without success, 0 otherwise.
func statusExit(st *run.Status) error {
	if !st.Failed() {
		return nil
	}
	return &ExitError{Code: ExitFailed, Err: errors.New("the run did not finish verified (see above)")}
}

// resumeHint is the command that continues the run: whole (source,
// target, plan: what a resume must repeat) from the journal's last run
// record; --work alone for a journal of an oedl that did not record them.
func resumeHint(st *run.Status, work string) string {
	if cmd := st.ResumeCommand(work); cmd != "" {
		return cmd
	}
	return "oedl run --resume --work " + execx.ShellQuote(work)
}
