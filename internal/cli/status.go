package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/oedl/oedl/internal/run"
	"github.com/oedl/oedl/internal/tui"
)

// StatusOptions are the flags of `oedl status`.
type StatusOptions struct {
	IO   *IOStreams
	Work string
	JSON bool
}

// NewCmdStatus builds `oedl status`.
func NewCmdStatus(io *IOStreams) *cobra.Command {
	opts := &StatusOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "status --work DIR",
		Short: "Where a run is, or how it ended (read-only, safe during the run)",
		Long: `Status replays the run's journal (WORK/journal.jsonl) without writing anything:
the phase, what is done, running and failed, the areas waiting for a repair,
and whether the run's process is still alive or was killed (then resume it with
oedl run --resume).`,
		Example: `  oedl status --work work/
  watch -n 5 oedl status --work work/
  oedl status --work work/ --json | jq .counts`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return statusRun(c.Context(), opts) },
	}
	cmd.Flags().StringVar(&opts.Work, "work", "", "work directory of the run")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "the picture as JSON on stdout")
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
}

func statusRun(_ context.Context, opts *StatusOptions) error {
	if opts.Work == "" {
		return UsageError("give the work directory with --work")
	}
	st, err := run.ReadStatus(opts.Work)
	if err != nil {
		return UsageError("%v", err)
	}
	state := tui.NewState()
	for _, e := range st.Events() {
		state.Apply(e)
	}
	if st.Running {
		state.Advance(time.Now())
	}
	if opts.JSON {
		work, _ := filepath.Abs(opts.Work)
		out := statusJSON{Snapshot: state.Snapshot(), Work: work, Alive: st.Running, Killed: st.Killed, PID: st.PID,
			DirtyAreas: st.Replayed.DirtyAreas(), LoadedTwice: st.Replayed.LoadedTwice(), Records: len(st.Records)}
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	w := opts.IO.Out
	switch {
	case st.Running:
		fmt.Fprintf(w, "running (pid %d)\n", st.PID)
	case st.Killed:
		fmt.Fprintf(w, "not running: the last run stopped without an end record (killed or crashed); continue it with oedl run --resume --work %s\n", opts.Work)
	}
	if err := tui.RenderStatus(w, state, 0); err != nil {
		return err
	}
	for _, a := range st.Replayed.DirtyAreas() {
		fmt.Fprintf(w, "area %q needs a repair before more loads: %s\n", a, st.Replayed.Dirty[a])
	}
	if twice := st.Replayed.LoadedTwice(); len(twice) > 0 {
		fmt.Fprintf(w, "WARNING: loaded twice without a repair between: %v\n", twice)
	}
	return nil
}
